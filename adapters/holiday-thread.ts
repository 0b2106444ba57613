/**
 * The worker thread behind createHolidayWorker (holiday-worker.ts): computes one
 * calendar-year of shipped public holidays per message, so that the dataset's
 * astronomical calendars spend their CPU here and not on the server's event loop.
 */
import { parentPort } from "node:worker_threads";
import { computePublicHolidays, isShippedCalendar } from "../lib/shipped-holidays.ts";

export interface HolidayQuestion {
  id: number;
  calendar: string;
  year: number;
}

/** `ms`: how long the computation took here, which tells the parent which calendars are cheap to compute ahead. */
export type HolidayAnswer = { id: number; holidays: ReturnType<typeof computePublicHolidays>; ms?: number } | { id: number; error: string } | { ready: true };

parentPort?.on("message", ({ id, calendar, year }: HolidayQuestion) => {
  let answer: HolidayAnswer;
  try {
    const started = performance.now();
    const holidays = computePublicHolidays(calendar, year);
    answer = { id, holidays, ms: performance.now() - started };
  } catch (error) {
    answer = { id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  parentPort!.postMessage(answer);
});

// Loading the dataset takes a moment, done here rather than in the first question;
// the parent's stuck-thread timer starts only after this.
isShippedCalendar("GB");
parentPort?.postMessage({ ready: true } satisfies HolidayAnswer);
