/**
 * The benchmark of issue 7: `npm run bench` (6 to 10 minutes on a 2-core machine) writes
 * bench/RESULTS.md; `npm run bench -- --quick` (under a minute, small data) runs every
 * step so that the benchmark itself never rots, prints its report, and writes nothing
 * into the tree. Either exits 1 if any request got an unexpected answer.
 *
 *   bun bench/run.ts [--quick] [--skip-postgres] [--out FILE]
 *
 * Steps: generate the JSONL files (bench/generate.ts); import them with `leaveapi import`
 * into SQLite (timed, peak RSS); serve; walk the pages once for valid cursors; load the
 * references R0 (constant bytes) and R1 (hand-written bun:sqlite page) and leaveapi with
 * wrk on loopback; tokens over many credentials; p99 at half the top rate; 60 s of mixed
 * load and the server's RSS; per-request handler time for leave at 1M vs 10k bookings;
 * then the same employees and leave load on Postgres (LEAVEAPI_BENCH_PG_URL, default the
 * local test server).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDataset, postgresTarget, sqliteTarget, writeFiles, type Dataset, type DatabaseTarget, type DatasetSize } from "./harness/dataset.ts";
import { employeePaths, fetchToken, leavePaths, leaveWindows } from "./harness/crawl.ts";
import { timeHandler } from "./harness/in-process.ts";
import { deletionFeedTarget } from "./deletion-feed.ts";
import { createPostgresDatabase, postgresVersion } from "./harness/postgres.ts";
import { CLI, rssKib, startServer, type RunningServer } from "./harness/processes.ts";
import { renderReport, type NamedRun, type Target } from "./harness/report.ts";
import { runWrk, wrkAvailable, writeRequests, type WrkRequest, type WrkResult } from "./harness/wrk.ts";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    "skip-postgres": { type: "boolean", default: false },
    out: { type: "string" },
  },
});
const quick = values.quick!;
const ROOT = join(import.meta.dir, "..");

const SIZE: DatasetSize = quick
  ? { employees: 1_000, bookings: 20_000, smallEmployees: 100, smallBookings: 2_000, tokenClients: 100 }
  : { employees: 10_000, bookings: 1_000_000, smallEmployees: 100, smallBookings: 10_000, tokenClients: 1_000 };
const SECONDS = quick ? 1 : 10;
const MIXED_SECONDS = quick ? 2 : 60;
const CONNECTIONS = 32;
const WINDOWS = quick ? 3 : 12;
const EMPLOYEE_POSITIONS = quick ? 100 : 1_000;
const HANDLER_REQUESTS = quick ? 200 : 3_000;
/** Each token client asks this many times in the run: under the 10-per-minute limit. */
const TOKENS_PER_CLIENT = 9;
/** A fixed-rate run's per-connection pause: connections = rate × this / 1000. */
const FIXED_RATE_DELAY_MS = 10;
const FIRST_BOOKING_DAY = "2022-01-01";
const LAST_BOOKING_DAY = "2026-12-31";

if (!wrkAvailable()) {
  console.error("bench: wrk is not installed; on Debian or Ubuntu: sudo apt-get install wrk");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "leaveapi-bench-"));
const runs: NamedRun[] = [];
const log = (text: string) => console.error(`bench: ${text}`);
const bearer = (token: string) => `Bearer ${token}`;
const get = (paths: string[], token: string): WrkRequest[] => paths.map((path) => ({ path, authorization: bearer(token) }));

