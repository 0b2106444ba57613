/**
 * Per-request server time, without HTTP: the handler called in this process on its own
 * store, one request after another, so what is timed is what the server does for a
 * request (auth, query, JSON), not the socket or the load generator.
 */
import { createHandler } from "../../server/handler.ts";
import type { Store } from "../../lib/store.ts";

export interface HandlerTiming {
  requests: number;
  mean_us: number;
  p50_us: number;
  p99_us: number;
  /** This process's CPU (user and system) per request: the handler's and the client library's, not the database server's. */
  cpu_us: number;
}

export async function timeHandler(store: Store, token: string, paths: string[], requests: number): Promise<HandlerTiming> {
  const handler = createHandler({ store });
  const headers = { Authorization: `Bearer ${token}` };
  const call = async (path: string) => {
    const res = await handler(new Request(`http://bench.local${path}`, { headers }), { remoteAddress: "127.0.0.1" });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  };
  for (let i = 0; i < Math.min(200, requests); i++) await call(paths[i % paths.length]!);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await call(paths[(i * 7919) % paths.length]!);
    times.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  const us = (ms: number) => Math.round(ms * 1000);
  return {
    requests,
    mean_us: us(times.reduce((sum, t) => sum + t, 0) / times.length),
    p50_us: us(times[Math.floor(times.length / 2)]!),
    p99_us: us(times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!),
    cpu_us: Math.round((cpu.user + cpu.system) / requests),
  };
}
