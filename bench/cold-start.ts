#!/usr/bin/env bun
/**
 * Cold start to first answered request: spawns `BINARY serve --port 0` on an existing,
 * migrated SQLite database and times from the spawn until GET /healthz returns 200.
 *
 *   bun bench/cold-start.ts [--runs 7] [BINARY ...]      (default: dist/leaveapi)
 *
 * Prints every run and the median, per binary, so builds made with different options
 * (scripts/build.ts --no-minify / --no-bytecode) can be compared side by side. Each run
 * waits for the previous server to exit, so runs do not compete for the cores.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Reads stderr until the server says where it listens. */
async function listeningUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stderr) {
    text += decoder.decode(chunk, { stream: true });
    const url = /leaveapi serving (http:\/\/\S+)/.exec(text)?.[1];
    if (url) return url;
  }
  throw new Error(`server exited without listening: ${text}`);
}

/** One cold start: milliseconds from spawn to the first 200 from /healthz. */
async function coldStart(binary: string, db: string, cwd: string): Promise<number> {
  const started = performance.now();
  const server = Bun.spawn([binary, "--db", db, "serve", "--port", "0"], { cwd, stdout: "ignore", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } });
  try {
    const base = await listeningUrl(server.stderr);
    const response = await fetch(`${base}/healthz`);
    if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
    await response.arrayBuffer();
    return performance.now() - started;
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}

async function measure(binary: string, runs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-bench-"));
  try {
    const db = join(dir, "bench.sqlite");
    const migrate = Bun.spawn([binary, "--db", db, "migrate"], { cwd: dir, stdout: "ignore", stderr: "inherit" });
    if ((await migrate.exited) !== 0) throw new Error(`${binary} migrate failed`);
    // One unmeasured start so every measured run finds the binary in the page cache.
    await coldStart(binary, db, dir);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await coldStart(binary, db, dir));
    const size = (statSync(binary).size / 1024 / 1024).toFixed(1);
    console.log(`${binary} (${size} MiB): median ${median(times).toFixed(1)} ms to first /healthz 200; runs ${times.map((t) => t.toFixed(1)).join(", ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values, positionals } = parseArgs({ args: Bun.argv.slice(2), options: { runs: { type: "string", default: "7" } }, allowPositionals: true });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number above 0; got '${values.runs}'`);
for (const binary of positionals.length ? positionals : [join(ROOT, "dist/leaveapi")]) await measure(resolve(binary), runs);
