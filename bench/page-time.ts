/**
 * Per-request server time of the employees and leave pages, in this process (no HTTP):
 * a quick way to see what a change to the read path buys, and to profile it
 * (`bun --cpu-prof bench/page-time.ts ...`).
 *
 *   bun bench/page-time.ts [--dir DIR] [--employees 10000] [--bookings 200000] [--requests 3000] [--only employees|leave] [--postgres]
 *
 * `--only employees|leave` times one of them (`leave` also the first pages of 500 windows, alone); `--postgres` also loads the same files into a
 * fresh Postgres database (dropped afterwards) and times it alongside. The dataset is generated and imported into DIR once (kept there for the next run).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDataset, generatedFilesIn, postgresTarget, sqliteDatasetIn, type DatabaseTarget } from "./harness/dataset.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { employeePaths, fetchToken, leavePaths, leaveWindows } from "./harness/crawl.ts";
import { timeHandler } from "./harness/in-process.ts";
import { CLI, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: join(import.meta.dir, "..", ".bench-page-time") },
    employees: { type: "string", default: "10000" },
    bookings: { type: "string", default: "200000" },
    requests: { type: "string", default: "3000" },
    only: { type: "string" },
    postgres: { type: "boolean", default: false },
  },
});
const dir = values.dir!;
const size = { employees: Number(values.employees), bookings: Number(values.bookings), smallEmployees: 100, smallBookings: 1000, tokenClients: 0 };
mkdirSync(dir, { recursive: true });
const { target, data } = await sqliteDatasetIn(dir, size);

const server = await startServer([...CLI, ...target.args, "serve", "--port", "0", "--read-rate-limit", "0"], { LOG_LEVEL: "warn" });
const token = await fetchToken(server.url, data.big.data);
const employees = await employeePaths(server.url, token, 1000);
const leave = await leavePaths(server.url, token, leaveWindows(12, "2022-01-01", "2026-12-31"), 10_000);
await server.stop();
/** First pages only, of many windows: what a calendar asks most, and where a scan reads most in vain (adapters/sql/leave-page/leave-span-plan.ts). */
const firstLeave = leaveWindows(500, "2022-01-01", "2026-12-31", 5).map((w) => `/v1/leave-requests?from=${w.from}&to=${w.to}&limit=100`);

async function timePages(name: string, t: DatabaseTarget, token: string, sets: { employees: string[]; leave: string[]; "leave-first": string[] }) {
  const store = t.open();
  const requests = Number(values.requests);
  for (const [kind, paths] of Object.entries(sets)) {
    if (values.only && !kind.startsWith(values.only)) continue;
    const r = await timeHandler(store, token, paths, requests);
    console.log(`${name} ${kind}: mean ${r.mean_us} µs, p50 ${r.p50_us} µs, p99 ${r.p99_us} µs (${paths.length} paths, ${requests} requests)`);
  }
  await store.close();
}

await timePages("SQLite", target, token, { employees, leave, "leave-first": firstLeave });
if (values.postgres) {
  const database = await createPostgresDatabase();
  try {
    const pgTarget = postgresTarget(database.url);
    const files = generatedFilesIn(dir);
    const pgData = await buildDataset(pgTarget, files, size);
    const pgServer = await startServer([...CLI, ...pgTarget.args, "serve", "--port", "0", "--read-rate-limit", "0"], { LOG_LEVEL: "warn" });
    const pgToken = await fetchToken(pgServer.url, pgData.big.data);
    const pgEmployees = await employeePaths(pgServer.url, pgToken, 1000);
    const pgLeave = await leavePaths(pgServer.url, pgToken, leaveWindows(12, "2022-01-01", "2026-12-31"), 10_000);
    await pgServer.stop();
    await timePages("Postgres", pgTarget, pgToken, { employees: pgEmployees, leave: pgLeave, "leave-first": firstLeave });
    await timePages("SQLite", target, token, { employees, leave, "leave-first": firstLeave });
  } finally {
    await database.drop();
  }
}
