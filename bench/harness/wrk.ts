/**
 * Load from wrk (Debian's package), a second process on loopback: C and epoll, so it
 * takes far less of this 2-core machine than the server it measures. bench/wrk/requests.lua
 * sends the requests of a file (random or in order, optionally bounded or at a fixed
 * rate) and prints one JSON line, parsed here.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const SCRIPT = join(import.meta.dir, "../wrk/requests.lua");

export interface WrkRequest {
  method?: string;
  path: string;
  authorization?: string;
  body?: string;
  acceptEncoding?: string;
  /** Sent as If-None-Match (bench/conditional-poll.ts). */
  ifNoneMatch?: string;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  socket_errors: number;
  /** Bytes read from the server, headers included. */
  bytes: number;
  /** Answers that were 304 Not Modified (wrk counts only statuses over 399 as errors). */
  not_modified: number;
}

export interface WrkRun {
  url: string;
  requestsFile: string;
  seconds: number;
  connections: number;
  order?: "random" | "sequential";
  /** Stop after this many responses. */
  quota?: number;
  /** Milliseconds each connection waits before each request: a fixed rate of connections × 1000 / delay. */
  delayMs?: number;
}

export function wrkAvailable(): boolean {
  return Bun.which("wrk") !== null;
}

/** Writes requests in the tab-separated form requests.lua reads. */
export function writeRequests(file: string, requests: WrkRequest[]): string {
  for (const r of requests) {
    if (/[\t\n]/.test(`${r.path}${r.authorization ?? ""}${r.body ?? ""}${r.acceptEncoding ?? ""}${r.ifNoneMatch ?? ""}`))
      throw new Error(`a request holds a tab or newline: ${r.path}`);
  }
  writeFileSync(
    file,
    `${requests.map((r) => `${r.method ?? "GET"}\t${r.path}\t${r.authorization ?? ""}\t${r.body ?? ""}\t${r.acceptEncoding ?? ""}\t${r.ifNoneMatch ?? ""}`).join("\n")}\n`,
  );
  return file;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = ["wrk", "-t1", `-c${run.connections}`, `-d${run.seconds}s`, "--timeout", "10s", "-s", SCRIPT, run.url];
  const env: Record<string, string> = { ...(process.env as Record<string, string>), WRK_REQUESTS: run.requestsFile, WRK_ORDER: run.order ?? "random" };
  if (run.quota !== undefined) env.WRK_QUOTA = String(run.quota);
  if (run.delayMs !== undefined) env.WRK_DELAY_MS = String(run.delayMs);
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe", env });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const line = out.split("\n").find((l) => l.startsWith("{"));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}): ${err.trim()} ${out.trim()}`);
  return JSON.parse(line) as WrkResult;
}
