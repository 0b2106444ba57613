/**
 * A small closed-loop load generator, run as its own process so it does not share an
 * event loop with the server it measures. Reads a JSON job on stdin:
 *   { requests: [{url, method?, headers?, body?}], concurrency, durationMs?, total? }
 * Each worker takes the next request in turn (round robin) until the duration ends or the
 * total is reached, and prints one JSON line: requests, seconds, rps, p50/p99 ms, statuses.
 */
interface Job {
  requests: { url: string; method?: string; headers?: Record<string, string>; body?: string }[];
  concurrency: number;
  durationMs?: number;
  total?: number;
}

const job = JSON.parse(await Bun.stdin.text()) as Job;
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let next = 0;
let errors = 0;
const started = performance.now();
const deadline = started + (job.durationMs ?? Number.POSITIVE_INFINITY);

async function worker(): Promise<void> {
  for (;;) {
    const i = next++;
    if ((job.total !== undefined && i >= job.total) || performance.now() >= deadline) return;
    const r = job.requests[i % job.requests.length]!;
    const t = performance.now();
    try {
      const res = await fetch(r.url, { method: r.method ?? "GET", headers: r.headers, body: r.body });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t);
  }
}

await Promise.all(Array.from({ length: job.concurrency }, worker));
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(
  JSON.stringify({
    requests: latencies.length,
    seconds: Number(seconds.toFixed(3)),
    rps: Math.round(latencies.length / seconds),
    p50_ms: Number(at(0.5).toFixed(2)),
    p99_ms: Number(at(0.99).toFixed(2)),
    statuses,
    errors,
  }),
);
export {};
