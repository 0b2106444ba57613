/**
 * What `leaveapi serve` sweeps on timers: rate-limit events that no window can count any
 * more, and deletions-feed tombstones older than the feed answers for. `takeRateSlot`
 * sweeps a key only on that key's next request, so without this the events of addresses
 * seen once (every scanner's) would stay in the table for ever; tombstones are written by
 * every import that hides a record and would pile up likewise. And, on SQLite, the
 * checkpoint a deletion owes when readers kept it from truncating the write-ahead log
 * (adapters/sql/erasure.ts), so that a deleted person's bytes leave the log soon after.
 */
import type { AdminStore } from "../../lib/admin-store.ts";
import type { Store } from "../../lib/store.ts";
import { DEFAULT_TOKEN_LIMITS } from "../../lib/issue-token.ts";
import { DEFAULT_DELETION_RETENTION_DAYS, deletionSweepBefore } from "../../lib/deletion-pages.ts";
import type { Logger } from "./logger.ts";

/** Once a minute: the table then holds at most about two windows of events. */
export const RATE_EVENT_SWEEP_EVERY_MS = 60_000;

/** Once an hour: tombstones are kept for days, so an hour more costs nothing. */
export const DELETION_SWEEP_EVERY_MS = 3_600_000;

/** Every 30 seconds: an owed checkpoint is rare and cheap to look for, and the log should not keep a deleted person for long. */
export const OWED_SCRUB_EVERY_MS = 30_000;

/** The part of a timer the sweep uses: Node's, Bun's and a test's fake all have it. */
export interface SweepTimer {
  unref?: () => unknown;
}

/** What every sweep on a timer takes besides its store. */
interface SweepSchedule {
  logger: Pick<Logger, "event">;
  everyMs?: number;
  now?: () => number;
  /** The sweeps stop when this settles: `serve` passes its stop signal, before it closes the store. */
  until?: Promise<unknown>;
  /** The timer functions, replaced in tests so that no real time passes. */
  setInterval?: (run: () => void, ms: number) => SweepTimer;
  clearInterval?: (timer: SweepTimer) => void;
}

export interface RateEventSweepOptions extends SweepSchedule {
  store: Pick<Store, "sweepRateEvents">;
  /** The longest window the server counts events in; default the token endpoint's. */
  windowMs?: number;
}

export interface DeletionSweepOptions extends SweepSchedule {
  store: Pick<Store, "sweepDeletions">;
  /** The days the deletions feed answers for (`serve --deletions-retention-days`); default 90. */
  retentionDays?: number;
}

export interface OwedScrubOptions extends SweepSchedule {
  store: Pick<AdminStore, "scrubDeleted">;
}

export interface ControlsCopyOptions extends SweepSchedule {
  /** Copies the access controls the SQLite tokens file holds into the data file, if its lock is free; `false` when it is not. */
  copy: () => Promise<boolean>;
}

/** Every 30 seconds, as the owed checkpoint: a control set during an import reaches the data file soon after it. */
export const CONTROLS_COPY_EVERY_MS = 30_000;

export interface Sweeps {
  /** One sweep now, or the end of the one running; never rejects (a failure is logged). */
  sweep: () => Promise<void>;
  stop: () => void;
}

export type RateEventSweeps = Sweeps;

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** How one kind of sweep runs and is logged. */
interface SweepJob {
  run: (now: number) => Promise<number>;
  /** The log events' names and the noun for what went, e.g. "old rate-limit events". */
  sweptEvent: string;
  failedEvent: string;
  what: string;
  defaultEveryMs: number;
}

/**
 * Sweeps every `everyMs` on a timer that does not keep the process alive. A failed sweep
 * is logged as an event and the next one tries again: the server never stops for it.
 * A sweep still running when the next is due is not doubled.
 */
