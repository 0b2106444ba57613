/**
 * What `leaveapi serve` sweeps on a timer: rate-limit events that no window can count any
 * more. `takeRateSlot` sweeps a key only on that key's next request, so without this the
 * events of addresses seen once (every scanner's) would stay in the table for ever.
 */
import type { Store } from "../../lib/store.ts";
import { DEFAULT_TOKEN_LIMITS } from "../../lib/issue-token.ts";
import type { Logger } from "./logger.ts";

/** Once a minute: the table then holds at most about two windows of events. */
export const RATE_EVENT_SWEEP_EVERY_MS = 60_000;

/** The part of a timer the sweep uses: Node's, Bun's and a test's fake all have it. */
export interface SweepTimer {
  unref?: () => unknown;
}

export interface RateEventSweepOptions {
  store: Pick<Store, "sweepRateEvents">;
  logger: Pick<Logger, "event">;
  /** The longest window the server counts events in; default the token endpoint's. */
  windowMs?: number;
  everyMs?: number;
  now?: () => number;
  /** The sweeps stop when this settles: `serve` passes its stop signal, before it closes the store. */
  until?: Promise<unknown>;
  /** The timer functions, replaced in tests so that no real time passes. */
  setInterval?: (run: () => void, ms: number) => SweepTimer;
  clearInterval?: (timer: SweepTimer) => void;
}

export interface RateEventSweeps {
  /** One sweep now; never rejects (a failure is logged). */
  sweep: () => Promise<void>;
  stop: () => void;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Sweeps every `everyMs` on a timer that does not keep the process alive. A failed sweep
 * is logged as an event and the next one tries again: the server never stops for it.
 * A sweep still running when the next is due is not doubled.
 */
export function sweepRateEventsRegularly(options: RateEventSweepOptions): RateEventSweeps {
  const { store, logger } = options;
  const windowMs = options.windowMs ?? DEFAULT_TOKEN_LIMITS.windowMs;
  const everyMs = options.everyMs ?? RATE_EVENT_SWEEP_EVERY_MS;
  const now = options.now ?? Date.now;
  const startTimer = options.setInterval ?? ((run, ms) => setInterval(run, ms));
  const stopTimer = options.clearInterval ?? ((timer) => clearInterval(timer as ReturnType<typeof setInterval>));

  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const swept = await store.sweepRateEvents(now(), windowMs);
      if (swept > 0) logger.event("debug", "rate_events_swept", `swept ${swept} old rate-limit events`, { swept });
    } catch (error) {
      logger.event("warn", "rate_event_sweep_failed", `sweeping old rate-limit events failed (${reasonOf(error)}); retrying in ${everyMs} ms`);
    } finally {
      running = false;
    }
  };

  const timer = startTimer(() => void sweep(), everyMs);
  timer.unref?.();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    stopTimer(timer);
  };
  options.until?.then(stop, stop);
  return { sweep, stop };
}
