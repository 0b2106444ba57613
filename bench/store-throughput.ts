/**
 * Employees pages and token requests per second, on SQLite and on Postgres, by the same
 * command on the same machine: `bun bench/store-throughput.ts [--seconds 10] [--stores sqlite,postgres]`.
 *
 * Each store gets the demo organisation (240 employees) and 1,000 extra credentials so
 * that token requests never meet the 10-per-minute limit; a `leaveapi serve` process
 * answers; bench/load.ts, in its own process, drives it with 32 connections.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openPostgresStore } from "../adapters/postgres.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { seedDemo } from "../scripts/demo/seed-demo.ts";

const ROOT = join(import.meta.dir, "..");
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : (args[i + 1] ?? fallback);
};
const seconds = Number(option("seconds", "10"));
const stores = option("stores", "sqlite,postgres").split(",");
const PG_URL = process.env.LEAVEAPI_BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/test";
const CONCURRENCY = 32;
const TOKEN_CLIENTS = 1000;

interface Target {
  name: string;
  dbArgs: string[];
  open: () => SqlAdminStore;
  dispose: () => Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-bench-"));
  const file = join(dir, "bench.sqlite");
  return { name: "sqlite", dbArgs: ["--db", file], open: () => openSqliteStore({ filename: file }), dispose: async () => rmSync(dir, { recursive: true }) };
}

async function postgresTarget(): Promise<Target> {
  const name = `leaveapi_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    name: "postgres",
    dbArgs: ["--database-url", url.toString()],
    open: () => openPostgresStore({ connectionString: url.toString() }),
    dispose: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function startServer(dbArgs: string[]) {
  const proc = Bun.spawn([process.execPath, join(ROOT, "scripts/cli.ts"), ...dbArgs, "serve", "--port", "0", "--read-rate-limit", "0"], {
    stdout: "ignore",
    stderr: "pipe",
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    text += decoder.decode(chunk, { stream: true });
    const url = /leaveapi serving (http:\/\/\S+)/.exec(text)?.[1];
    if (url) return { url, stop: async () => (proc.kill("SIGTERM"), await proc.exited) };
  }
  throw new Error(`serve did not start: ${text}`);
}

async function load(job: object): Promise<{ rps: number; p50_ms: number; p99_ms: number; statuses: Record<string, number>; errors: number }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "bench/load.ts")], {
    stdin: new TextEncoder().encode(JSON.stringify(job)),
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out);
}

async function measure(target: Target) {
  const store = target.open();
  await store.migrate();
  const demo = await seedDemo(store, new Date());
  const clients = [];
  for (let i = 0; i < TOKEN_CLIENTS; i++) {
    const { client, secret } = mintClient(demo.organisation.id, [...ALL_SCOPES], `bench-${i}`, Date.now());
    await store.createClient(client);
    clients.push(`Basic ${btoa(`${client.client_id}:${secret}`)}`);
  }
  await store.close();

  const server = await startServer(target.dbArgs);
  try {
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const tokenRes = await fetch(`${server.url}/v1/oauth/token`, {
      method: "POST",
      headers: { ...form, Authorization: `Basic ${btoa(`${demo.client_id}:${demo.client_secret}`)}` },
      body: "grant_type=client_credentials",
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const auth = { Authorization: `Bearer ${token}` };
    const firstPage = (await (await fetch(`${server.url}/v1/employees?limit=100`, { headers: auth })).json()) as { next_cursor: string };
    const pages = [`${server.url}/v1/employees?limit=100`, `${server.url}/v1/employees?limit=100&cursor=${firstPage.next_cursor}`];
    const employees = await load({ requests: pages.map((url) => ({ url, headers: auth })), concurrency: CONCURRENCY, durationMs: seconds * 1000 });
    // Nine requests per client stays under the 10-per-minute limit.
    const tokens = await load({
      requests: clients.map((authorization) => ({
        url: `${server.url}/v1/oauth/token`,
        method: "POST",
        headers: { ...form, Authorization: authorization },
        body: "grant_type=client_credentials",
      })),
      concurrency: CONCURRENCY,
      total: TOKEN_CLIENTS * 9,
    });
    return { employees, tokens };
  } finally {
    await server.stop();
  }
}

const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
for (const name of stores) {
  const target = name === "postgres" ? await postgresTarget() : await sqliteTarget();
  try {
    results[name] = await measure(target);
  } finally {
    await target.dispose();
  }
}
console.log(
  `store throughput: ${CONCURRENCY} connections, employees page limit=100 for ${seconds} s, ${TOKEN_CLIENTS * 9} token requests over ${TOKEN_CLIENTS} credentials`,
);
console.log("store     | employees req/s | p50 ms | p99 ms | tokens/s | p50 ms | p99 ms");
for (const [name, r] of Object.entries(results)) {
  const e = r.employees;
  const t = r.tokens;
  console.log(
    `${name.padEnd(9)} | ${String(e.rps).padStart(15)} | ${String(e.p50_ms).padStart(6)} | ${String(e.p99_ms).padStart(6)} | ${String(t.rps).padStart(8)} | ${String(t.p50_ms).padStart(6)} | ${String(t.p99_ms).padStart(6)}`,
  );
  const unexpected = { e: { ...e.statuses, "200": undefined }, t: { ...t.statuses, "200": undefined } };
  if (e.errors + t.errors > 0 || Object.values(unexpected.e).some(Boolean) || Object.values(unexpected.t).some(Boolean)) {
    console.log(
      `  ${name}: unexpected answers: employees ${JSON.stringify(e.statuses)} errors ${e.errors}; tokens ${JSON.stringify(t.statuses)} errors ${t.errors}`,
    );
  }
}