async function load(
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
function halfRate(name: string, url: string, requests: WrkRequest[], maxRps: number) {
  const connections = Math.max(1, Math.round(((maxRps / 2) * FIXED_RATE_DELAY_MS) / 1000));
  return load(name, url, requests, { connections, delayMs: FIXED_RATE_DELAY_MS });
}

async function serveLeaveapi(target: DatabaseTarget): Promise<RunningServer> {
  // Request logs off (LOG_LEVEL=warn): the figures are the API's, not the terminal's.
  return startServer([...CLI, ...target.args, "serve", "--port", "0"], { LOG_LEVEL: "warn" });
}

interface LoadSets {
  employees: WrkRequest[];
  leaveBig: WrkRequest[];
  leaveSmall: WrkRequest[];
  tokens: { big: string; small: string };
  firstEmployees: string[];
}

async function loadSets(server: RunningServer, data: Dataset): Promise<LoadSets> {
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

async function referenceRuns(dbFile: string, data: Dataset, pageBytes: Uint8Array): Promise<{ r0: WrkResult; r1: WrkResult }> {
  const pageFile = join(work, "page.json");
  writeFileSync(pageFile, pageBytes);
  const r0Server = await startServer([process.execPath, join(ROOT, "bench/reference/constant-page.ts"), pageFile]);
  const r0 = await load("R0: Bun.serve, constant page bytes", r0Server.url, [{ path: "/v1/employees?limit=100" }]).finally(() => r0Server.stop());

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
  const r1Server = await startServer([process.execPath, join(ROOT, "bench/reference/sqlite-page.ts"), dbFile, data.big.id]);
  const r1 = await load("R1: bun:sqlite + JSON.stringify, employees page", r1Server.url, r1Paths).finally(() => r1Server.stop());
  return { r0, r1 };
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const fixed = (n: number, digits = 2) => n.toFixed(digits);

try {
  log(`${quick ? "quick" : "full"} run in ${work}`);
  const files = await writeFiles(join(work, "data"), SIZE);

  // SQLite: import, serve, load.
  const dbFile = join(work, "bench.sqlite");
  const sqlite = sqliteTarget(dbFile);
  const data = await buildDataset(sqlite, files, SIZE);
  const importRate = data.leaveImport.rows / data.leaveImport.seconds;
  log(
    `imported ${data.leaveImport.rows} bookings in ${fixed(data.leaveImport.seconds, 1)} s (${Math.round(importRate)} rows/s, peak RSS ${Math.round(data.leaveImport.maxRssKib / 1024)} MiB)`,
  );

  let server = await serveLeaveapi(sqlite);
  const sets = await loadSets(server, data);
  const pageBytes = new Uint8Array(
    await (await fetch(`${server.url}/v1/employees?limit=100`, { headers: { Authorization: bearer(sets.tokens.big) } })).arrayBuffer(),
  );
  await server.stop();
  const { r0, r1 } = await referenceRuns(dbFile, data, pageBytes);

  server = await serveLeaveapi(sqlite);
  const rssIdleKib = rssKib(server.pid);
  const employees = await load("leaveapi: employees, limit 100, random cursors", server.url, sets.employees);
  const leave = await load(`leaveapi: leave, 31-day windows, first and deep pages, ${SIZE.bookings} bookings`, server.url, sets.leaveBig);
  // Its rate is reported in the table of every load; target 3 compares server times (below).
  await load(`leaveapi: leave, same windows, ${SIZE.smallBookings} bookings`, server.url, sets.leaveSmall);
  const tokenRequests: WrkRequest[] = [];
  for (let round = 0; round < TOKENS_PER_CLIENT; round++) {
    for (const c of data.tokenClients) {
      tokenRequests.push({
        method: "POST",
        path: "/v1/oauth/token",
        authorization: `Basic ${btoa(`${c.id}:${c.secret}`)}`,
        body: "grant_type=client_credentials",
      });
    }
  }
  const tokens = await load(`leaveapi: tokens over ${data.tokenClients.length} credentials`, server.url, tokenRequests, {
    order: "sequential",
    quota: tokenRequests.length,
    seconds: Math.max(SECONDS, quick ? 2 : 10),
  });
  const employeesHalf = await halfRate("leaveapi: employees at half the top rate", server.url, sets.employees, employees.rps);
  const leaveHalf = await halfRate("leaveapi: leave at half the top rate", server.url, sets.leaveBig, leave.rps);
  const mixed = [
    ...sets.employees,
    ...sets.leaveBig,
    ...get(
      sets.firstEmployees.map((id) => `/v1/employees/${id}`),
      sets.tokens.big,
    ),
    ...get(
      leaveWindows(50, FIRST_BOOKING_DAY, LAST_BOOKING_DAY, 5).map((w) => `/v1/holidays?from=${w.from}&to=${w.to}`),
      sets.tokens.big,
    ),
  ];
  await load(`leaveapi: mixed (employees, leave, one employee, holidays) for ${MIXED_SECONDS} s`, server.url, mixed, { seconds: MIXED_SECONDS });
  const rssAfterKib = rssKib(server.pid);
  await server.stop();

  // Per-request server time for the leave page at both sizes, the handler alone.
  const store = sqlite.open();
  const strip = (requests: WrkRequest[]) => requests.map((r) => r.path);
  const handlerBig = await timeHandler(store, sets.tokens.big, strip(sets.leaveBig), HANDLER_REQUESTS);
  const handlerSmall = await timeHandler(store, sets.tokens.small, strip(sets.leaveSmall), HANDLER_REQUESTS);
  const handlerEmployees = await timeHandler(store, sets.tokens.big, strip(sets.employees), HANDLER_REQUESTS);
  await store.close();

  // Postgres: the same data, the same employees and leave load.
  let pgFigures: { employees: WrkResult; leave: WrkResult; importSeconds: number } | null = null;
  let pgVersion = "not run";
  if (!values["skip-postgres"]) {
    pgVersion = await postgresVersion();
    const database = await createPostgresDatabase();
    try {
      const target = postgresTarget(database.url);
      const pgData = await buildDataset(target, files, { ...SIZE, tokenClients: 0 });
      log(`Postgres: imported ${pgData.leaveImport.rows} bookings in ${fixed(pgData.leaveImport.seconds, 1)} s`);
      const pgServer = await serveLeaveapi(target);
      try {
        const pgSets = await loadSets(pgServer, pgData);
        pgFigures = {
          employees: await load("leaveapi on Postgres: employees, limit 100, random cursors", pgServer.url, pgSets.employees),
          leave: await load(`leaveapi on Postgres: leave, 31-day windows, ${SIZE.bookings} bookings`, pgServer.url, pgSets.leaveBig),
          importSeconds: pgData.leaveImport.seconds,
        };
      } finally {
        await pgServer.stop();
      }
    } finally {
      await database.drop();
    }
  }

  const targets: Target[] = [
    {
      id: "1",
      measure: "`GET /v1/employees?limit=100`, random cursors",
      target: "≥ 0.80 × R1",
      measured: `${employees.rps} req/s = ${fixed(ratio(employees.rps, r1.rps))} × R1 (${r1.rps}); ${fixed(ratio(employees.rps, r0.rps))} × R0 (${r0.rps})`,
      met: ratio(employees.rps, r1.rps) >= 0.8,
    },
    {
      id: "2",
      measure: `\`GET /v1/leave-requests\`, 31-day windows, limit 100, first and deep pages, ${SIZE.bookings} bookings`,
      target: "≥ 0.50 × figure 1",
      measured: `${leave.rps} req/s = ${fixed(ratio(leave.rps, employees.rps))} × figure 1`,
      met: ratio(leave.rps, employees.rps) >= 0.5,
    },
    {
      id: "3",
      measure: `leave page, server time per request, ${SIZE.bookings} vs ${SIZE.smallBookings} bookings`,
      target: "≤ 2×",
      measured: `${handlerBig.mean_us} µs vs ${handlerSmall.mean_us} µs = ${fixed(ratio(handlerBig.mean_us, handlerSmall.mean_us))}×`,
      met: ratio(handlerBig.mean_us, handlerSmall.mean_us) <= 2,
    },
    {
      id: "4",
      measure: "p99 at half the top rate: employees, leave",
      target: "≤ 10 ms",
      measured: `${fixed(employeesHalf.p99_ms)} ms at ${employeesHalf.rps} req/s; ${fixed(leaveHalf.p99_ms)} ms at ${leaveHalf.rps} req/s`,
      met: employeesHalf.p99_ms <= 10 && leaveHalf.p99_ms <= 10,
    },
    {
      id: "5",
      measure: `\`POST /v1/oauth/token\` across ${data.tokenClients.length} credentials (no limit hit)`,
      target: "≥ 5,000 tokens/s",
      measured: `${tokens.rps} tokens/s (${tokens.requests} requests, ${tokens.non_2xx} not 200)`,
      met: tokens.rps >= 5000 && tokens.non_2xx === 0,
    },
    {
      id: "6",
      measure: `import of the ${SIZE.bookings}-booking JSONL file`,
      target: "≥ 50,000 rows/s, peak RSS ≤ 250 MB",
      measured: `${Math.round(importRate)} rows/s (${fixed(data.leaveImport.seconds, 1)} s), peak RSS ${Math.round((data.leaveImport.maxRssKib * 1024) / 1e6)} MB`,
      met: importRate >= 50_000 && data.leaveImport.maxRssKib * 1024 <= 250e6,
    },
    {
      id: "7",
      measure: `server RSS after ${MIXED_SECONDS} s of mixed load, ${SIZE.bookings} bookings`,
      target: "≤ 150 MB",
      measured: `${Math.round((rssAfterKib * 1024) / 1e6)} MB (idle after start: ${Math.round((rssIdleKib * 1024) / 1e6)} MB)`,
      met: rssAfterKib * 1024 <= 150e6,
    },
    pgFigures
      ? {
          id: "8",
          measure: "the same employees and leave load on Postgres",
          target: "≥ 0.40 × SQLite",
          measured: `employees ${pgFigures.employees.rps} req/s = ${fixed(ratio(pgFigures.employees.rps, employees.rps))} × SQLite; leave ${pgFigures.leave.rps} req/s = ${fixed(ratio(pgFigures.leave.rps, leave.rps))} × SQLite`,
          met: ratio(pgFigures.employees.rps, employees.rps) >= 0.4 && ratio(pgFigures.leave.rps, leave.rps) >= 0.4,
        }
      : { id: "8", measure: "the same employees and leave load on Postgres", target: "≥ 0.40 × SQLite", measured: "not run (--skip-postgres)", met: null },
  ];
  // Issue 17: the deletions feed's page cost stays flat with the number of tombstones.
  const deletionSizes = quick ? { small: 1_000, large: 10_000, requests: 300 } : { small: 1_000, large: 100_000, requests: HANDLER_REQUESTS };
  targets.push(await deletionFeedTarget({ ...deletionSizes, dir: work, log }));
  const sqliteVersion = String((new Database(":memory:").query("select sqlite_version() as v").get() as { v: string }).v);
  const wrkVersion = (await new Response(Bun.spawn(["wrk", "-v"], { stdout: "pipe", stderr: "pipe" }).stdout).text()).split("\n")[0]!.trim();
  const pkg = (await Bun.file(join(ROOT, "package.json")).json()) as { version: string };
  const report = renderReport({
    title: quick ? "leaveapi benchmark (quick mode: small data, figures not meaningful)" : "leaveapi benchmark results",
    command: quick ? "npm run bench -- --quick" : "npm run bench",
    versions: { leaveapi: pkg.version, Bun: Bun.version, SQLite: sqliteVersion, PostgreSQL: pgVersion, wrk: wrkVersion },
    setup: [
      `Data: ${SIZE.employees} employees on 5 calendars and ${SIZE.bookings} annual-leave bookings over 2022-2026 (bench/generate.ts, imported with \`leaveapi import\`); a second organisation with ${SIZE.smallEmployees} employees and ${SIZE.smallBookings} bookings`,
      `Load: wrk, 1 thread, ${CONNECTIONS} connections, ${SECONDS} s a run, on loopback, sharing the machine with the server; fixed-rate runs pause ${FIXED_RATE_DELAY_MS} ms per connection between requests`,
      `Server: \`leaveapi serve\`, one process, request logs off (LOG_LEVEL=warn), metrics on (the default)`,
      `Random valid cursors: ${sets.employees.length} employees positions, ${sets.leaveBig.length} leave pages over ${WINDOWS} 31-day windows (every page of each)`,
    ],
    targets,
    runs,
    other: [
      ["handler time per request (no HTTP), employees page", `mean ${handlerEmployees.mean_us} µs, p99 ${handlerEmployees.p99_us} µs`],
      [
        "handler time per request (no HTTP), leave page, large organisation",
        `mean ${handlerBig.mean_us} µs, p50 ${handlerBig.p50_us} µs, p99 ${handlerBig.p99_us} µs`,
      ],
      [
        "handler time per request (no HTTP), leave page, small organisation",
        `mean ${handlerSmall.mean_us} µs, p50 ${handlerSmall.p50_us} µs, p99 ${handlerSmall.p99_us} µs`,
      ],
      [
        "Postgres import of the same leave file",
        pgFigures ? `${fixed(pgFigures.importSeconds, 1)} s (${Math.round(SIZE.bookings / pgFigures.importSeconds)} rows/s)` : "not run",
      ],
    ],
  });

  const out = values.out ?? (quick ? undefined : join(ROOT, "bench/RESULTS.md"));
  if (out) writeFileSync(out, report);
  console.log(report);
  const broken = runs.filter((r) => r.result.non_2xx > 0 || r.result.socket_errors > 0);
  if (broken.length > 0) {
    log(`unexpected answers in: ${broken.map((r) => r.name).join("; ")}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
