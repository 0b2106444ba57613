/**
 * Public holidays computed in a worker thread (node:worker_threads, which Bun, Node and
 * Deno all provide), so that no request holds the event loop while the dataset works
 * out a lunar calendar-year, the slowest it computes. `leaveapi serve` passes
 * its `source` to createHandler; each calendar-year is computed once and remembered.
 *
 * A computation cannot be interrupted inside the thread: when the thread has answered
 * nothing for `timeoutMs` while questions wait, it is ended, the requests waiting on it fail (a 500 for each, with
 * the cause in the log) and the next request starts a fresh thread. With the years
 * bounded to SHIPPED_YEARS no calendar comes near the limit
 * (test/holidays-bounds.e2e.test.ts); the limit is a second line of defence.
 */
import { Worker } from "node:worker_threads";
import { createPublicHolidayCache, type PublicHoliday, type PublicHolidaySource } from "../lib/public-holidays.ts";
import type { AdminStore } from "../lib/admin-store.ts";
import { listHolidays } from "../lib/holidays.ts";
import type { Store } from "../lib/store.ts";
import type { HolidayAnswer, HolidayQuestion } from "./holiday-thread.ts";

/**
 * How much of the thread's time `prefetch` may spend in all (room for hundreds of
 * calendar-years of the usual calendars, bench/RESULTS.md, "Figures behind design
 * choices"), and the most one of its calendar-years may have cost for the calendar to be
 * computed ahead: a request that arrives meanwhile waits for the one calendar-year in
 * progress, so a lunar calendar, ten times that bound and more, is never computed ahead.
 */
export const PREFETCH_BUDGET_MS = 1000;
export const PREFETCH_CALENDAR_MS = 20;

/** Far above the slowest calendar-year, even on a loaded machine, so only a thread that truly spins is ended. */
export const HOLIDAY_TIMEOUT_MS = 15_000;

/**
 * How long the thread may sit with nothing to do before it is ended. Its heap (the
 * dataset's rules and their per-year caches, tens of megabytes once a prefetch has run)
 * is given back to the system; what it computed stays remembered in `source`, and a later
 * question for a calendar-year not yet computed starts a fresh thread (which loads the
 * dataset again, once). Long enough that a burst of such questions shares one thread.
 */
export const HOLIDAY_IDLE_MS = 30_000;

/**
 * How many calendar-years one thread computes before a fresh one takes over. The dataset
 * keeps what it worked out for every calendar-year it was asked, with no bound: one
 * client asking year after year of hundreds of calendars grew the process
 * by gigabytes (issue 24). A thread that has answered this many is retired: new questions
 * go to a fresh thread (the dataset loads again, once), the old one answers what it was
 * asked and is ended, and its heap goes back to the system. The answers stay remembered
 * in `source`, whose own cache is bounded (lib/public-holidays.ts).
 */
export const HOLIDAY_RECYCLE_AFTER = 2000;

/**
 * Where the thread's code is. Run from source, beside this file. In a binary from
 * `bun build --compile` every module is under /$bunfs/root/ by its path from the project
 * root. In a bundle (dist/lib, the package's library, and dist/cli, its command line) this
 * code sits in a file one folder below the bundle's root, and the thread, an entry point
 * of its own (scripts/build-library.ts, scripts/build.ts), is built to adapters/holiday-thread.js.
 */
function defaultThreadUrl(): URL | string {
  const here = import.meta.url;
  if (new URL(here).pathname.startsWith("/$bunfs/")) return "/$bunfs/root/adapters/holiday-thread.ts";
  return here.endsWith(".ts") ? new URL("./holiday-thread.ts", here) : new URL("../adapters/holiday-thread.js", here);
}

export interface HolidayWorkerOptions {
  /** How long the thread may go without answering while questions wait; HOLIDAY_TIMEOUT_MS by default. */
  timeoutMs?: number;
  /** Where the thread's code is; the default is holiday-thread.ts beside this file. */
  threadUrl?: URL | string;
  /** How much of the thread's time `prefetch` may spend in all; PREFETCH_BUDGET_MS by default. */
  prefetchBudgetMs?: number;
  /** How long the thread may sit idle before it is ended (a later question starts another); HOLIDAY_IDLE_MS by default. */
  idleMs?: number;
  /** How many calendar-years a thread computes before a fresh one takes over; HOLIDAY_RECYCLE_AFTER by default. */
  recycleAfter?: number;
}

