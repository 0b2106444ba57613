/**
 * Per-request server time of the employees and leave pages, in this process (no HTTP):
 * a quick way to see what a change to the read path buys, and to profile it
 * (`bun --cpu-prof bench/page-time.ts ...`).
 *
 *   bun bench/page-time.ts [--dir DIR] [--employees 10000] [--bookings 200000] [--requests 3000] [--only employees|leave]
 *
 * `--only employees|leave` times one of them. The dataset is generated and imported into DIR once (kept there for the next run).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDataset, sqliteTarget, writeFiles, type Dataset } from "./harness/dataset.ts";
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
  },
});
const dir = values.dir!;
const size = { employees: Number(values.employees), bookings: Number(values.bookings), smallEmployees: 100, smallBookings: 1000, tokenClients: 0 };
mkdirSync(dir, { recursive: true });
const dbFile = join(dir, "bench.sqlite");
const target = sqliteTarget(dbFile);
const datasetFile = join(dir, "dataset.json");
let data: Dataset;
if (existsSync(datasetFile)) data = (await Bun.file(datasetFile).json()) as Dataset;
else {
  data = await buildDataset(target, await writeFiles(join(dir, "data"), size), size);
  await Bun.write(datasetFile, JSON.stringify(data));
}

const server = await startServer([...CLI, ...target.args, "serve", "--port", "0"], { LOG_LEVEL: "warn" });
const token = await fetchToken(server.url, data.big.data);
const employees = await employeePaths(server.url, token, 1000);
const leave = await leavePaths(server.url, token, leaveWindows(12, "2022-01-01", "2026-12-31"), 10_000);
await server.stop();

const store = target.open();
const requests = Number(values.requests);
for (const [name, paths] of [
  ["employees", employees],
  ["leave", leave],
] as const) {
  if (values.only && values.only !== name) continue;
  const t = await timeHandler(store, token, paths, requests);
  console.log(`${name}: mean ${t.mean_us} µs, p50 ${t.p50_us} µs, p99 ${t.p99_us} µs (${paths.length} paths, ${requests} requests)`);
}
await store.close();
