/**
 * A restricted credential's pages against an unrestricted one's, per request in this
 * process (no HTTP), on the same data (docs/api.md, "Restricted credentials"): the
 * employees page and leave pages over 31-day windows, each timed for the whole
 * organisation, one department (of eight), and two calendars (of five) with two fields.
 * The credentials' requests are interleaved one by one (the machine's load lands on all
 * alike). Prints each mean and p50 and their ratios to the unrestricted one, and the
 * median and range of the ratios of `--rounds` parts of the run.
 *
 *   bun bench/restricted-page-time.ts [--dir DIR] [--employees 10000] [--bookings 1000000] [--requests 1000] [--rounds 1] [--postgres]
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
import { createHandler } from "../server/handler.ts";
import type { Store } from "../lib/store.ts";
import { CLI, runCli, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: join(import.meta.dir, "..", ".bench-restricted") },
    employees: { type: "string", default: "10000" },
    bookings: { type: "string", default: "1000000" },
    requests: { type: "string", default: "1000" },
    rounds: { type: "string", default: "1" },
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
  ["two calendars", ["--calendars", "GB-ENG,DE-BY"]],
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
  try {
    for (const kind of ["employees", "leave"] as const) {
      const timed = await timeInterleaved(
        store,
        sets.map((set) => ({ token: set.token, paths: set[kind] })),
        Number(values.requests),
        Number(values.rounds),
      );
      const base = timed[0]!;
      sets.forEach((set, i) => {
        const t = timed[i]!;
        console.log(
          `${name} ${kind} ${set.label}: mean ${t.mean} µs, p50 ${t.p50} µs, p99 ${t.p99} µs, ` +
            `${(t.mean / base.mean).toFixed(2)}× unrestricted (p50 ${(t.p50 / base.p50).toFixed(2)}×; ` +
            `by round ${spread(t.roundMeans.map((m, r) => m / base.roundMeans[r]!))}) (${set[kind].length} paths)`,
        );
      });
    }
  } finally {
    await store.close();
  }
}

/** The median of ratios and their range. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}×, ${sorted[0]!.toFixed(2)}–${sorted[sorted.length - 1]!.toFixed(2)}×`;
}

/**
 * Each credential's requests timed in turn, one request of each after another, so that a
 * change in the machine's load (other processes) lands on all of them alike; `rounds`
 * splits the requests, and each round's means give the ratios' spread.
 */
async function timeInterleaved(store: Store, clients: { token: string; paths: string[] }[], requests: number, rounds: number) {
  const handler = createHandler({ store });
  const call = async (token: string, path: string) => {
    const res = await handler(new Request(`http://bench.local${path}`, { headers: { Authorization: `Bearer ${token}` } }), { remoteAddress: "127.0.0.1" });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  };
  for (let i = 0; i < Math.min(200, requests); i++) for (const c of clients) await call(c.token, c.paths[i % c.paths.length]!);
  const times = clients.map(() => [] as number[]);
  const perRound = Math.max(1, Math.floor(requests / rounds));
  const roundMeans = clients.map(() => [] as number[]);
  for (let i = 0; i < perRound * rounds; i++) {
    for (const [k, c] of clients.entries()) {
      const started = performance.now();
      await call(c.token, c.paths[(i * 7919) % c.paths.length]!);
      times[k]!.push((performance.now() - started) * 1000);
    }
    if ((i + 1) % perRound === 0) times.forEach((t, k) => roundMeans[k]!.push(t.slice(-perRound).reduce((a, b) => a + b, 0) / perRound));
  }
  return times.map((t, k) => {
    const sorted = [...t].sort((a, b) => a - b);
    return {
      mean: Math.round(t.reduce((a, b) => a + b, 0) / t.length),
      p50: Math.round(sorted[Math.floor(sorted.length / 2)]!),
      p99: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!),
      roundMeans: roundMeans[k]!,
    };
  });
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