export interface HolidayWorker {
  /** Cached: each calendar-year is asked of the thread once. */
  source: PublicHolidaySource;
  /**
   * Computes these calendar-years into `source`'s memory in the background, in the order
   * given: one at a time and only while no request waits on the thread, only for calendars
   * already computed once at no more than PREFETCH_CALENDAR_MS a year, until the prefetch
   * budget (PREFETCH_BUDGET_MS unless set) of the thread's time is spent. Replaces what an
   * earlier call left. Resolves when it stops: done, out of budget, replaced or closed.
   */
  prefetch(calendarYears: Iterable<readonly [calendar: string, year: number]>): Promise<void>;
  /** Ends the thread; a later request starts a new one. */
  close(): Promise<void>;
  /** Whether a thread is running now: from the first question until it has sat idle for `idleMs`, or is closed. */
  readonly running: boolean;
  /** How many threads this worker has started so far (each recycling starts one). */
  readonly threadsStarted: number;
}

interface Waiting {
  resolve: (holidays: readonly PublicHoliday[]) => void;
  reject: (error: Error) => void;
  calendar: string;
  /** Asked by `prefetch`, whose budget its time counts against. */
  ahead: boolean;
  /** The thread asked: a retired one answers what it was asked before it is ended. */
  worker: Worker;
}

export function createHolidayWorker(options: HolidayWorkerOptions = {}): HolidayWorker {
  const timeoutMs = options.timeoutMs ?? HOLIDAY_TIMEOUT_MS;
  const threadUrl = options.threadUrl ?? defaultThreadUrl();
  const prefetchBudgetMs = options.prefetchBudgetMs ?? PREFETCH_BUDGET_MS;
  const idleMs = options.idleMs ?? HOLIDAY_IDLE_MS;
  const recycleAfter = options.recycleAfter ?? HOLIDAY_RECYCLE_AFTER;
  let thread: Worker | undefined;
  let threadReady = false;
  /** What the current thread has answered, towards `recycleAfter`. */
  let answered = 0;
  let threadsStarted = 0;
  /** Threads that new questions no longer go to, each ended once it has answered what it was asked. */
  const retired = new Set<Worker>();
  const endIfDone = (worker: Worker) => {
    if (!retired.has(worker) || [...waiting.values()].some((w) => w.worker === worker)) return;
    retired.delete(worker);
    void worker.terminate();
  };
  let nextId = 1;
  const waiting = new Map<number, Waiting>();
  // One timer for the thread's progress, not one per question: a queue of slow
  // calendar-years is progress; a thread that answers nothing at all is stuck.
  let stuckTimer: ReturnType<typeof setTimeout> | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  /** Called whenever the last waiting question is answered: a thread with nothing to do is ended after `idleMs`. */
  function watchIdle(): void {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    if (thread === undefined || waiting.size > 0) return;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      if (waiting.size === 0) void stop(new Error("public holidays: the worker thread was idle"));
    }, idleMs);
    idleTimer.unref?.();
  }

  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
    watchProgress();
  };

  function watchProgress(): void {
    clearTimeout(stuckTimer);
    stuckTimer = undefined;
    if (waiting.size === 0 || !threadReady) return;
    stuckTimer = setTimeout(() => {
      void stop(new Error(`public holidays: the worker thread answered nothing for ${timeoutMs} ms and was restarted`));
    }, timeoutMs);
    stuckTimer.unref?.();
  }

  const stop = (error: Error) => {
    clearTimeout(idleTimer);
    idleTimer = undefined;
    const ending = [...retired, ...(thread ? [thread] : [])];
    retired.clear();
    thread = undefined;
    threadReady = false;
    failAll(error);
    return Promise.all(ending.map((worker) => worker.terminate())).then(() => undefined);
  };

  const start = (): Worker => {
    const worker = new Worker(threadUrl);
    answered = 0;
    threadsStarted++;
    // The thread must never keep a stopping server alive.
    worker.unref();
    worker.on("message", (answer: HolidayAnswer) => {
      if ("ready" in answer) {
        if (worker === thread) threadReady = true;
        watchProgress();
        return;
      }
      const w = waiting.get(answer.id);
      if (!w) return;
      waiting.delete(answer.id);
      if (worker === thread) answered++;
      else endIfDone(worker);
      watchProgress();
      if ("error" in answer) w.reject(new Error(`public holidays: ${answer.error}`));
      else {
        // The least seen, so that one slow moment (a collection) does not stop a cheap
        // calendar's prefetch. A thread that reports no time (a test's stand-in) is taken as too slow.
        costs.set(w.calendar, Math.min(costs.get(w.calendar) ?? Number.POSITIVE_INFINITY, answer.ms ?? Number.POSITIVE_INFINITY));
        if (w.ahead) aheadSpentMs += answer.ms ?? 0;
        w.resolve(answer.holidays);
      }
      prefetchNext();
      watchIdle();
    });
    worker.on("error", (error: Error) => {
      if (thread === worker) void stop(new Error(`public holidays: the worker thread failed: ${error.message}`));
    });
    worker.on("exit", (code) => {
      if (thread === worker) {
        thread = undefined;
        threadReady = false;
        failAll(new Error(`public holidays: the worker thread exited (code ${code})`));
      }
    });
    return worker;
  };

  // Set only while `prefetchNext` asks the cache, which calls `ask` at once when it has no answer.
  let askingAhead = false;
  const ask = (calendar: string, year: number): Promise<readonly PublicHoliday[]> =>
    new Promise((resolve, reject) => {
      if (thread !== undefined && answered >= recycleAfter) {
        retired.add(thread);
        endIfDone(thread);
        thread = undefined;
        threadReady = false;
      }
      thread ??= start();
      clearTimeout(idleTimer);
      idleTimer = undefined;
      const id = nextId++;
      waiting.set(id, { resolve, reject, calendar, ahead: askingAhead, worker: thread });
      if (waiting.size === 1) watchProgress();
      thread.postMessage({ id, calendar, year } satisfies HolidayQuestion);
    });
  const source = createPublicHolidayCache(ask);

  /** Each calendar's least cost, in the thread, of a calendar-year. */
  const costs = new Map<string, number>();
  let ahead: { items: Iterator<readonly [string, number]>; stopped: () => void } | undefined;
  let aheadSpentMs = 0;
  const stopPrefetch = () => {
    const stopping = ahead;
    ahead = undefined;
    stopping?.stopped();
  };

  function prefetchNext(): void {
    while (ahead !== undefined && waiting.size === 0) {
      const next = aheadSpentMs < prefetchBudgetMs ? ahead.items.next() : undefined;
      if (next === undefined || next.done) {
        stopPrefetch();
        return;
      }
      const [calendar, year] = next.value;
      if ((costs.get(calendar) ?? Number.POSITIVE_INFINITY) > PREFETCH_CALENDAR_MS) continue;
      askingAhead = true;
      const answer = source(calendar, year);
      askingAhead = false;
      // Remembered or not asked: on to the next. Asked: its answer calls prefetchNext again
      // (the thread's message handler), and so does its failure (a thread ended meanwhile).
      if (answer instanceof Promise) answer.catch(() => prefetchNext());
    }
  }

  return {
    source,
    prefetch(calendarYears) {
      stopPrefetch();
      return new Promise((stopped) => {
        ahead = { items: calendarYears[Symbol.iterator](), stopped };
        prefetchNext();
      });
    },
    close: () => {
      stopPrefetch();
      return stop(new Error("public holidays: the worker thread was closed"));
    },
    get running() {
      return thread !== undefined;
    },
    get threadsStarted() {
      return threadsStarted;
    },
  };
}

