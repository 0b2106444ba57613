#!/usr/bin/env bun
/**
 * Target 9 alone (bench/run.ts, `firstHolidayRequests`): the first `/v1/holidays` request
 * for each calendar-year, one whole year, every calendar the organisation observes (10,000
 * employees on five calendars), on a fresh `leaveapi serve` over SQLite. Each round starts
 * a new server; the years of each round are its cold ones (not the three warmed at start),
 * `--years` from `--first-year` (2013, as bench/run.ts).
 *
 *   bun bench/first-holidays.ts [--employees 10000] [--rounds 3] [--first-year 2013]
 *                               [--years 40] [--db FILE] [--root CHECKOUT ...]
 *
 * `--db` keeps the database (built on the first run) for later runs. `--root` runs the
 * `leaveapi` of another checkout, several times over to interleave them (each serves its
 * own copy of the database, since a newer one may add a migration): a before/after.
 * Target: p99 <= 10 ms.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fetchToken } from "./harness/crawl.ts";
import { buildDataset, sqliteTarget, writeFiles, type Credentials } from "./harness/dataset.ts";
import { startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    employees: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    years: { type: "string", default: "40" },
    "first-year": { type: "string", default: "2013" },
    db: { type: "string" },
    root: { type: "string", multiple: true },
  },
});
const EMPLOYEES = Number(values.employees);
const ROUNDS = Number(values.rounds);
const YEARS = Number(values.years);
const FIRST_YEAR = Number(values["first-year"]);
const roots = (values.root ?? [join(import.meta.dir, "..")]).map((r) => resolve(r));

const work = mkdtempSync(join(tmpdir(), "leaveapi-first-holidays-"));
const percentile = (ms: number[], q: number) => [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;

/** The database and the large organisation's credentials, built once (kept beside `--db` as JSON). */
async function dataset(): Promise<{ file: string; client: Credentials }> {
  const file = values.db ? resolve(values.db) : join(work, "holidays.sqlite");
  const credentialsFile = `${file}.credentials.json`;
  if (existsSync(file) && existsSync(credentialsFile)) return { file, client: await Bun.file(credentialsFile).json() };
  // Few bookings: the holidays route reads none.
  const size = { employees: EMPLOYEES, bookings: 10_000, smallEmployees: 100, smallBookings: 1_000, tokenClients: 0 };
  const data = await buildDataset(sqliteTarget(file), await writeFiles(join(work, "data"), size), size);
  await Bun.write(credentialsFile, JSON.stringify(data.big.data));
  return { file, client: data.big.data };
}

/** One fresh server of `root` on its own copy of `file`: every cold year once, in order. */
async function round(root: string, file: string, client: Credentials): Promise<number[]> {
  const copy = join(work, `round-${Date.now()}.sqlite`);
  copyFileSync(file, copy);
  const server = await startServer([
    process.execPath,
    join(root, "scripts/cli.ts"),
    "--db",
    copy,
    "serve",
    "--port",
    "0",
    "--log-level",
    "warn",
    "--read-rate-limit",
    "0",
  ]);
  try {
    const token = await fetchToken(server.url, client);
    // As bench/run.ts: the server warms last year, this year and next; let it finish.
    await Bun.sleep(3000);
    const thisYear = new Date().getUTCFullYear();
    const ask = async (year: number) => {
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/holidays?from=${year}-01-01&to=${year}-12-31`, { headers: { Authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { data: unknown[] };
      if (res.status !== 200 || body.data.length === 0) throw new Error(`holidays ${year} answered ${res.status} with ${body.data.length} entries`);
      return performance.now() - started;
    };
    // As bench/run.ts: this year first (the process's first holiday request, reported apart
    // there), then the other two warmed years; only the rest are measured here.
    for (const year of [thisYear, thisYear - 1, thisYear + 1]) await ask(year);
    const times: number[] = [];
    for (const year of Array.from({ length: YEARS }, (_, i) => FIRST_YEAR + i)) {
      if (Math.abs(year - thisYear) > 1) times.push(await ask(year));
    }
    return times;
  } finally {
    await server.stop();
    rmSync(copy, { force: true });
  }
}

try {
  const { file, client } = await dataset();
  const all = new Map<string, number[]>(roots.map((r) => [r, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    for (const root of roots) {
      const times = await round(root, file, client);
      all.get(root)!.push(...times);
      console.log(
        `${root} round ${r}: p50 ${percentile(times, 0.5).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`,
      );
    }
  }
  for (const [root, times] of all) {
    console.log(
      `${root}: n=${times.length} p50 ${percentile(times, 0.5).toFixed(2)} ms, p90 ${percentile(times, 0.9).toFixed(2)} ms, p99 ${percentile(times, 0.99).toFixed(2)} ms`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
