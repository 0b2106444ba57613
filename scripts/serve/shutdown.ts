/**
 * Graceful shutdown: on SIGTERM or SIGINT stop accepting connections, let the requests in
 * flight finish (bounded by --shutdown-timeout), then the caller closes the store and
 * exits 0. Service managers send SIGTERM and wait; a terminal's Ctrl-C sends SIGINT.
 */
import type { Server } from "bun";

export type StopSignal = "SIGTERM" | "SIGINT";

/**
 * Resolves with the first SIGTERM or SIGINT. The listeners stay installed, so a repeated
 * signal (Ctrl-C reaches every worker and their parent forwards it too) does not kill the
 * process mid-drain: the drain has its own deadline.
 */
export function nextStopSignal(): Promise<StopSignal> {
  return new Promise((resolve) => {
    let seen = false;
    const on = (signal: StopSignal) => () => {
      if (seen) return;
      seen = true;
      resolve(signal);
    };
    process.on("SIGTERM", on("SIGTERM"));
    process.on("SIGINT", on("SIGINT"));
  });
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * Stops every server from accepting and waits for their in-flight requests; after
 * `timeoutMs` the connections still open are closed. Resolves whether all drained in time.
 */
export async function drainServers(servers: Server<undefined>[], timeoutMs: number): Promise<boolean> {
  const drained = Promise.all(servers.map((server) => server.stop(false))).then(() => true);
  const inTime = await Promise.race([drained, delay(timeoutMs).then(() => false)]);
  if (!inTime) await Promise.all(servers.map((server) => server.stop(true)));
  return inTime;
}
