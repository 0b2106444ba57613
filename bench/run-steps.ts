/**
 * The steps bench/run.ts is made of: loading a server with wrk (alone, or interleaved with
 * other contenders round by round), starting leaveapi and the reference servers, the
 * request sets, the first holiday requests, and the arithmetic of the report.
 */
import { Database } from "bun:sqlite";
import { minimalCursor, writeMinimalDatabase, type EmployeeRow } from "./reference/sqlite-page-min.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Dataset, DatabaseTarget } from "./harness/dataset.ts";
import { employeePaths, fetchToken, leavePaths, leaveWindows } from "./harness/crawl.ts";
import { CLI, startServer, type RunningServer } from "./harness/processes.ts";
import { runWrk, writeRequests, type WrkRequest, type WrkResult } from "./harness/wrk.ts";
import {
  quick,
  ROOT,
  SECONDS,
  ROUNDS,
  ROUND_SECONDS,
  HOLIDAY_YEARS,
  CONNECTIONS,
  WINDOWS,
  EMPLOYEE_POSITIONS,
  FIXED_RATE_DELAY_MS,
  FIRST_BOOKING_DAY,
  LAST_BOOKING_DAY,
  work,
  runs,
  log,
  bearer,
  get,
} from "./run-settings.ts";

export async function load(
  name: string,
  url: string,
  requests: WrkRequest[],
  options: { seconds?: number; connections?: number; order?: "random" | "sequential"; quota?: number; delayMs?: number } = {},
): Promise<WrkResult> {
  const file = writeRequests(join(work, `${name.replace(/\W+/g, "-")}.tsv`), requests);
  const connections = options.connections ?? CONNECTIONS;
  const result = await runWrk({
    url,
    requestsFile: file,
    seconds: options.seconds ?? SECONDS,
    connections,
    order: options.order,
    quota: options.quota,
    delayMs: options.delayMs,
  });
  runs.push({ name, result, connections });
  log(
    `${name}: ${result.rps} req/s, p99 ${result.p99_ms.toFixed(2)} ms${result.non_2xx + result.socket_errors > 0 ? `, ${result.non_2xx} non-2xx, ${result.socket_errors} socket errors` : ""}`,
  );
  return result;
}

/** p99 at half of `maxRps`, on fewer connections that each pause between requests. */
export function halfRate(name: string, url: string, requests: WrkRequest[], maxRps: number) {
  const connections = Math.max(1, Math.round(((maxRps / 2) * FIXED_RATE_DELAY_MS) / 1000));
  return load(name, url, requests, { connections, delayMs: FIXED_RATE_DELAY_MS });
}

/**
 * `leaveapi serve` as deployed: request logs on (the default), written to a file, as to
 * journald or a log file. `quiet` turns them off, for the servers that only walk cursors.
 */
export async function serveLeaveapi(target: DatabaseTarget, quiet = false): Promise<RunningServer> {
  // The load comes from one client: the per-client budget (100 a second by default) would measure itself.
  const command = [...CLI, ...target.args, "serve", "--port", "0", "--read-rate-limit", "0"];
  if (quiet) return startServer(command, { LOG_LEVEL: "warn" });
  return startServer(command, { LOG_LEVEL: "info", LOG_FORMAT: "json" }, join(work, `requests-${target.kind}-${Date.now()}.log`));
}

export interface Contender {
  name: string;
  url: string;
  requests: WrkRequest[];
}

/** Each contender in turn for ROUND_SECONDS, ROUNDS times over; every run is in the report. */
export async function interleave(contenders: Contender[]): Promise<WrkResult[][]> {
  const results: WrkResult[][] = contenders.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, c] of contenders.entries()) {
      results[i]!.push(await load(`${c.name} (round ${round})`, c.url, c.requests, { seconds: ROUND_SECONDS }));
    }
  }
  return results;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