function sweepRegularly(job: SweepJob, options: SweepSchedule): Sweeps {
  const { logger } = options;
  const everyMs = options.everyMs ?? job.defaultEveryMs;
  const now = options.now ?? Date.now;
  const startTimer = options.setInterval ?? ((run, ms) => setInterval(run, ms));
  const stopTimer = options.clearInterval ?? ((timer) => clearInterval(timer as ReturnType<typeof setInterval>));

  const sweepOnce = async () => {
    try {
      const swept = await job.run(now());
      if (swept > 0) logger.event("debug", job.sweptEvent, `swept ${swept} ${job.what}`, { swept });
    } catch (error) {
      logger.event("warn", job.failedEvent, `sweeping ${job.what} failed (${reasonOf(error)}); retrying in ${everyMs} ms`);
    }
  };
  // A call while a sweep runs waits for that one instead of starting another.
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
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

/** Rate-limit events older than the longest window, every minute. */
export function sweepRateEventsRegularly(options: RateEventSweepOptions): RateEventSweeps {
  const windowMs = options.windowMs ?? DEFAULT_TOKEN_LIMITS.windowMs;
  return sweepRegularly(
    {
      run: (now) => options.store.sweepRateEvents(now, windowMs),
      sweptEvent: "rate_events_swept",
      failedEvent: "rate_event_sweep_failed",
      what: "old rate-limit events",
      defaultEveryMs: RATE_EVENT_SWEEP_EVERY_MS,
    },
    options,
  );
}

/**
 * Tombstones older than the deletions feed answers for, every hour; at the server's start
 * too, so that one restarted often still sweeps. Only tombstones a day older than the
 * feed's 410 boundary go (lib/deletion-pages.ts, `deletionSweepBefore`): no `updated_since`
 * the feed accepts can miss one (docs/api.md, "GET /v1/deletions").
 */
export function sweepDeletionsRegularly(options: DeletionSweepOptions): Sweeps {
  const retentionDays = options.retentionDays ?? DEFAULT_DELETION_RETENTION_DAYS;
  const sweeps = sweepRegularly(
    {
      run: (now) => options.store.sweepDeletions(deletionSweepBefore(now, retentionDays)),
      sweptEvent: "deletions_swept",
      failedEvent: "deletion_sweep_failed",
      what: `deletions-feed tombstones older than ${retentionDays} days`,
      defaultEveryMs: DELETION_SWEEP_EVERY_MS,
    },
    options,
  );
  void sweeps.sweep();
  return sweeps;
}

/**
 * The checkpoint a deletion owes (docs/api.md, "Personal data"), tried every half minute without waiting
 * for other processes' readers or writer: a synchronous driver would wait with the whole
 * server. One that still cannot finish is tried again next time.
 */
export function scrubOwedRegularly(options: OwedScrubOptions): Sweeps {
  return sweepRegularly(
    {
      run: async () => ((await options.store.scrubDeleted({ wait: false, onlyIfOwed: true })).complete ? 0 : 1),
      sweptEvent: "deleted_data_scrub_owed",
      failedEvent: "deleted_data_scrub_failed",
      what: "owed checkpoint left for the next try (readers hold the write-ahead log)",
      defaultEveryMs: OWED_SCRUB_EVERY_MS,
    },
    options,
  );
}

/**
 * The access controls set while an import held the SQLite data file's lock
 * (adapters/sql/access-controls.ts), copied into the data file every half minute without
 * waiting for its lock, so that they reach it soon after the import ends even when no
 * command runs. One left for the next try is counted, not failed.
 */
export function copyControlsRegularly(options: ControlsCopyOptions): Sweeps {
  return sweepRegularly(
    {
      run: async () => ((await options.copy()) ? 0 : 1),
      sweptEvent: "access_controls_copy_owed",
      failedEvent: "access_controls_copy_failed",
      what: "access controls left in the tokens file for the next try (another process holds the data file's lock)",
      defaultEveryMs: CONTROLS_COPY_EVERY_MS,
    },
    options,
  );
}
