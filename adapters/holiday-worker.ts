/**
 * Public holidays computed in a worker thread (node:worker_threads, which Bun, Node and
 * Deno all provide), so that no request holds the event loop while the dataset works
 * out a lunar calendar (up to ~200 ms for one calendar-year). `leaveapi serve` passes
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

/** Far above the slowest calendar-year (~0.2 s alone, 1.7 s seen on a loaded machine), so only a thread that truly spins is ended. */
export const HOLIDAY_TIMEOUT_MS = 15_000;

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
}

export interface HolidayWorker {
  /** Cached: each calendar-year is asked of the thread once. */
  source: PublicHolidaySource;
  /** Ends the thread; a later request starts a new one. */
  close(): Promise<void>;
}

interface Waiting {
  resolve: (holidays: readonly PublicHoliday[]) => void;
  reject: (error: Error) => void;
}

export function createHolidayWorker(options: HolidayWorkerOptions = {}): HolidayWorker {
  const timeoutMs = options.timeoutMs ?? HOLIDAY_TIMEOUT_MS;
  const threadUrl = options.threadUrl ?? defaultThreadUrl();
  let thread: Worker | undefined;
  let threadReady = false;
  let nextId = 1;
  const waiting = new Map<number, Waiting>();
  // One timer for the thread's progress, not one per question: a queue of slow
  // calendar-years is progress; a thread that answers nothing at all is stuck.
  let stuckTimer: ReturnType<typeof setTimeout> | undefined;

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
    const ending = thread;
    thread = undefined;
    threadReady = false;
    failAll(error);
    return ending?.terminate().then(() => undefined) ?? Promise.resolve();
  };

  const start = (): Worker => {
    const worker = new Worker(threadUrl);
    // The thread must never keep a stopping server alive.
    worker.unref();
    worker.on("message", (answer: HolidayAnswer) => {
      if ("ready" in answer) {
        threadReady = true;
        watchProgress();
        return;
      }
      const w = waiting.get(answer.id);
      if (!w) return;
      waiting.delete(answer.id);
      watchProgress();
      if ("error" in answer) w.reject(new Error(`public holidays: ${answer.error}`));
      else w.resolve(answer.holidays);
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

  const ask = (calendar: string, year: number): Promise<readonly PublicHoliday[]> =>
    new Promise((resolve, reject) => {
      thread ??= start();
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      if (waiting.size === 1) watchProgress();
      thread.postMessage({ id, calendar, year } satisfies HolidayQuestion);
    });

  return {
    source: createPublicHolidayCache(ask),
    close: () => stop(new Error("public holidays: the worker thread was closed")),
  };
}

/**
 * Answers once, at start, the holiday question a server is likeliest to be asked first:
 * every organisation's holidays from the start of last year to the end of next. Their
 * calendar-years are then computed (in the thread) and remembered, and the statements and
 * code of the holidays route are warm, so that a client's first request finds them ready
 * (bench/RESULTS.md, target 9). In the background: the event loop only passes messages.
 */
export async function warmHolidays(
  source: PublicHolidaySource,
  store: Pick<AdminStore, "listOrganisations"> & Pick<Store, "observedCalendars" | "listClosureDays" | "listImportedPublicHolidays">,
  now: number,
): Promise<void> {
  const year = new Date(now).getUTCFullYear();
  for (const organisation of await store.listOrganisations()) {
    await listHolidays(store, organisation.id, { from: `${year - 1}-01-01`, to: `${year + 1}-12-31` }, source);
  }
}