/** The ratio of two contenders' rates in each round, as median and spread. */
export const pairedRatio = (a: WrkResult[], b: WrkResult[]): Spread => spreadOf(a.map((r, i) => ratio(r.rps, b[i]!.rps)));
export const medianRps = (runs: WrkResult[]) => Math.round(spreadOf(runs.map((r) => r.rps)).median);
export const showSpread = (s: Spread) => `${fixed(s.median)} (${fixed(s.min)}–${fixed(s.max)})`;

export interface LoadSets {
  employees: WrkRequest[];
  leaveBig: WrkRequest[];
  leaveSmall: WrkRequest[];
  tokens: { big: string; small: string };
  firstEmployees: string[];
}

export async function loadSets(server: RunningServer, data: Dataset): Promise<LoadSets> {
  const big = await fetchToken(server.url, data.big.data);
  const small = await fetchToken(server.url, data.small.data);
  const windows = leaveWindows(WINDOWS, FIRST_BOOKING_DAY, LAST_BOOKING_DAY);
  const firstPage = (await (await fetch(`${server.url}/v1/employees?limit=100`, { headers: { Authorization: bearer(big) } })).json()) as {
    data: { id: string }[];
  };
  return {
    employees: get(await employeePaths(server.url, big, EMPLOYEE_POSITIONS), big),
    leaveBig: get(await leavePaths(server.url, big, windows, 10_000), big),
    leaveSmall: get(await leavePaths(server.url, small, windows, 10_000), small),
    tokens: { big, small },
    firstEmployees: firstPage.data.map((e) => e.id),
  };
}

export const R0_NAME = "R0: Bun.serve, constant page bytes";

/** R0, listening: Bun.serve answering every request with `pageBytes`. */
export async function startConstantPage(pageBytes: Uint8Array): Promise<RunningServer> {
  const pageFile = join(work, "page.json");
  writeFileSync(pageFile, pageBytes);
  return startServer([process.execPath, join(ROOT, "bench/reference/constant-page.ts"), pageFile]);
}

export async function constantPageRun(pageBytes: Uint8Array): Promise<WrkResult> {
  const r0Server = await startConstantPage(pageBytes);
  return load(R0_NAME, r0Server.url, [{ path: "/v1/employees?limit=100" }]).finally(() => r0Server.stop());
}

export interface References {
  r1: RunningServer;
  r1Paths: WrkRequest[];
  r1min: RunningServer;
  r1minPaths: WrkRequest[];
}

/** Starts R1 (leaveapi's table) and R1-min (its own, of every employee leaveapi served) with the positions to load them at. */
export async function startReferences(dbFile: string, data: Dataset, employees: EmployeeJson[]): Promise<References> {
  // R1's positions are read from the database: every tenth employee in page order.
  const db = new Database(dbFile, { readonly: true });
  const positions = db
    .query("select updated_at, id from employees where organisation_id = ? and deleted_at is null order by updated_at, id")
    .all(data.big.id) as { updated_at: number; id: string }[];
  db.close();
  const r1Paths = [
    { path: "/employees?limit=100" },
    ...positions.filter((_, i) => i % 10 === 0).map((p) => ({ path: `/employees?limit=100&after=${p.updated_at}.${p.id}` })),
  ];
  const minFile = join(work, "r1-min.sqlite");
  writeMinimalDatabase(minFile, employees);
  const ordered = [...employees].sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id < b.id ? -1 : 1));
  const r1minPaths = [
    { path: "/v1/employees?limit=100" },
    ...ordered.filter((_, i) => i % 10 === 0).map((e) => ({ path: `/v1/employees?limit=100&cursor=${minimalCursor(e.updated_at, e.id)}` })),
  ];
  const r1 = await startServer([process.execPath, join(ROOT, "bench/reference/sqlite-page.ts"), dbFile, data.big.id]);
  const r1min = await startServer([process.execPath, join(ROOT, "bench/reference/sqlite-page-min.ts"), minFile]);
  return { r1, r1Paths, r1min, r1minPaths };
}

