/**
 * Driving the sweeps `leaveapi serve` runs on timers (scripts/serve/housekeeping.ts) by
 * hand in tests, with no real time passing: a timer that runs when told, and a logger that
 * records the events.
 */
import type { SweepTimer } from "../scripts/serve/housekeeping.ts";
import type { LogLevel } from "../scripts/serve/settings.ts";

/** A timer that runs only when the test says: what `setInterval` was given, and whether it was unref'd or cleared. */
export function handTimer() {
  const state = { run: undefined as (() => void) | undefined, everyMs: 0, unrefed: false, cleared: false };
  const timer: SweepTimer = { unref: () => void (state.unrefed = true) };
  return {
    state,
    setInterval: (run: () => void, ms: number) => {
      state.run = run;
      state.everyMs = ms;
      return timer;
    },
    clearInterval: (t: SweepTimer) => void (state.cleared = t === timer),
  };
}

export function recordingLogger() {
  const events: { level: LogLevel; event: string; message: string }[] = [];
  return { events, event: (level: LogLevel, event: string, message: string) => void events.push({ level, event, message }) };
}

/** Lets the sweep a timer tick started finish. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
