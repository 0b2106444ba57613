/**
 * The npm package as its users get it (docs/install.md): built, packed and installed from
 * the tarball into a fresh project outside the repository, then used the three ways it is
 * for, with Bun absent from PATH:
 * - the `leaveapi` command (npx), every admin step and `serve`, on SQLite and on Postgres,
 *   then a token and a page of employees from the server it started;
 * - the library from plain `node`: Postgres store on node:http under /hr-api, holidays in a
 *   worker thread, `leaveapi/sqlite`'s clear error on Node 20, `leaveapi/client` alone;
 * - the consumer's TypeScript checked against the installed declarations.
 * And what the install costs: packages and bytes within PACKAGE_LIMITS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { installFootprint, packAndInstall, PACKAGE_LIMITS } from "../bench/package-size.ts";
import { fetchAccessToken, startServer, type RunningServer } from "./cli-harness.ts";
import { pathWithoutBun } from "./node-only-path.ts";
import { scratchDatabases } from "./pg-scratch.ts";
import { BAMBOO_MAP, PERSONIO_MAP } from "./hr-exports.ts";
import { writeXlsx, writeZipBomb } from "./xlsx-files.ts";

const ROOT = join(import.meta.dir, "..");
const ENTRIES = ["index", "sqlite", "sqlite-node", "postgres", "node", "memory", "testing", "client"];
const EMPLOYEE_ID = "0b7c9a52-3c1e-4f6a-9d2b-6e8f0a1b2c3d";

const scratch = mkdtempSync(join(tmpdir(), "leaveapi-npm-"));
let app = "";
let packedFiles: string[] = [];
const servers: RunningServer[] = [];
const newDatabase = scratchDatabases("npm_pack", async () => {
  await Promise.all(servers.map((s) => s.stop()));
});
afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000);

const NODE_ONLY = { PATH: pathWithoutBun(), DATABASE_URL: "", LEAVEAPI_DB: "" };

/** Runs a command; a non-zero exit is an error unless `mustSucceed` is false. */
async function run(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {},
  mustSucceed = true,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const proc = Bun.spawn(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 && mustSucceed) throw new Error(`${argv.join(" ")} exited ${code}:\n${stdout}\n${stderr}`);
  return { stdout, stderr, code };
}

/** `npx leaveapi …` in the consumer project, on a PATH with Node and no Bun. */
const npx = (args: string[]) => run(["npx", "--no-install", "leaveapi", ...args], app, NODE_ONLY);
const npxJson = async <T = Record<string, unknown>>(args: string[]) => JSON.parse((await npx([...args, "--json"])).stdout) as T;

/** The consumer: plain JavaScript for `node`, using only the package's public entry points. */
const MAIN_JS = `
import { createServer } from "node:http";
import { ALL_SCOPES, createHandler, mintClient } from "leaveapi";
import { openPostgresStore } from "leaveapi/postgres";
import { toNodeListener } from "leaveapi/node";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const now = Date.now();
const organisationId = crypto.randomUUID();
await store.createOrganisation({ id: organisationId, name: "Node Ltd", api_enabled: true, created_at: now });
const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "npm e2e", now);
await store.createClient(client);
await store.runImport((w) => w.upsertEmployees(organisationId, [{
  id: "${EMPLOYEE_ID}", external_id: "E1", first_name: "Grace", last_name: "Hopper", preferred_name: null,
  job_title: "Rear Admiral", department: "Navy", status: "active", start_date: "1943-12-01", leaving_date: null,
  holiday_calendar: "US",
}], now));

const server = createServer(toNodeListener(createHandler({ store, basePath: "/hr-api" })));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = "http://127.0.0.1:" + server.address().port;
// A store that cannot connect: its StoreUnavailableError must reach the handler as a 503.
const down = openPostgresStore({ connectionString: "postgres://postgres@127.0.0.1:1/none", connectionTimeoutMs: 2000 });
try {
  const tokenRes = await fetch(base + "/hr-api/v1/oauth/token", {
    method: "POST",
    headers: { Authorization: "Basic " + btoa(client.client_id + ":" + secret), "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials&scope=employees%3Aread",
  });
  const token = await tokenRes.json();
  const auth = { Authorization: "Bearer " + token.access_token };
  const employees = await fetch(base + "/hr-api/v1/employees", { headers: auth });
  const head = await fetch(base + "/hr-api/v1/employees", { method: "HEAD", headers: auth });
  const outside = await fetch(base + "/v1/employees", { headers: auth });
  const metadata = await (await fetch(base + "/hr-api/.well-known/oauth-authorization-server")).json();
  const health = await createHandler({ store: down })(new Request("http://localhost/healthz"));
  console.log(JSON.stringify({
    node: process.version,
    token: { status: tokenRes.status, pragma: tokenRes.headers.get("pragma"), token_type: token.token_type, scope: token.scope, expires_in: token.expires_in },
    employees: { status: employees.status, body: await employees.json() },
    head: { status: head.status, contentType: head.headers.get("content-type"), body: await head.text() },
    outside: outside.status,
    tokenEndpointUnderPrefix: metadata.token_endpoint === base + "/hr-api/v1/oauth/token",
    storeDown: health.status,
  }));
} finally {
  server.close();
  await Promise.all([store.close(), down.close()]);
}
`;

