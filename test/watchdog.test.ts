/**
 * The watchdog's judgement (scripts/serve/watchdog.ts, `loopStillMs`), tick by tick with
 * made-up instants: a loop that stops turning is found out after the limit; a process
 * stopped as a whole (SIGSTOP, docker pause) is not, because the watchdog's own ticks
 * stopped with it. test/stalls.e2e.test.ts runs the real thing.
 */
import { expect, test } from "bun:test";
import { loopStillMs, watchdogTiming } from "../scripts/serve/watchdog.ts";

const LIMIT = 2000;
const { tickMs, pausedMs } = watchdogTiming(LIMIT);

test("a loop that keeps turning is never still for long", () => {
  const watch = { lastTick: 0, resumedAt: 0 };
  for (let t = tickMs; t < 20_000; t += tickMs) expect(loopStillMs(watch, t, t - 100, pausedMs)).toBeLessThan(LIMIT);
});

test("a stuck loop is still for longer than the limit within a tick of it", () => {
  const watch = { lastTick: 0, resumedAt: 0 };
  let still = 0;
  let t = 0;
  while (still <= LIMIT) {
    t += tickMs;
    still = loopStillMs(watch, t, 0, pausedMs);
  }
  expect(t).toBeLessThanOrEqual(LIMIT + tickMs);
});

test("a process stopped for twice the limit is not stuck when it runs again, and a loop stuck after that still is", () => {
  const watch = { lastTick: 0, resumedAt: 0 };
  expect(loopStillMs(watch, tickMs, tickMs, pausedMs)).toBe(0);
  // Stopped: no tick, no heartbeat, for twice the limit.
  const resumed = tickMs + 2 * LIMIT;
  expect(loopStillMs(watch, resumed, tickMs, pausedMs)).toBe(0);
  // The loop has not beaten yet on the next tick: still well within its limit.
  expect(loopStillMs(watch, resumed + tickMs, tickMs, pausedMs)).toBe(tickMs);
  // Stuck from then on, it is ended a limit after it ran again, not at once.
  let t = resumed + tickMs;
  let still = 0;
  while (still <= LIMIT) {
    t += tickMs;
    still = loopStillMs(watch, t, tickMs, pausedMs);
  }
  expect(t - resumed).toBeGreaterThan(LIMIT);
});
