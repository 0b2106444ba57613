#!/usr/bin/env bun
/**
 * Holidays under attack, on a real `leaveapi serve` (issue 12), on SQLite and Postgres:
 *
 * 1. The request that once never answered (`from=0001-01-01&to=0001-12-31`, CN, KR, VN,
 *    TW) and the same for the first and last covered years: latency of each, 20 times.
 * 2. A flood of first-time calendar-years of the five slowest calendars (TW, HK, VN, CN,
 *    KR: the lunar ones, the costliest to compute), from several concurrent clients,
 *    while one more client asks GET /healthz back to back: /healthz's latency
 *    percentiles say how long the event loop was held.
 *
 *   bun bench/holiday-flood.ts [--years 150] [--clients 8] [--skip-postgres]
 *
 * Targets: (1) under 50 ms; (2) /healthz p99 under 10 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fetchToken } from "./harness/crawl.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { CLI, runCli, startServer } from "./harness/processes.ts";

const { values } = parseArgs({
  options: { years: { type: "string", default: "150" }, clients: { type: "string", default: "8" }, "skip-postgres": { type: "boolean", default: false } },
});
const YEARS = Number(values.years);
const CLIENTS = Number(values.clients);
const SLOW_CALENDARS = ["TW", "HK", "VN", "CN", "KR"];

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(2);
  return `n=${s.length} p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
}

async function timed(url: string, token?: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - started;
}

async function measure(label: string, storeArgs: string[]): Promise<void> {
  const demo = JSON.parse((await runCli([...storeArgs, "demo", "--json"])).stdout) as { client_id: string; client_secret: string };
  const server = await startServer([...CLI, ...storeArgs, "serve", "--port", "0", "--log-level", "warn", "--read-rate-limit", "0"]);
  try {
    const token = await fetchToken(server.url, { id: demo.client_id, secret: demo.client_secret });
    console.log(`\n## ${label}`);
    for (const [from, to] of [
      ["0001-01-01", "0001-12-31"],
      ["1900-01-01", "1900-12-31"],
      ["2199-01-01", "2199-12-31"],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        for (const calendar of ["CN", "KR", "VN", "TW"]) times.push(await timed(`${server.url}/v1/holidays?from=${from}&to=${to}&calendar=${calendar}`, token));
      }
      console.log(`holidays ${from}..${to} CN/KR/VN/TW (first request computes, the rest are cached): ${percentiles(times)}`);
    }

    const queue = SLOW_CALENDARS.flatMap((calendar) =>
      Array.from({ length: YEARS }, (_, i) => `${server.url}/v1/holidays?from=${1950 + i}-01-01&to=${1950 + i}-12-31&calendar=${calendar}`),
    );
    const flood: number[] = [];
    const health: number[] = [];
    let flooding = true;
    const started = performance.now();
    const probe = (async () => {
      while (flooding) health.push(await timed(`${server.url}/healthz`));
    })();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let next = queue.pop(); next !== undefined; next = queue.pop()) flood.push(await timed(next, token));
      }),
    );
    flooding = false;
    await probe;
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `flood: ${flood.length} first-time calendar-years of ${SLOW_CALENDARS.join(", ")} from ${CLIENTS} clients in ${seconds.toFixed(1)} s; their latency: ${percentiles(flood)}`,
    );
    console.log(`/healthz meanwhile, back to back: ${percentiles(health)}`);
  } finally {
    await server.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), "leaveapi-holiday-flood-"));
try {
  console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${YEARS} years x ${SLOW_CALENDARS.length} calendars, ${CLIENTS} clients`);
  await measure("SQLite", ["--db", join(work, "flood.sqlite")]);
  if (!values["skip-postgres"]) {
    const database = await createPostgresDatabase("leaveapi_flood");
    try {
      await measure("Postgres", ["--database-url", database.url]);
    } finally {
      await database.drop();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