/** The consumer's TypeScript, checked against the installed package's declarations. */
const CHECK_TS = `
import { createServer } from "node:http";
import { ALL_SCOPES, ApiError, createHandler, mintClient, type AdminStore, type Handler, type HandlerOptions, type RequestLogEntry, type Store } from "leaveapi";
import { openPostgresStore, type PostgresStoreOptions } from "leaveapi/postgres";
import { toNodeListener, type NodeListener } from "leaveapi/node";
import { createMemoryStore } from "leaveapi/memory";
import { runStoreContract, type ContractFramework, type StoreUnderTest } from "leaveapi/testing";
import type { SqliteStoreOptions } from "leaveapi/sqlite";

const options: PostgresStoreOptions = { connectionString: "postgres://localhost/hr", schema: "hr" };
const store: Store & AdminStore = openPostgresStore(options);
const log = (entry: RequestLogEntry): void => console.log(entry.route, entry.status);
const handlerOptions: HandlerOptions = { store, basePath: "/hr-api", issuer: "https://example.com/hr-api", now: Date.now, log, tokenLimits: { perClient: 5 } };
const handler: Handler = createHandler(handlerOptions);
const listener: NodeListener = toNodeListener(handler, { trustProxy: true });
createServer(listener);
const answer: Promise<Response> = handler(new Request("http://localhost/hr-api/healthz"), { remoteAddress: "127.0.0.1" });
const memory: Store = createMemoryStore();
const error: Error = new ApiError(404, "not_found", "No such thing.");
const secret: string = mintClient("org", [...ALL_SCOPES], null, Date.now()).secret;
const sqlite: SqliteStoreOptions = { filename: ":memory:" };
declare const framework: ContractFramework;
runStoreContract({
  name: "memory",
  create: async (): Promise<StoreUnderTest> => {
    const fresh = createMemoryStore();
    return { store: fresh, dispose: async () => {}, setApiEnabled: (id, on) => fresh.setApiEnabled(id, on) };
  },
}, framework);
// @ts-expect-error basePath is a string
createHandler({ store, basePath: 1 });
// @ts-expect-error a Store has more methods than ping
const incomplete: Store = { ping: async () => {} };
void [answer, error, secret, sqlite, incomplete];
`;

beforeAll(async () => {
  ({ app, files: packedFiles } = await packAndInstall(scratch));
}, 600_000);

