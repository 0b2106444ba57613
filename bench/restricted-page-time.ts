/**
 * A restricted credential's pages against an unrestricted one's, per request in this
 * process (no HTTP), on the same data (docs/api.md, "Restricted credentials"): the
 * employees page and leave pages over 31-day windows, each timed for the whole
 * organisation, one department (of eight), and two calendars (of five) with two fields.
 * Prints each mean and its ratio to the unrestricted one.
 *
 *   bun bench/restricted-page-time.ts [--dir DIR] [--employees 10000] [--bookings 1000000] [--requests 1000] [--postgres]
 *
 * The dataset is generated and imported into DIR once (kept for the next run, as
 * bench/page-time.ts does); `--postgres` loads the same files into a fresh Postgres
 * database (dropped afterwards) and times it too.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDataset, generatedFilesIn, postgresTarget, sqliteDatasetIn, type Credentials, type DatabaseTarget, type Dataset } from "./harness/dataset.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { employeePaths, fetchToken, leavePaths, leaveWindows } from "./harness/crawl.ts";
import { timeHandler } from "./harness/in-process.ts";
import { CLI, runCli, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: join(import.meta.dir, "..", ".bench-restricted") },
    employees: { type: "string", default: "10000" },
    bookings: { type: "string", default: "1000000" },
    requests: { type: "string", default: "1000" },
    postgres: { type: "boolean", default: false },
  },
});
const dir = values.dir!;
const size = { employees: Number(values.employees), bookings: Number(values.bookings), smallEmployees: 100, smallBookings: 1000, tokenClients: 0 };
mkdirSync(dir, { recursive: true });

/** The credentials timed, by the flags that restrict them. */
const RESTRICTIONS: [string, string[]][] = [
  ["unrestricted", []],
  ["one department", ["--departments", "Sales"]],
  ["two calendars, two fields", ["--calendars", "GB-ENG,DE-BY", "--fields", "first_name,last_name"]],
];

async function credentialsFor(target: DatabaseTarget, orgId: string, flags: string[]): Promise<Credentials> {
  const made = await runCli([...target.args, "credentials", "create", "--org", orgId, "--json", ...flags]);
  const json = JSON.parse(made.stdout) as { client_id: string; client_secret: string };
  return { id: json.client_id, secret: json.client_secret };
}

async function timeTarget(name: string, target: DatabaseTarget, data: Dataset): Promise<void> {
  const server = await startServer([...CLI, ...target.args, "serve", "--port", "0", "--read-rate-limit", "0"], { LOG_LEVEL: "warn" });
  const sets: { label: string; token: string; employees: string[]; leave: string[] }[] = [];
  try {
    for (const [label, flags] of RESTRICTIONS) {
      const token = await fetchToken(server.url, await credentialsFor(target, data.big.id, flags));
      // Each credential's own cursors: a cursor is bound to its restriction.
      const employees = await employeePaths(server.url, token, 300);
      const leave = await leavePaths(server.url, token, leaveWindows(12, "2022-01-01", "2026-12-31"), 30);
      sets.push({ label, token, employees, leave });
    }
  } finally {
    await server.stop();
  }
  const store = target.open();
  const requests = Number(values.requests);
  try {
    const base: Record<string, number> = {};
    for (const set of sets) {
      for (const kind of ["employees", "leave"] as const) {
        const r = await timeHandler(store, set.token, set[kind], requests);
        base[kind] ??= r.mean_us;
        const ratio = (r.mean_us / base[kind]!).toFixed(2);
        console.log(
          `${name} ${kind} ${set.label}: mean ${r.mean_us} µs, p50 ${r.p50_us} µs, p99 ${r.p99_us} µs, ${ratio}× unrestricted (${set[kind].length} paths)`,
        );
      }
    }
  } finally {
    await store.close();
  }
}

const { target, data } = await sqliteDatasetIn(dir, size);
await timeTarget("SQLite", target, data);
if (values.postgres) {
  const database = await createPostgresDatabase();
  try {
    const pgTarget = postgresTarget(database.url);
    const files = generatedFilesIn(dir);
    await timeTarget("Postgres", pgTarget, await buildDataset(pgTarget, files, size));
  } finally {
    await database.drop();
  }
}
