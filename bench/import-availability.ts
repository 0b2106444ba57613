/**
 * Tokens and reads while an import runs (issue 23). On a fresh
 * database, `leaveapi serve` answers for one organisation while `leaveapi import` loads
 * the generated leave file into another. Meanwhile, at fixed rates: token requests over
 * fresh credentials (each far under its limit of 10 a minute), employee pages of the
 * served organisation, and a watcher asking the importing organisation's leave list for
 * the moment its bookings appear. Reports the import's time and peak RSS, token and read
 * latencies and failures, and the gap between the bookings' `updated_at` and the moment
 * the watcher first saw them (at most 2 s is the rule, plus the watcher's own period).
 *
 *   bun bench/import-availability.ts [--employees N] [--bookings N] [--skip-postgres] [--skip-sqlite]
 *
 * `npm run bench` runs it on the benchmark's files as its "import availability" rows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { generate, type GeneratedFiles } from "./generate.ts";
import { postgresTarget, sqliteTarget, type DatabaseTarget } from "./harness/dataset.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { CLI, runCli, startServer } from "./harness/processes.ts";

const TOKENS_PER_SECOND = 10;
const READS_PER_SECOND = 20;
const WATCH_EVERY_MS = 100;
/** Fresh credentials for the token requests: at 10 a second, each is asked at most a few times a minute. */
const TOKEN_CLIENTS = 300;

export interface AvailabilityResult {
  store: string;
  importSeconds: number;
  importPeakRssMb: number;
  tokens: Latencies;
  reads: Latencies;
  /** Milliseconds from a booking's `updated_at` to the watcher's first sight of it. */
  visibilityGapMs: number;
}

export interface Latencies {
  count: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
}

function latencies(samples: { ms: number; ok: boolean }[]): Latencies {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: samples.length, failed: samples.filter((s) => !s.ok).length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

async function json<T>(args: string[]): Promise<T> {
  return JSON.parse((await runCli([...args, "--json"])).stdout) as T;
}

async function organisation(target: DatabaseTarget, name: string): Promise<{ id: string; authorization: string }> {
  const { id } = await json<{ id: string }>([...target.args, "org", "create", "--name", name]);
  await runCli([...target.args, "org", "enable-api", id]);
  const creds = await json<{ client_id: string; client_secret: string }>([...target.args, "credentials", "create", "--org", id]);
  return { id, authorization: `Basic ${btoa(`${creds.client_id}:${creds.client_secret}`)}` };
}

async function token(url: string, authorization: string): Promise<string> {
  const response = await fetch(`${url}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: authorization, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  if (response.status !== 200) throw new Error(`token request: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Calls `request` every `periodMs` until `running()` is false; each call's latency and success. */
async function atFixedRate(periodMs: number, running: () => boolean, request: (i: number) => Promise<boolean>) {
  const samples: { ms: number; ok: boolean }[] = [];
  for (let i = 0; running(); i++) {
    const started = performance.now();
    const ok = await request(i).catch(() => false);
    samples.push({ ms: performance.now() - started, ok });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, periodMs - (performance.now() - started))));
  }
  return samples;
}

/**
 * One run on `target`, a fresh database: the served organisation gets `served`'s employees,
 * the importing one `files`' employees, then its leave file while the load runs.
 */