export type EmployeeJson = EmployeeRow & { id: string; updated_at: string };

/** Every employee of the organisation, as the API answers them. */
export async function allEmployees(url: string, token: string): Promise<EmployeeJson[]> {
  const out: EmployeeJson[] = [];
  let cursor: string | null = null;
  do {
    const res = await fetch(`${url}/v1/employees?limit=500${cursor ? `&cursor=${cursor}` : ""}`, { headers: { Authorization: bearer(token) } });
    const page = (await res.json()) as { data: EmployeeJson[]; next_cursor: string | null };
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** Average bytes of a body on the wire, plain and as asked with Accept-Encoding. */
export async function bodyBytes(url: string, requests: WrkRequest[], acceptEncoding: string): Promise<{ plain: number; coded: number }> {
  let plain = 0;
  let coded = 0;
  const sample = requests.slice(0, 50);
  for (const r of sample) {
    const headers = { Authorization: r.authorization ?? "" };
    const fetchInit = (encoding: string) => ({ headers: { ...headers, "Accept-Encoding": encoding }, decompress: false }) as RequestInit;
    plain += (await (await fetch(url + r.path, fetchInit("identity"))).arrayBuffer()).byteLength;
    coded += (await (await fetch(url + r.path, fetchInit(acceptEncoding))).arrayBuffer()).byteLength;
  }
  return { plain: plain / sample.length, coded: coded / sample.length };
}

/**
 * The first request of each calendar-year on a fresh server: `/v1/holidays` for one whole
 * year (every calendar the organisation observes), each year once, one after another.
 * The server warms last year, this year and next at start; the rest are computed as asked.
 * This year goes first and is reported apart: it is also the process's first holiday
 * request, which pays once for the route's first run.
 */
export async function firstHolidayRequests(
  target: DatabaseTarget,
  token: (url: string) => Promise<string>,
): Promise<{ processFirst: number; warmed: number[]; cold: number[] }> {
  const server = await serveLeaveapi(target);
  try {
    const bearerToken = await token(server.url);
    await Bun.sleep(quick ? 1000 : 3000);
    const thisYear = new Date().getUTCFullYear();
    const warmYears = [thisYear - 1, thisYear, thisYear + 1];
    const coldYears = Array.from({ length: HOLIDAY_YEARS }, (_, i) => 2013 + i).filter((y) => !warmYears.includes(y));
    const timed = async (year: number) => {
      const started = performance.now();
      const res = await fetch(`${server.url}/v1/holidays?from=${year}-01-01&to=${year}-12-31`, { headers: { Authorization: bearer(bearerToken) } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`holidays ${year} answered ${res.status}`);
      return performance.now() - started;
    };
    const processFirst = await timed(thisYear);
    const warmed: number[] = [];
    for (const year of [thisYear - 1, thisYear + 1]) warmed.push(await timed(year));
    const cold: number[] = [];
    for (const year of coldYears) cold.push(await timed(year));
    return { processFirst, warmed, cold };
  } finally {
    await server.stop();
  }
}

export const percentile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

export const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
export const fixed = (n: number, digits = 2) => n.toFixed(digits);

/**
 * The sections of bench/RESULTS.md filled in by hand, from "Figures of the benchmarks run
 * on their own" (bench/import-mapped.ts, bench/xlsx-memory.ts, …, each figure with its
 * command and machine) to the end ("Figures behind design choices"): kept as they are
 * when this run writes the rest of the file.
 */
export function keptSection(file: string): string {
  const heading = "## Figures of the benchmarks run on their own";
  let previous: string;
  try {
    previous = readFileSync(file, "utf8");
  } catch {
    return "";
  }
  const at = previous.indexOf(heading);
  return at === -1 ? "" : `\n${previous.slice(at)}`;
}
