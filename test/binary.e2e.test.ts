/**
 * The compiled executable alone (issue 4): built by scripts/build.ts, copied into an empty
 * directory outside the repository (so no node_modules can be found) and driven as an
 * operator would, with a bare environment: migrate, set up an organisation, import the
 * example files, serve, read every endpoint with a token, stop on SIGTERM. Then the
 * raw-socket fuzzer of test/socket-fuzz.ts against it (issue 12), with no NODE_ENV, as the
 * systemd unit runs it: FUZZ_SOCKET_SEED and FUZZ_SOCKET_BINARY_CASES (default 3,000) vary it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { generateCases, runSocketFuzz, serverOutputProblems } from "./socket-fuzz.ts";

const ROOT = join(import.meta.dir, "..");
const EXAMPLES = join(ROOT, "examples/import");

let buildDir: string;
let runDir: string;
let binary: string;

/** Every directory from `dir` up to the root: none may hold node_modules. */
function ancestors(dir: string): string[] {
  const all = [dir];
  while (dirname(all.at(-1)!) !== all.at(-1)) all.push(dirname(all.at(-1)!));
  return all;
}

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), "leaveapi-build-"));
  const build = Bun.spawn([process.execPath, join(ROOT, "scripts/build.ts"), "--outfile", join(buildDir, "leaveapi")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
  if (code !== 0) throw new Error(`scripts/build.ts exited ${code}: ${out}${err}`);

  runDir = mkdtempSync(join(tmpdir(), "leaveapi-bin-"));
  binary = join(runDir, "leaveapi");
  copyFileSync(join(buildDir, "leaveapi"), binary);
  for (const file of ["holidays.jsonl", "employees.csv", "leave.jsonl"]) copyFileSync(join(EXAMPLES, file), join(runDir, file));
}, 120_000);