export async function measureImportAvailability(
  label: string,
  target: DatabaseTarget,
  files: GeneratedFiles,
  served: GeneratedFiles,
): Promise<AvailabilityResult> {
  await runCli([...target.args, "migrate"]);
  const reader = await organisation(target, "Served Ltd");
  await runCli([...target.args, "import", "--org", reader.id, "--kind", "employees", served.employees]);
  const importer = await organisation(target, "Importing Ltd");
  await runCli([...target.args, "import", "--org", importer.id, "--kind", "employees", files.employees]);
  const store = target.open();
  const tokenClients: string[] = [];
  try {
    for (let i = 0; i < TOKEN_CLIENTS; i++) {
      const { client, secret } = mintClient(reader.id, [...ALL_SCOPES], `availability-${i}`, Date.now());
      await store.createClient(client);
      tokenClients.push(`Basic ${btoa(`${client.client_id}:${secret}`)}`);
    }
  } finally {
    await store.close();
  }

  const server = await startServer([...CLI, ...target.args, "serve", "--port", "0"]);
  try {
    const readToken = await token(server.url, reader.authorization);
    const watchToken = await token(server.url, importer.authorization);
    const started = performance.now();
    const proc = Bun.spawn([...CLI, ...target.args, "import", "--org", importer.id, "--kind", "leave", files.leave], { stdout: "pipe", stderr: "pipe" });
    let importing = true;
    const done = (async () => {
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      importing = false;
      if (code !== 0) throw new Error(`the import exited ${code}: ${stdout}${stderr}`);
      return { seconds: (performance.now() - started) / 1000, peakRssMb: Math.round(Number(proc.resourceUsage()?.maxRSS ?? 0) / 1e6) };
    })();

    const tokens = atFixedRate(
      1000 / TOKENS_PER_SECOND,
      () => importing,
      async (i) => {
        const response = await fetch(`${server.url}/v1/oauth/token`, {
          method: "POST",
          headers: { Authorization: tokenClients[i % tokenClients.length]!, "Content-Type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials",
        });
        await response.arrayBuffer();
        return response.status === 200;
      },
    );
    const reads = atFixedRate(
      1000 / READS_PER_SECOND,
      () => importing,
      async () => {
        const response = await fetch(`${server.url}/v1/employees?limit=100`, { headers: { Authorization: `Bearer ${readToken}` } });
        await response.arrayBuffer();
        return response.status === 200;
      },
    );
    // The watcher goes on past the import's end until it has seen the bookings (10 s at most).
    let seen: { at: number; updatedAt: number } | null = null;
    let watchUntil = Number.POSITIVE_INFINITY;
    void done.finally(() => {
      watchUntil = Date.now() + 10_000;
    });
    const watching = atFixedRate(
      WATCH_EVERY_MS,
      () => seen === null && Date.now() < watchUntil,
      async () => {
        const response = await fetch(`${server.url}/v1/leave-requests?from=2022-01-01&to=2022-12-31&limit=1`, {
          headers: { Authorization: `Bearer ${watchToken}` },
        });
        const page = (await response.json()) as { data?: { updated_at: string }[] };
        const first = page.data?.[0];
        if (first) seen = { at: Date.now(), updatedAt: Date.parse(first.updated_at) };
        return response.status === 200;
      },
    );
    const imported = await done;
    const [tokenSamples, readSamples] = await Promise.all([tokens, reads, watching]);
    if (!seen) throw new Error("the imported bookings never became visible");
    const { at, updatedAt } = seen as { at: number; updatedAt: number };
    return {
      store: label,
      importSeconds: imported.seconds,
      importPeakRssMb: imported.peakRssMb,
      tokens: latencies(tokenSamples),
      reads: latencies(readSamples),
      visibilityGapMs: at - updatedAt,
    };
  } finally {
    await server.stop();
  }
}

export function describeAvailability(r: AvailabilityResult): string {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return (
    `${r.store}: import ${r.importSeconds.toFixed(1)} s (peak RSS ${r.importPeakRssMb} MB); during it, tokens p50 ${ms(r.tokens.p50)}, p99 ${ms(r.tokens.p99)}, ` +
    `max ${ms(r.tokens.max)} (${r.tokens.count} requests, ${r.tokens.failed} failed); employee pages p99 ${ms(r.reads.p99)}, max ${ms(r.reads.max)} ` +
    `(${r.reads.count}, ${r.reads.failed} failed); bookings first seen ${r.visibilityGapMs} ms after their updated_at`
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      employees: { type: "string", default: "10000" },
      bookings: { type: "string", default: "1000000" },
      "skip-postgres": { type: "boolean", default: false },
      "skip-sqlite": { type: "boolean", default: false },
    },
  });
  const work = mkdtempSync(join(tmpdir(), "leaveapi-availability-"));
  try {
    const files = await generate({ out: work, employees: Number(values.employees), bookings: Number(values.bookings), prefix: "big-" });
    const served = await generate({ out: work, employees: 1000, bookings: 0, prefix: "served-", seed: 11 });
    if (!values["skip-sqlite"])
      console.log(describeAvailability(await measureImportAvailability("SQLite", sqliteTarget(join(work, "availability.sqlite")), files, served)));
    if (!values["skip-postgres"]) {
      const database = await createPostgresDatabase();
      try {
        console.log(describeAvailability(await measureImportAvailability("Postgres", postgresTarget(database.url), files, served)));
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