describe("the npm package", () => {
  test("holds the launcher, the bundles, their declarations and the documents, and no sources or tests", () => {
    for (const name of ENTRIES) {
      expect(packedFiles).toContain(`dist/lib/entry/${name}.js`);
      expect(packedFiles).toContain(`dist/lib/entry/${name}.d.ts`);
    }
    for (const file of [
      "package.json",
      "bin/leaveapi.mjs",
      "dist/cli/scripts/cli.js",
      "dist/cli/adapters/holiday-thread.js",
      "dist/lib/adapters/holiday-thread.js",
    ]) {
      expect(packedFiles).toContain(file);
    }
    for (const file of [
      "README.md",
      "LICENSE",
      "SECURITY.md",
      "CHANGELOG.md",
      "openapi.json",
      "docs/api.md",
      "docs/cli.md",
      "docs/embedding.md",
      "docs/install.md",
    ]) {
      expect(packedFiles).toContain(file);
    }
    for (const file of ["THIRD-PARTY-NOTICES.txt", "deploy/leaveapi.service", "examples/node-http.mjs", "examples/import/employees.csv", "bench/RESULTS.md"]) {
      expect(packedFiles).toContain(file);
    }
    // Sources and tests stay out; the examples the documents walk through ship, as documents.
    expect(packedFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && !f.startsWith("examples/"))).toEqual([]);
    expect(
      packedFiles.filter((f) => (/^(test|bench|node_modules|scripts|lib|server|adapters)\//.test(f) && f !== "bench/RESULTS.md") || f === "dist/leaveapi"),
    ).toEqual([]);
  });

  test("every relative link of its Markdown documents resolves inside the installed package", () => {
    const installed = join(app, "node_modules/leaveapi");
    const shipped = new Set(packedFiles);
    const dead: string[] = [];
    for (const doc of packedFiles.filter((f) => f.endsWith(".md"))) {
      for (const [, link] of readFileSync(join(installed, doc), "utf8").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(link!)) continue;
        const target = normalize(join(dirname(doc), link!)).replace(/\/$/, "");
        if (!shipped.has(target) && !packedFiles.some((f) => f.startsWith(`${target}/`))) dead.push(`${doc}: ${link}`);
      }
    }
    expect(dead).toEqual([]);
  });

  test("names no folder of the machine that built it", () => {
    const installed = join(app, "node_modules/leaveapi");
    const naming = packedFiles.filter((f) => readFileSync(join(installed, f), "utf8").includes(ROOT));
    expect(naming).toEqual([]);
  });

  test(`adds at most ${PACKAGE_LIMITS.packages} packages and ${PACKAGE_LIMITS.bytes / 1024 / 1024} MiB to a project, the Bun runtime apart`, () => {
    const footprint = installFootprint(app);
    console.log(
      `installed: ${footprint.packages.length} packages, ${(footprint.bytes / 1024 / 1024).toFixed(1)} MiB; Bun runtime: ${footprint.runtime.packages.length} packages, ${(footprint.runtime.bytes / 1024 / 1024).toFixed(1)} MiB`,
    );
    expect(footprint.packages.length).toBeLessThanOrEqual(PACKAGE_LIMITS.packages);
    expect(footprint.bytes).toBeLessThanOrEqual(PACKAGE_LIMITS.bytes);
    // What a SQLite user does not need: the Postgres driver (an optional peer) and what only the build uses.
    for (const absent of ["pg", "date-holidays", "@scalar/api-reference", "bun-types", "typescript", "csv-parse", "prom-client"]) {
      expect(footprint.packages).not.toContain(`node_modules/${absent}`);
    }
    expect(footprint.runtime.packages).toContain("node_modules/bun");
  });

  test("from plain Node, with pg installed beside it: Postgres store, node:http under /hr-api, token and employees round trip", async () => {
    // pg is an optional peer: a Postgres user installs it beside leaveapi (docs/install.md).
    await run(["npm", "install", `pg@${packageJson.devDependencies.pg}`, "--no-audit", "--no-fund"], app);
    writeFileSync(join(app, "main.js"), MAIN_JS);
    const { stdout } = await run(["node", "main.js"], app, { DATABASE_URL: await newDatabase() });
    const result = JSON.parse(stdout) as {
      node: string;
      employees: { status: number; body: { data: Record<string, unknown>[]; has_more: boolean } };
    } & Record<string, unknown>;
    expect(Number(/^v(\d+)\./.exec(result.node)?.[1])).toBeGreaterThanOrEqual(20);
    expect(result).toMatchObject({
      token: { status: 200, pragma: "no-cache", token_type: "Bearer", scope: "employees:read", expires_in: 3600 },
      head: { status: 200, contentType: "application/json", body: "" },
      outside: 404,
      tokenEndpointUnderPrefix: true,
      storeDown: 503,
    });
    expect(result.employees.status).toBe(200);
    expect(result.employees.body.has_more).toBe(false);
    expect(result.employees.body.data).toHaveLength(1);
    expect(result.employees.body.data[0]).toMatchObject({
      id: EMPLOYEE_ID,
      first_name: "Grace",
      last_name: "Hopper",
      holiday_calendar: "US",
      start_date: "1943-12-01",
    });
  }, 60_000);

  test("its declarations type-check a TypeScript consumer (nodenext resolution, library checks on)", async () => {
    writeFileSync(join(app, "check.ts"), CHECK_TS);
    const tsconfig = {
      compilerOptions: {
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        typeRoots: [join(ROOT, "node_modules/@types")],
      },
      files: ["check.ts"],
    };
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(tsconfig));
    await run([join(ROOT, "node_modules/.bin/tsc"), "-p", "tsconfig.json"], app);
  }, 120_000);

  test("leaveapi/client loads nothing of the server: no dependency, no server or store code", () => {
    const dist = join(app, "node_modules/leaveapi/dist/lib");
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?["']([^"']+)["']/g)) {
        if (specifier!.startsWith(".")) visit(join(file, "..", specifier!));
        else bare.add(specifier!);
      }
    };
    visit(join(dist, "entry/client.js"));
    const sources = [...seen].flatMap((file) => [...readFileSync(file, "utf8").matchAll(/^\/\/ (\S+\.ts)$/gm)].map((m) => m[1]!));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((source) => !/^(client|lib|entry)\//.test(source))).toEqual([]);
    expect([...bare]).toEqual([]);
  });

  test("on Node 20, leaveapi/sqlite imports, and opening a store says what to use instead", async () => {
    writeFileSync(
      join(app, "sqlite.js"),
      `import { openSqliteStore, SqliteUnsupportedError } from "leaveapi/sqlite";
try { openSqliteStore({ filename: "x.sqlite" }); console.log(JSON.stringify({ opened: true })); }
catch (error) { console.log(JSON.stringify({ name: error.name, unsupported: error instanceof SqliteUnsupportedError, message: error.message })); }`,
    );
    const { stdout } = await run(["node", "sqlite.js"], app, NODE_ONLY);
    const result = JSON.parse(stdout) as Record<string, unknown>;
    // This machine's Node is 20 (test "from plain Node" prints it); node:sqlite came in 22.16.
    expect((await run(["node", "--version"], app)).stdout).toStartWith("v20.");
    expect(result).toMatchObject({ name: "SqliteUnsupportedError", unsupported: true });
    expect(result.message).toContain("Node 22.16 or later");
    expect(result.message).toContain("leaveapi/postgres");
  }, 60_000);

  test("from plain Node: shipped public holidays worked out in a worker thread", async () => {
    writeFileSync(
      join(app, "holidays.js"),
      `import { createHolidayWorker } from "leaveapi";
const worker = createHolidayWorker();
try { console.log(JSON.stringify({ cn: (await worker.source("CN", 2024)).length, gb: (await worker.source("GB-ENG", 2026))[0] })); }
finally { await worker.close(); }`,
    );
    const result = JSON.parse((await run(["node", "holidays.js"], app, NODE_ONLY)).stdout) as { cn: number; gb: unknown };
    expect(result.cn).toBeGreaterThan(5);
    expect(result.gb).toEqual({ date: "2026-01-01", name: "New Year's Day" });
  }, 60_000);

  test("on Bun, leaveapi/sqlite is the bun:sqlite store", async () => {
    writeFileSync(
      join(app, "bun-sqlite.js"),
      `import { openSqliteStore } from "leaveapi/sqlite";
const store = openSqliteStore({ filename: ":memory:" });
await store.migrate();
console.log(JSON.stringify({ resolved: import.meta.resolve("leaveapi/sqlite"), organisations: (await store.listOrganisations()).length }));
await store.close();`,
    );
    const bun = join(app, "node_modules/bun/bin/bun.exe");
    const result = JSON.parse((await run([bun, "bun-sqlite.js"], app, NODE_ONLY)).stdout) as { resolved: string; organisations: number };
    expect(result.resolved).toEndWith("/node_modules/leaveapi/dist/lib/entry/sqlite.js");
    expect(result.organisations).toBe(0);
  }, 60_000);
});

