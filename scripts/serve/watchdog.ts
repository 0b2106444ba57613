/**
 * The watchdog (docs/install.md, "When the server stops answering"): a thread outside the
 * event loop that ends the process when the loop has stood still for longer than the
 * limit, so that systemd (`Restart=on-failure`) or any supervisor starts a fresh one. A
 * stuck loop answers nothing, not even /healthz or SIGTERM, and never exits by itself,
 * so without this a supervisor would wait for ever.
 *
 * The event loop writes the time into shared memory on a timer; the thread reads it (both
 * as timeOrigin + performance.now(), which a wall-clock step does not move). When
 * it is too old the thread writes one log line (in the request log's format, on the same
 * stream) and sends the process SIGKILL: the only signal a stuck loop cannot defer.
 */
import { Worker } from "node:worker_threads";

export interface WatchdogOptions {
  /** How long the event loop may stand still, in milliseconds. */
  stallMs: number;
  /** The log's format, so that the last line looks like every other. */
  format: "json" | "text";
  /** The file descriptor the log goes to (1: stdout). */
  logFd?: number;
}

export interface Watchdog {
  stop(): Promise<void>;
}

/**
 * The thread's code, as text: it needs nothing but node:fs, and text needs no separate
 * entry point in the compiled binary. It runs as CommonJS.
 */
const THREAD_SOURCE = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const beat = new Float64Array(workerData.beat);
const { stallMs, format, logFd, pid } = workerData;
setInterval(() => {
  const still = Math.round(performance.timeOrigin + performance.now() - beat[0]);
  if (still <= stallMs) return;
  const time = new Date().toISOString();
  const message = "the event loop has not turned for " + still + " ms (limit " + stallMs + " ms): ending the process so that its supervisor starts a new one";
  const line = format === "json"
    ? JSON.stringify({ time, level: "error", event: "watchdog", message, pid, stalled_ms: still })
    : time + " ERROR " + message + " pid=" + pid;
  try { writeSync(logFd, line + "\\n"); } catch {}
  process.kill(pid, "SIGKILL");
}, Math.max(50, Math.min(1000, Math.floor(stallMs / 4))));
`;

/** Starts the watchdog thread and the heartbeat that feeds it. */
export function startWatchdog(options: WatchdogOptions): Watchdog {
  const beat = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
  beat[0] = performance.timeOrigin + performance.now();
  const heartbeat = setInterval(
    () => {
      beat[0] = performance.timeOrigin + performance.now();
    },
    Math.max(25, Math.min(500, Math.floor(options.stallMs / 8))),
  );
  heartbeat.unref();
  const thread = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { beat: beat.buffer, stallMs: options.stallMs, format: options.format, logFd: options.logFd ?? 1, pid: process.pid },
  });
  // Watching must never keep a stopping server alive.
  thread.unref();
  return {
    async stop() {
      clearInterval(heartbeat);
      await thread.terminate();
    },
  };
}
