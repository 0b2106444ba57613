/**
 * Token requests per second without HTTP: `POST /v1/oauth/token` (client credentials,
 * Basic auth) through createHandler on a SQLite file (or Postgres), over 1,000 clients
 * with 32 requests in flight, each client asked at most 9 times per fake minute so the
 * 10-per-minute limit is never hit (target 5 of npm run bench, without the socket).
 *
 *   bun bench/token-throughput.ts [--seconds 5] [--clients 1000] [--store sqlite|postgres|memory] [--root DIR]
 *
 * `--root` runs another checkout's code (e.g. an export of the previous commit) with this
 * same driver, so that two versions can be measured alternately on a shared machine.
 * Prints one JSON line: tokens per second and per-request latency percentiles.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type BenchAdminStore, createTokenClients } from "./harness/token-clients.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    clients: { type: "string", default: "1000" },
    connections: { type: "string", default: "32" },
    store: { type: "string", default: "sqlite" },
    root: { type: "string", default: join(import.meta.dir, "..") },
  },
});
const root = resolve(values.root!);
const seconds = Number(values.seconds);
const clientCount = Number(values.clients);
const connections = Number(values.connections);
const PER_CLIENT_PER_MINUTE = 9;

const { createHandler } = await import(join(root, "server/handler.ts"));

async function openStore(): Promise<{ store: BenchAdminStore; dispose: () => Promise<void> }> {
  if (values.store === "postgres") {
    const { createPostgresDatabase } = await import("./harness/postgres.ts");
    const { openPostgresStore } = await import(join(root, "entry/postgres.ts"));
    const database = await createPostgresDatabase("leaveapi_bench_tokens");
    const store = openPostgresStore({ connectionString: database.url }) as BenchAdminStore;
    return { store, dispose: () => store.close().then(database.drop) };
  }
  if (values.store === "memory") {
    // The handler's own share: no database at all.
    const { createMemoryStore } = await import(join(root, "entry/memory.ts"));
    const store = createMemoryStore() as BenchAdminStore;
    return { store, dispose: () => store.close() };
  }
  const { openSqliteStore } = await import(join(root, "entry/sqlite.ts"));
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-tokens-"));
  const store = openSqliteStore({ filename: join(dir, "tokens.sqlite") }) as BenchAdminStore;
  return { store, dispose: () => store.close().then(() => rmSync(dir, { recursive: true })) };
}

const { store, dispose } = await openStore();
const authorizations = await createTokenClients(root, store, clientCount);

// A fake clock that moves a minute on after each client has asked its 9 times.
const startedAt = Date.now();
let clock = startedAt;
const handler = createHandler({ store, now: () => clock });
let issued = 0;
let refused = 0;
const latencies: number[] = [];

async function ask(sequence: number): Promise<void> {
  clock = startedAt + Math.floor(sequence / (clientCount * PER_CLIENT_PER_MINUTE)) * 61_000;
  const request = new Request("http://bench.local/v1/oauth/token", {
    method: "POST",
    headers: { Authorization: authorizations[sequence % clientCount]!, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const started = performance.now();
  const response: Response = await handler(request, { remoteAddress: "127.0.0.1" });
  await response.arrayBuffer();
  latencies.push(performance.now() - started);
  if (response.status === 200) issued++;
  else refused++;
}

/** The next request's number, across the warm-up and the measured run: the fake clock follows it. */
let next = 0;

async function drive(untilMs: number): Promise<void> {
  const connection = async () => {
    while (performance.now() < untilMs) await ask(next++);
  };
  await Promise.all(Array.from({ length: connections }, connection));
}

// Warm-up: the statements compiled, the JIT settled.
await drive(performance.now() + 1000);
issued = 0;
refused = 0;
latencies.length = 0;
const began = performance.now();
const cpuBefore = process.cpuUsage();
await drive(began + seconds * 1000);
const elapsed = (performance.now() - began) / 1000;
const cpu = process.cpuUsage(cpuBefore);
await dispose();

latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]! * 1000) / 1000;
console.log(
  JSON.stringify({
    root,
    store: values.store,
    tokens_per_s: Math.round(issued / elapsed),
    issued,
    refused,
    // What a token costs this process whatever else the machine runs (the Postgres server's share is not in it).
    cpu_us_per_token: Math.round((cpu.user + cpu.system) / issued),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  }),
);