describe("the installed leaveapi command, on a machine with Node and no Bun on PATH", () => {
  test("Bun is not on that PATH, and the command answers --version and --help", async () => {
    expect(Bun.which("bun", { PATH: NODE_ONLY.PATH })).toBeNull();
    expect((await npx(["--version"])).stdout.trim()).toBe(packageJson.version);
    expect((await npx(["--help"])).stdout).toContain("usage: leaveapi");
  }, 60_000);

  /** Every admin step from docs/cli.md's "A first set-up", then serve, a token and a page. */
  async function firstSetUp(database: string[]): Promise<void> {
    await npx([...database, "migrate"]);
    const org = await npxJson<{ id: string }>([...database, "org", "create", "--name", "Packed Ltd"]);
    await npx([...database, "org", "enable-api", org.id]);
    const imported = await npxJson<{ created: number }>([
      ...database,
      "import",
      "--org",
      org.id,
      "--kind",
      "employees",
      join(ROOT, "examples/import/employees.jsonl"),
    ]);
    expect(imported.created).toBeGreaterThan(0);
    const client = await npxJson<{ client_id: string; client_secret: string }>([
      ...database,
      "credentials",
      "create",
      "--org",
      org.id,
      "--scopes",
      "employees:read holidays:read",
    ]);

    const server = await startServer(database, { command: [join(app, "node_modules/.bin/leaveapi")], cwd: app, env: NODE_ONLY });
    servers.push(server);
    const access_token = await fetchAccessToken(server.baseUrl, client);
    const page = await fetch(`${server.baseUrl}/v1/employees?limit=2`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { data: { first_name: string }[]; has_more: boolean; next_cursor: string | null };
    expect(body.data.map((e) => e.first_name)).toHaveLength(2);
    expect(body.has_more).toBe(true);
    // The next page by its cursor, which the bundled command signs and checks with node:crypto's HMAC.
    const rest = await fetch(`${server.baseUrl}/v1/employees?limit=2&cursor=${body.next_cursor}`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(rest.status).toBe(200);
    const restBody = (await rest.json()) as { data: { first_name: string }[]; has_more: boolean };
    expect(restBody.has_more).toBe(false);
    expect(new Set([...body.data, ...restBody.data].map((e) => e.first_name)).size).toBe(imported.created);
    // Public holidays come from the holiday thread, an entry point of the command's bundle.
    const holidays = await fetch(`${server.baseUrl}/v1/holidays?from=2026-01-01&to=2026-12-31&calendar=CN`, {
      headers: { Authorization: `Bearer ${access_token}` },
    });
    expect(holidays.status).toBe(200);
    expect(((await holidays.json()) as { data: unknown[] }).data.length).toBeGreaterThan(5);
    // The API reference's script is a file beside the bundle, found from the bundle, not from the working directory.
    const script = await fetch(`${server.baseUrl}/docs/api-reference.js`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(3_000_000);
    // SIGTERM to the launcher reaches the server, which stops gracefully; the launcher exits with its status.
    servers.splice(servers.indexOf(server), 1);
    expect(await server.stop("SIGTERM")).toBe(0);
  }

  test("imports other systems' exports: a ';' CSV in Windows-1252 and a workbook with German headers, through maps, with the workbook reader the command carries", async () => {
    const database = ["--db", join(scratch, "exports.sqlite")];
    const org = await npxJson<{ id: string }>([...database, "org", "create", "--name", "Exports GmbH"]);
    const csv = join(scratch, "bamboo.csv");
    const csvText = "Employee #;First Name;Last Name;Status;Hire Date\n1001;Zoë;Müller;Active;03/01/2021\n";
    writeFileSync(csv, Uint8Array.from([...csvText].map((c) => c.charCodeAt(0))));
    const csvMap = join(scratch, "bamboo-map.json");
    writeFileSync(csvMap, JSON.stringify(BAMBOO_MAP));
    const dryRun = async (map: string, file: string, ...flags: string[]) =>
      (
        await npxJson<{ first_rows: Record<string, string>[] }>([
          ...database,
          "import",
          "--org",
          org.id,
          "--kind",
          "employees",
          "--map",
          map,
          ...flags,
          "--dry-run",
          file,
        ])
      ).first_rows;
    expect(await dryRun(csvMap, csv, "--encoding", "windows-1252")).toEqual([
      expect.objectContaining({ first_name: "Zoë", last_name: "Müller", start_date: "2021-03-01" }),
    ]);
    const xlsx = join(scratch, "personio.xlsx");
    await writeXlsx(xlsx, [
      {
        name: "Mitarbeiter",
        rows: [
          ["Personalnummer", "Vorname", "Nachname", "Status", "Eintrittsdatum"],
          [2001, "Jürgen", "Weiß", "aktiv", { date: 44652, format: "dd.mm.yyyy" }],
          [2002, "Anna", "Groß", "aktiv", "15.01.2020"],
        ],
      },
    ]);
    const xlsxMap = join(scratch, "personio-map.json");
    writeFileSync(xlsxMap, JSON.stringify(PERSONIO_MAP));
    expect((await dryRun(xlsxMap, xlsx)).map((r) => [r.external_id, r.start_date])).toEqual([
      ["2001", "2022-04-01"],
      ["2002", "2020-01-15"],
    ]);
    expect((await npxJson<{ created: number }>([...database, "import", "--org", org.id, "--kind", "employees", "--map", xlsxMap, xlsx])).created).toBe(2);

    // UTF-16 as Excel's "Unicode text" saves it: recognised by its byte-order mark.
    const utf16 = join(scratch, "unicode.txt");
    writeFileSync(
      utf16,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("external_id\tfirst_name\tlast_name\tstatus\r\nU1\tŁucja\tWęgrzyn\tactive\r\n", "utf16le")]),
    );
    expect((await npxJson<{ created: number }>([...database, "import", "--org", org.id, "--kind", "employees", "--format", "csv", utf16])).created).toBe(1);
    // A zip bomb is refused before anything is unpacked.
    const bomb = join(scratch, "bomb.xlsx");
    await writeZipBomb(bomb, "lying");
    const refused = await run(["npx", "--no-install", "leaveapi", ...database, "import", "--org", org.id, "--kind", "employees", bomb], app, NODE_ONLY, false);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("a damaged file or a zip bomb");
    // A full export that would delete most of the three people is refused; one that leaves out one is taken with --prune-max.
    const full = (ids: string[]) => {
      const path = join(scratch, `full-${ids.length}.csv`);
      writeFileSync(path, `external_id,first_name,last_name,status\n${ids.map((id) => `${id},F,L,active`).join("\n")}\n`);
      return path;
    };
    const tooFew = await run(
      ["npx", "--no-install", "leaveapi", ...database, "import", "--org", org.id, "--kind", "employees", "--prune", full(["2001"])],
      app,
      NODE_ONLY,
      false,
    );
    expect(tooFew.stderr).toContain("--prune would delete 2 of the 3 live employees");
    const pruned = await npxJson<{ pruned: number }>([
      ...database,
      "import",
      "--org",
      org.id,
      "--kind",
      "employees",
      "--prune",
      "--prune-max",
      "50",
      full(["2001", "U1"]),
    ]);
    expect(pruned.pruned).toBe(1);
  }, 120_000);

  test("on SQLite: migrate, org create, org enable-api, import, credentials create, serve", async () => {
    await firstSetUp(["--db", join(scratch, "packed.sqlite")]);
  }, 120_000);

  test("on Postgres: the same, with the driver the command carries", async () => {
    await firstSetUp(["--database-url", await newDatabase()]);
  }, 120_000);
});