/** How far from this year `warmHolidays` computes ahead, budget permitting: a working life either side. */
export const PREFETCH_YEARS = 50;

/**
 * Answers once, at start, the holiday question a server is likeliest to be asked first:
 * every organisation's holidays from the start of last year to the end of next. Their
 * calendar-years are then computed (in the thread) and remembered, and the statements and
 * code of the holidays route are warm, so that a client's first request finds them ready
 * (bench/RESULTS.md, target 9). In the background: the event loop only passes messages.
 *
 * With `prefetch` (a HolidayWorker's), it then hands it, and waits for, the calendars the
 * organisations' employees observe over PREFETCH_YEARS either side, nearest years first:
 * a year is five or so calendar-years, together more than a first request may take, so
 * years are computed before they are asked, while the thread is idle, within the
 * prefetch budget.
 */
export async function warmHolidays(
  source: PublicHolidaySource,
  store: Pick<AdminStore, "listOrganisations"> & Pick<Store, "observedCalendars" | "listClosureDays" | "listImportedPublicHolidays">,
  now: number,
  prefetch?: HolidayWorker["prefetch"],
): Promise<void> {
  const year = new Date(now).getUTCFullYear();
  const calendars = new Set<string>();
  for (const organisation of await store.listOrganisations()) {
    await listHolidays(store, organisation.id, { from: `${year - 1}-01-01`, to: `${year + 1}-12-31` }, source);
    if (!prefetch) continue;
    const around = await store.observedCalendars(organisation.id, `${year - PREFETCH_YEARS}-01-01`, `${year + PREFETCH_YEARS}-12-31`);
    for (const calendar of around) calendars.add(calendar);
  }
  await prefetch?.(yearsOutward(year, [...calendars]));
}

/** Each calendar for this year ± 2, ± 3, ... ± PREFETCH_YEARS, nearest first. */
function* yearsOutward(year: number, calendars: readonly string[]): Generator<readonly [string, number]> {
  for (let distance = 2; distance <= PREFETCH_YEARS; distance++) {
    for (const y of [year + distance, year - distance]) for (const calendar of calendars) yield [calendar, y];
  }
}
