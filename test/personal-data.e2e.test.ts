/**
 * Deleted means gone (docs/api.md, "Personal data"), through the real
 * command line while `serve` runs and a client syncs, on SQLite and on the machine's
 * Postgres: a person deleted by an import row, and one erased with `leaveapi erase`, are
 * in no byte of the SQLite database, its write-ahead log or its tokens file, and in no row
 * on Postgres; the syncing client is told through the deletions feed; and imported again,
 * a person is created afresh.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fetchAccessToken, runCli, runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";
import { pollUntil, queryDatabase, scratchDatabases } from "./pg-scratch.ts";

const scratch = scratchDir();
const servers: RunningServer[] = [];
const newDatabase = scratchDatabases("personal", async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(async () => {
  for (const server of servers.splice(0)) await server.stop();
  scratch.dispose();
});

/** Names and dates no other record has, so that finding them anywhere means this person. */
const ADA = { external_id: "PD-1", first_name: "Zebedee", last_name: "Quarrington", status: "active", start_date: "1987-06-05", holiday_calendar: "GB-ENG" };
const BO = { external_id: "PD-2", first_name: "Wilhelmina", last_name: "Oyelaran-Fitch", status: "active", start_date: "1979-02-03" };
const KEEP = { external_id: "PD-3", first_name: "Kept", last_name: "Person", status: "active", start_date: "2020-01-06" };
const leave = (id: string, employee: string, start: string) => ({
  external_id: id,
  employee_external_id: employee,
  leave_type: { name: "Annual leave", category: "annual", is_paid: true },
  start_date: start,
  end_date: start,
  status: "approved",
});
const ADA_LEAVE = [leave("PD-L1", "PD-1", "2026-07-13"), leave("PD-L2", "PD-1", "2026-08-17")];
const BO_LEAVE = [leave("PD-L3", "PD-2", "2026-09-21")];
const KEEP_LEAVE = [leave("PD-L4", "PD-3", "2026-10-05")];
/** What must be gone of each: names and the dates only they had. */
const TRACES = { ada: ["Zebedee", "Quarrington", "1987-06-05", "2026-07-13", "2026-08-17"], bo: ["Wilhelmina", "Oyelaran-Fitch", "1979-02-03", "2026-09-21"] };

let fileCount = 0;
const jsonl = (records: object[]) => {
  const path = join(scratch.dir, `f${++fileCount}.jsonl`);
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join("\n"));
  return path;
};

interface Target {
  args: string[];
  /** Which of `traces` are still somewhere: in the bytes of every database file (SQLite) or in any row (Postgres). */
  found(traces: string[]): Promise<string[]>;
}

async function sqliteTarget(): Promise<Target> {
  const file = join(scratch.dir, `data-${++fileCount}.sqlite`);
  return {
    args: ["--db", file],
    async found(traces) {
      const files = [file, `${file}-wal`, `${file}-tokens`, `${file}-tokens-wal`].filter(existsSync);
      const bytes = files.map((f) => readFileSync(f).toString("latin1"));
      return traces.filter((t) => bytes.some((b) => b.includes(t)));
    },
  };
}

async function postgresTarget(): Promise<Target> {
  const url = await newDatabase();
  return {
    args: ["--database-url", url],
    async found(traces) {
      // Every column of every row of the record tables, as text.
      const rows = await queryDatabase<{ t: string }>(
        url,
        `select row_to_json(e)::text as t from employees e union all select row_to_json(b)::text from leave_bookings b
         union all select row_to_json(d)::text from deletions d`,
      );
      return traces.filter((t) => rows.some((r) => r.t.includes(t)));
    },
  };
}

