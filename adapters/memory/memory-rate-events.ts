/**
 * The memory store's rate limiting: per key, the instants of the events recorded and not
 * yet pruned, answering `Store.takeRateSlot`, `checkRateLimit` and `sweepRateEvents`.
 */
import type { RateDecision } from "../../lib/store.ts";

export interface MemoryRateEvents {
  take(key: string, now: number, limit: number, windowMs: number): RateDecision;
  check(key: string, now: number, limit: number, windowMs: number): RateDecision;
  sweep(now: number, windowMs: number): number;
}

export function memoryRateEvents(): MemoryRateEvents {
  const rateEvents = new Map<string, number[]>();

  /** Rate events of `key` inside the window (now − windowMs, now], oldest first. */
  const eventsInWindow = (key: string, now: number, windowMs: number) => (rateEvents.get(key) ?? []).filter((at) => at > now - windowMs).sort((a, b) => a - b);

  /**
   * The decision for one more event: allowed while fewer than `limit` are in the window;
   * otherwise wait until the `limit`-th newest event leaves it, so exactly one fits again.
   */
  const decide = (inWindow: number[], now: number, limit: number, windowMs: number): RateDecision => {
    if (inWindow.length < limit) return { allowed: true };
    const mustLeave = inWindow[inWindow.length - limit] ?? now;
    return { allowed: false, retryAfterMs: Math.max(1, mustLeave + windowMs - now) };
  };

  return {
    // Synchronous from the count to the push: in one JavaScript thread nothing else can run
    // in between, which is what makes this atomic. A shared database needs a transaction
    // (or a single conditional insert) to promise the same.
    take(key, now, limit, windowMs) {
      const inWindow = eventsInWindow(key, now, windowMs);
      const decision = decide(inWindow, now, limit, windowMs);
      if (decision.allowed) inWindow.push(now);
      // Events older than the window can never count again: keep only the window.
      rateEvents.set(key, inWindow);
      return decision;
    },

    check(key, now, limit, windowMs) {
      return decide(eventsInWindow(key, now, windowMs), now, limit, windowMs);
    },

    sweep(now, windowMs) {
      let swept = 0;
      for (const [key, events] of rateEvents) {
        const kept = events.filter((at) => at > now - windowMs);
        swept += events.length - kept.length;
        // A key with nothing left goes too: keys seen once are what the sweep is for.
        if (kept.length === 0) rateEvents.delete(key);
        else rateEvents.set(key, kept);
      }
      return swept;
    },
  };
}
