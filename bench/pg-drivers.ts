/**
 * The Postgres store on its two client libraries (adapters/postgres.ts: Bun.SQL, the
 * default under Bun, and pg), side by side on the same data, interleaved round by round so
 * that a noisy moment on a shared machine moves both alike; each figure is the median of
 * the rounds, with their spread (bench/RESULTS.md, "Figures behind design choices").
 *
 *   bun bench/pg-drivers.ts [--employees 10000] [--bookings 200000] [--rounds 3] [--requests 2000] [--skip-import]
 *
 * - the import: `leaveapi import` of the leave file into a fresh database, with
 *   LEAVEAPI_PG_DRIVER=pg and =bun in turn (bench/run.ts's row 6b, at this size);
 * - the pages: the handler in this process (no HTTP) on each driver's store, over the
 *   same database, and on SQLite for scale: the employees page (limit 100, random cursors)
 *   and the leave page (31-day windows, first and deep pages), wall time and this
 *   process's CPU per request, the client library's share of which is what differs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { PostgresDriver } from "../adapters/postgres.ts";
import { buildDataset, postgresTarget, sqliteTarget, writeFiles, type Dataset, type DatabaseTarget } from "./harness/dataset.ts";
import { employeePaths, fetchToken, leavePaths, leaveWindows } from "./harness/crawl.ts";
import { timeHandler, type HandlerTiming } from "./harness/in-process.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { CLI, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    employees: { type: "string", default: "10000" },
    bookings: { type: "string", default: "200000" },
    rounds: { type: "string", default: "3" },
    requests: { type: "string", default: "2000" },
    "skip-import": { type: "boolean", default: false },
  },
});
const size = { employees: Number(values.employees), bookings: Number(values.bookings), smallEmployees: 100, smallBookings: 1000, tokenClients: 0 };
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const DRIVERS: PostgresDriver[] = ["pg", "bun"];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[], digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** Builds the dataset with the commands on `driver`. */
async function build(target: DatabaseTarget, driver: PostgresDriver | null, files: Awaited<ReturnType<typeof writeFiles>>): Promise<Dataset> {
  if (driver === null) delete process.env.LEAVEAPI_PG_DRIVER;
  else process.env.LEAVEAPI_PG_DRIVER = driver;
  try {
    return await buildDataset(target, files, size);
  } finally {
    delete process.env.LEAVEAPI_PG_DRIVER;
  }
}

async function crawl(target: DatabaseTarget, data: Dataset) {
  const server = await startServer([...CLI, ...target.args, "serve", "--port", "0", "--read-rate-limit", "0"], { LOG_LEVEL: "warn" });
  try {
    const token = await fetchToken(server.url, data.big.data);
    return {
      token,
      employees: await employeePaths(server.url, token, 1000),
      leave: await leavePaths(server.url, token, leaveWindows(12, "2022-01-01", "2026-12-31"), 2000),
    };
  } finally {
    await server.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), "leaveapi-pg-drivers-"));
const databases: { drop: () => Promise<void> }[] = [];
try {
  const files = await writeFiles(join(dir, "data"), size);
  const imports: Record<PostgresDriver, number[]> = { pg: [], bun: [] };
  let kept: { url: string; data: Dataset } | undefined;
  for (let round = 1; round <= (values["skip-import"] ? 1 : ROUNDS); round++) {
    for (const driver of round % 2 === 1 ? DRIVERS : [...DRIVERS].reverse()) {
      const database = await createPostgresDatabase("leaveapi_bench_drivers");
      databases.push(database);
      const data = await build(postgresTarget(database.url), driver, files);
      imports[driver].push(size.bookings / data.leaveImport.seconds);
      console.log(`round ${round}: import of ${size.bookings} bookings on ${driver}: ${data.leaveImport.seconds.toFixed(1)} s`);
      if (kept === undefined) kept = { url: database.url, data };
      else await databases.pop()!.drop();
    }
  }
  const sqliteFile = join(dir, "bench.sqlite");
  const sqlite = sqliteTarget(sqliteFile);
  const sqliteData = await build(sqlite, null, files);
  const pgPaths = await crawl(postgresTarget(kept!.url), kept!.data);
  const sqlitePaths = await crawl(sqlite, sqliteData);

  type Side = "sqlite" | PostgresDriver;
  const timings: Record<Side, { employees: HandlerTiming[]; leave: HandlerTiming[] }> = {
    sqlite: { employees: [], leave: [] },
    pg: { employees: [], leave: [] },
    bun: { employees: [], leave: [] },
  };
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round in the other order, so that neither driver always follows the same one.
    const drivers = round % 2 === 1 ? DRIVERS : [...DRIVERS].reverse();
    for (const side of ["sqlite", ...drivers] as Side[]) {
      const store = side === "sqlite" ? sqlite.open() : postgresTarget(kept!.url, side).open();
      const paths = side === "sqlite" ? sqlitePaths : pgPaths;
      try {
        for (const kind of ["employees", "leave"] as const) {
          const t = await timeHandler(store, paths.token, paths[kind], REQUESTS);
          timings[side][kind].push(t);
          console.log(`round ${round}: ${side} ${kind}: mean ${t.mean_us} µs, p99 ${t.p99_us} µs, CPU ${t.cpu_us} µs a request`);
        }
      } finally {
        await store.close();
      }
    }
  }

  console.log(`\nMedians of ${ROUNDS} interleaved rounds (min–max); ${size.bookings} bookings, ${size.employees} employees:`);
  if (!values["skip-import"]) for (const d of DRIVERS) console.log(`import on ${d}: ${spread(imports[d])} rows/s`);
  for (const kind of ["employees", "leave"] as const) {
    for (const side of ["sqlite", ...DRIVERS] as Side[]) {
      const ts = timings[side][kind];
      console.log(
        `${kind} on ${side}: ${spread(ts.map((t) => t.mean_us))} µs a request, CPU ${spread(ts.map((t) => t.cpu_us))} µs, p99 ${spread(ts.map((t) => t.p99_us))} µs`,
      );
    }
  }
} finally {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