describe.each([
  ["SQLite", sqliteTarget],
  ["Postgres", postgresTarget],
])("on %s", (_name, makeTarget) => {
  test("a person deleted by an import row, and one erased, are in no byte and no row; the syncing client drops them; imported again, a person is new", async () => {
    const target = await makeTarget();
    const cli = (...args: string[]) => runCli([...target.args, ...args]);
    const org = (await runJson<{ id: string }>([...target.args, "org", "create", "--name", "Personal Ltd"])).id;
    await cli("org", "enable-api", org);
    expect((await cli("import", "--org", org, "--kind", "employees", jsonl([ADA, BO, KEEP]))).code).toBe(0);
    expect((await cli("import", "--org", org, "--kind", "leave", jsonl([...ADA_LEAVE, ...BO_LEAVE, ...KEEP_LEAVE]))).code).toBe(0);
    const client = await runJson<{ client_id: string; client_secret: string }>([
      ...target.args,
      "credentials",
      "create",
      "--org",
      org,
      "--scopes",
      "employees:read leave:read",
    ]);

    // The server keeps its connection (on SQLite, the write-ahead log stays) and a client syncs throughout.
    const server = await startServer(target.args, { serveArgs: ["--read-rate-limit", "0"] });
    servers.push(server);
    const token = { access_token: await fetchAccessToken(server.baseUrl, client) };
    const get = async <T>(path: string) =>
      (await (await fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${token.access_token}` } })).json()) as T;
    const names = async () => (await get<{ data: { first_name: string }[] }>("/v1/employees?limit=100")).data.map((e) => e.first_name).sort();
    expect(await names()).toEqual(["Kept", "Wilhelmina", "Zebedee"]);
    const syncedAt = new Date().toISOString();
    expect(await target.found([...TRACES.ada, ...TRACES.bo])).toEqual([...TRACES.ada, ...TRACES.bo]);

    // Deleted by an import row: gone with their booking.
    const deleted = await cli("import", "--org", org, "--kind", "employees", jsonl([{ external_id: "PD-2", deleted: true }]));
    expect(deleted.stdout).toContain("1 deleted");
    expect(await target.found(TRACES.bo)).toEqual([]);

    // Erased: first asked, then for good.
    const asked = await cli("erase", "--org", org, "--employee", "PD-1");
    expect(asked.code).toBe(1);
    expect(asked.stdout).toContain("would erase Zebedee Quarrington");
    expect(asked.stdout).toContain("their 2 leave bookings");
    const erased = await runJson<{ erased: boolean; bookings: number; files_cleared: boolean }>([
      ...target.args,
      "erase",
      "--org",
      org,
      "--employee",
      "PD-1",
      "--yes",
    ]);
    expect(erased).toMatchObject({ erased: true, bookings: 2, files_cleared: true });
    expect(await target.found(TRACES.ada)).toEqual([]);
    // The server is still serving, and only the kept person is listed.
    expect(await names()).toEqual(["Kept"]);

    // The client's next sync is told of both people and their bookings.
    const since = encodeURIComponent(syncedAt);
    const { value: feed } = await pollUntil("the deletions feed listing both people and their three bookings", 20_000, async () => {
      const employees = await get<{ data: { id: string }[] }>(`/v1/deletions?resource=employees&updated_since=${since}`);
      const bookings = await get<{ data: { id: string }[] }>(`/v1/deletions?resource=leave-requests&updated_since=${since}`);
      return employees.data.length === 2 && bookings.data.length === 3 ? { employees: employees.data, bookings: bookings.data } : undefined;
    });
    expect(feed.employees).toHaveLength(2);

    // Imported again, a person is created afresh, without the bookings that went with them.
    const back = await cli("import", "--org", org, "--kind", "employees", jsonl([ADA]));
    expect(back.stdout).toContain("1 created");
    const leaveNow = await get<{ data: { employee_id: string }[] }>("/v1/leave-requests?from=2026-01-01&to=2026-12-31&limit=100");
    expect(leaveNow.data).toHaveLength(1);
    expect(await target.found(TRACES.bo)).toEqual([]);
  }, 120_000);
});