afterAll(() => {
  rmSync(buildDir, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
});

/** Nothing from the developer's shell: no PATH to bun, no NODE_PATH, no DATABASE_URL, no NODE_ENV. */
const BARE_ENV = { PATH: "/usr/bin:/bin" };
const FUZZ_SEED = Number(process.env.FUZZ_SOCKET_SEED?.split(",")[0] ?? 20261126);
const FUZZ_CASES = Number(process.env.FUZZ_SOCKET_BINARY_CASES ?? 3000);

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([binary, ...args], { cwd: runDir, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: BARE_ENV });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function runJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await run([...args, "--json"]);
  if (result.code !== 0) throw new Error(`leaveapi ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Collects a child's output as it comes; `waitFor` resolves once the text so far matches, and rejects if the stream ends first. */
function collectOutput(stream: ReadableStream<Uint8Array>) {
  let text = "";
  let ended = false;
  const wakers: Array<() => void> = [];
  const wake = () => wakers.splice(0).forEach((w) => w());
  const done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      wake();
    }
    ended = true;
    wake();
  })();
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    for (;;) {
      const match = pattern.exec(text);
      if (match) return match;
      if (ended) throw new Error(`output ended before ${pattern}: ${text}`);
      await new Promise<void>((resolve) => wakers.push(resolve));
    }
  };
  return { waitFor, text: async () => (await done, text) };
}

/** `leaveapi serve` on a free port with the bare environment, its output collected. */
function spawnServer(db: string[]) {
  const server = Bun.spawn([binary, ...db, "serve", "--port", "0"], { cwd: runDir, stdout: "pipe", stderr: "pipe", env: BARE_ENV });
  return { server, stdout: collectOutput(server.stdout), stderr: collectOutput(server.stderr) };
}

/** A token request by client_secret_basic. */
function requestToken(base: string, client: { client_id: string; client_secret: string }): Promise<Response> {
  return fetch(`${base}/v1/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
}

interface Page<T> {
  data: T[];
  has_more: boolean;
}
interface Employee {
  id: string;
  first_name: string;
  holiday_calendar: string;
}
interface Booking {
  id: string;
  employee_id: string;
  start_date: string;
  days: number;
}
interface Holiday {
  date: string;
  name: string;
  type: string;
}

describe("the compiled leaveapi executable, alone in an empty directory", () => {
  test("runs every command and serves every endpoint, then stops on SIGTERM", async () => {
    for (const dir of ancestors(runDir)) {
      expect(dir.startsWith(ROOT)).toBe(false);
      expect(existsSync(join(dir, "node_modules"))).toBe(false);
    }

    expect((await run(["--version"])).stdout.trim()).toBe(packageJson.version);
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: leaveapi");

    // Without --db the database is ./leaveapi.sqlite in the working directory.
    expect(readdirSync(runDir)).not.toContain("leaveapi.sqlite");
    expect(await runJson(["migrate"])).toMatchObject({ database: "sqlite", location: "./leaveapi.sqlite", migrated: true });
    expect(readdirSync(runDir)).toContain("leaveapi.sqlite");

    const db = ["--db", join(runDir, "api.sqlite")];
    expect(await runJson([...db, "migrate"])).toMatchObject({ migrated: true });
    expect(readdirSync(runDir)).toContain("api.sqlite");

    const org = await runJson<{ id: string; api_enabled: boolean }>([...db, "org", "create", "--name", "Binary Ltd"]);
    expect(org.api_enabled).toBe(false);
    expect(await runJson([...db, "org", "enable-api", org.id])).toMatchObject({ id: org.id, api_enabled: true });
    const client = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);
    expect(client.client_secret).toStartWith("svcs_");

    const imported: Record<string, { rows: number; created: number }> = {};
    for (const [kind, file] of [
      ["holidays", "holidays.jsonl"],
      ["employees", "employees.csv"],
      ["leave", "leave.jsonl"],
    ] as const) {
      imported[kind] = await runJson([...db, "import", "--org", org.id, "--kind", kind, file]);
      expect(imported[kind]!.rows).toBeGreaterThan(0);
      expect(imported[kind]!.created).toBeGreaterThan(0);
    }
    // The other database was left alone.
    expect(await runJson<unknown[]>(["org", "list"])).toEqual([]);

    const { server, stdout, stderr } = spawnServer(db);
    try {
      const base = (await stderr.waitFor(/leaveapi serving (http:\/\/\S+)/))[1]!;

      const tokenResponse = await requestToken(base, client);
      expect(tokenResponse.status).toBe(200);
      const token = (await tokenResponse.json()) as { access_token: string; token_type: string; scope: string };
      expect(token.token_type).toBe("Bearer");
      expect(token.scope.split(" ").sort()).toEqual(["employees:read", "holidays:read", "leave:read"]);

      const get = async <T>(path: string, authorised = true): Promise<T> => {
        const response = await fetch(`${base}${path}`, authorised ? { headers: { authorization: `Bearer ${token.access_token}` } } : {});
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
        return (await response.json()) as T;
      };

      const employees = await get<Page<Employee>>("/v1/employees");
      expect(employees.data).toHaveLength(imported.employees!.rows);
      expect(employees.data.map((e) => e.first_name).sort()).toEqual(["Ada", "Alan", "Grace"]);
      const ada = employees.data.find((e) => e.first_name === "Ada")!;
      expect(await get<{ data: Employee }>(`/v1/employees/${ada.id}`)).toEqual({ data: ada });

      const leave = await get<Page<Booking>>("/v1/leave-requests?from=2026-01-01&to=2026-12-31");
      expect(leave.data.length).toBeGreaterThan(0);
      for (const booking of leave.data) expect(employees.data.map((e) => e.id)).toContain(booking.employee_id);
      // Computed at import from the embedded holiday data: 1–10 April 2026 is 8 weekdays,
      // less Good Friday and Easter Monday in England.
      expect(leave.data.find((b) => b.employee_id === ada.id && b.start_date === "2026-04-01")?.days).toBe(6);

      const holidays = await get<Page<Holiday>>("/v1/holidays?from=2026-12-01&to=2026-12-31");
      expect(holidays.data).toContainEqual(expect.objectContaining({ date: "2026-12-24", type: "company", name: "Christmas Eve closure" }));
      expect(holidays.data).toContainEqual(expect.objectContaining({ date: "2026-12-25", type: "public" }));
      // A lunar calendar is worked out in the holiday thread, a second entry point of the binary.
      const taiwan = await get<Page<Holiday>>("/v1/holidays?from=2030-01-01&to=2030-12-31&calendar=TW");
      expect(taiwan.data.length).toBeGreaterThan(5);
      expect(await get("/v1/holidays?from=0001-01-01&to=0001-12-31&calendar=CN")).toEqual({ data: [] });

      expect(await get("/healthz", false)).toEqual({ status: "ok" });
      const openapi = await get<{ openapi: string; paths: Record<string, unknown> }>("/v1/openapi.json", false);
      expect(openapi.openapi).toStartWith("3.1");
      expect(Object.keys(openapi.paths)).toContain("/v1/employees");
      const metadata = await get<{ token_endpoint: string }>("/.well-known/oauth-authorization-server", false);
      expect(metadata.token_endpoint).toBe(`${base}/v1/oauth/token`);
    } finally {
      server.kill("SIGTERM");
    }
    expect({ exit: await server.exited, stderr: await stderr.text() }).toEqual({ exit: 0, stderr: expect.stringContaining("leaveapi serving") });
    expect(await stdout.text()).not.toContain(client.client_secret);
  }, 60_000);

  test(`with no NODE_ENV, raw-socket fuzz (${FUZZ_CASES} cases): our JSON or a listed Bun refusal, and only log lines on its output`, async () => {
    const db = ["--db", join(runDir, "fuzz.sqlite")];
    const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Fuzz Ltd"]);
    await runJson([...db, "org", "enable-api", org.id]);
    const client = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);
    await runJson([...db, "import", "--org", org.id, "--kind", "employees", "employees.csv"]);

    const { server, stdout, stderr } = spawnServer(db);
    let token = "";
    let report: Awaited<ReturnType<typeof runSocketFuzz>>;
    try {
      const base = (await stderr.waitFor(/leaveapi serving (http:\/\/\S+)/))[1]!;
      const tokenResponse = await requestToken(base, client);
      token = ((await tokenResponse.json()) as { access_token: string }).access_token;
      const employees = (await (await fetch(`${base}/v1/employees`, { headers: { authorization: `Bearer ${token}` } })).json()) as Page<Employee>;
      const port = Number(new URL(base).port);
      const fixtures = { clientId: client.client_id, clientSecret: client.client_secret, token, employeeId: employees.data[0]!.id };
      const replay = `FUZZ_SOCKET_SEED=${FUZZ_SEED} FUZZ_SOCKET_BINARY_CASES=${FUZZ_CASES} bun test test/binary.e2e.test.ts`;
      report = await runSocketFuzz(port, generateCases(FUZZ_SEED, FUZZ_CASES, fixtures, port), { concurrency: 4, timeoutMs: 10_000, replay });
      console.log(
        `socket fuzz of the binary, seed ${FUZZ_SEED}: ${report.cases} cases: ${report.outcomes.json} JSON answers, ${report.outcomes["bun-refusal"]} Bun refusals, ${report.outcomes.closed} connections closed by Bun`,
      );
    } finally {
      server.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);
    expect(report.failures).toEqual([]);
    expect(report.cases).toBe(FUZZ_CASES);
    expect(serverOutputProblems((await stdout.text()) + (await stderr.text()), [client.client_secret, token])).toEqual([]);
  }, 60_000);
});
