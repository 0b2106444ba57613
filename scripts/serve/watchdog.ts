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
 * stream) and sends the process SIGKILL: the only signal a stuck loop cannot defer. A
 * process that was stopped as a whole is not stuck (`loopStillMs`).
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
 * How long the event loop has stood still, as the thread sees it at one of its ticks
 * (`now`): since the loop's last heartbeat (`beat`), or since the process ran again after
 * being stopped as a whole. That the thread stops when the whole process does (SIGSTOP, a
 * frozen cgroup, docker pause, a debugger, a suspended VM) is how it tells: a tick later
 * than `pausedMs` after the one before means it did, and the loop, stopped too, gets its
 * full limit from then. A stuck loop never delays the thread, which runs on its own.
 * `watch` keeps the state between ticks. Self-contained: it runs in the thread as text.
 */
export function loopStillMs(watch: { lastTick: number; resumedAt: number }, now: number, beat: number, pausedMs: number): number {
  if (now - watch.lastTick > pausedMs) watch.resumedAt = now;
  watch.lastTick = now;
  return Math.round(now - Math.max(beat, watch.resumedAt));
}

/** The thread's tick for a limit, and the gap between ticks that means the process was stopped. */
export function watchdogTiming(stallMs: number): { tickMs: number; pausedMs: number } {
  const tickMs = Math.max(50, Math.min(1000, Math.floor(stallMs / 4)));
  return { tickMs, pausedMs: Math.max(500, 3 * tickMs) };
}

/**
 * The thread's code, as text: it needs nothing but node:fs, and text needs no separate
 * entry point in the compiled binary. It runs as CommonJS.
 */
const THREAD_SOURCE = `
const { workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const loopStillMs = ${loopStillMs.toString()};
const beat = new Float64Array(workerData.beat);
const { stallMs, format, logFd, pid, tickMs, pausedMs } = workerData;
const watch = { lastTick: performance.timeOrigin + performance.now(), resumedAt: 0 };
setInterval(() => {
  const still = loopStillMs(watch, performance.timeOrigin + performance.now(), beat[0], pausedMs);
  if (still <= stallMs) return;
  const time = new Date().toISOString();
  const message = "the event loop has not turned for " + still + " ms (limit " + stallMs + " ms): ending the process so that its supervisor starts a new one";
  const line = format === "json"
    ? JSON.stringify({ time, level: "error", event: "watchdog", message, pid, stalled_ms: still })
    : time + " ERROR " + message + " pid=" + pid;
  try { writeSync(logFd, line + "\\n"); } catch {}
  process.kill(pid, "SIGKILL");
}, tickMs);
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
    workerData: {
      beat: beat.buffer,
      stallMs: options.stallMs,
      format: options.format,
      logFd: options.logFd ?? 1,
      pid: process.pid,
      ...watchdogTiming(options.stallMs),
    },
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
