/**
 * createHolidayWorker: public holidays computed in a worker thread give the same answer
 * as in this thread, the event loop stays free while a lunar calendar is worked out, years
 * are computed ahead only for cheap calendars, a thread that stops answering is ended
 * and replaced, and an idle thread is ended to give its memory back.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createHolidayWorker, PREFETCH_YEARS, warmHolidays, type HolidayWorker } from "../adapters/holiday-worker.ts";
import { computePublicHolidays } from "../lib/shipped-holidays.ts";
import { createOrganisation, createWorld, employee, seed } from "./support.ts";

let worker: HolidayWorker | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
});

describe("createHolidayWorker", () => {
  test("answers as the in-thread computation does", async () => {
    worker = createHolidayWorker();
    for (const [calendar, year] of [
      ["TW", 2026],
      ["DE-BY", 2027],
      ["GB-ENG", 1900],
      ["ZZ", 2026],
    ] as const) {
      expect(await worker.source(calendar, year)).toEqual(computePublicHolidays(calendar, year));
    }
  });

  test("a thread that has computed its share is retired for a fresh one, and no question in flight is lost (the dataset's memory is bounded)", async () => {
    worker = createHolidayWorker({ recycleAfter: 20 });
    const asked: [string, number][] = [];
    for (const calendar of ["DE", "FR", "GB-ENG", "NL", "US"]) for (let year = 1950; year < 1964; year++) asked.push([calendar, year]);
    // Seven at a time, as concurrent requests ask: a thread is retired with questions in flight.
    for (let i = 0; i < asked.length; i += 7) {
      const batch = asked.slice(i, i + 7);
      const answers = await Promise.all(batch.map(([calendar, year]) => worker!.source(calendar, year)));
      batch.forEach(([calendar, year], j) => expect(answers[j]).toEqual(computePublicHolidays(calendar, year)));
    }
    // 70 calendar-years at 20 a thread.
    expect(worker.threadsStarted).toBeGreaterThanOrEqual(3);
    expect(worker.running).toBe(true);
  });

  test("warmHolidays computes every observed calendar for last, this and next year, so their first request is answered from memory", async () => {
    worker = createHolidayWorker();
    const world = await createWorld();
    const organisationId = await createOrganisation(world);
    await seed(world, organisationId, { employees: [employee({ holiday_calendar: "DE-BY", start_date: "2000-01-01" })] });
    await warmHolidays(worker.source, world.store, Date.parse("2026-06-01T00:00:00Z"));
    for (const year of [2025, 2026, 2027]) {
      // Remembered: answered at once, not as a promise of the thread's answer.
      const answer = worker.source("DE-BY", year);
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer).toEqual(computePublicHolidays("DE-BY", year));
    }
    const notWarmed = worker.source("DE-BY", 2028);
    expect(notWarmed).toBeInstanceOf(Promise);
    await notWarmed;
  });

  /** An organisation whose employees observe a cheap calendar (DE-BY) and a lunar one (TW). */
  async function storeObservingDeByAndTw() {
    const world = await createWorld();
    const organisationId = await createOrganisation(world);
    await seed(world, organisationId, {
      employees: [employee({ holiday_calendar: "DE-BY", start_date: "2000-01-01" }), employee({ holiday_calendar: "TW", start_date: "2000-01-01" })],
    });
    return world.store;
  }
  const now = Date.parse("2026-06-01T00:00:00Z");

  test("warmHolidays with prefetch computes the observed calendars' years around this one, and never a lunar calendar's", async () => {
    // A budget no loaded machine exhausts: what is computed ahead depends on the rules alone.
    worker = createHolidayWorker({ prefetchBudgetMs: 60_000 });
    const store = await storeObservingDeByAndTw();
    // A request while the prefetch runs is answered as ever.
    const [, during] = await Promise.all([warmHolidays(worker.source, store, now, worker.prefetch), worker.source("FR", 1990)]);
    expect(during).toEqual(computePublicHolidays("FR", 1990));
    for (const year of [2028, 2001, 1976, 2076]) {
      const answer = worker.source("DE-BY", year);
      expect(answer).not.toBeInstanceOf(Promise);
      expect(answer).toEqual(computePublicHolidays("DE-BY", year));
    }
    // Beyond PREFETCH_YEARS, and a calendar whose years cost far more than PREFETCH_CALENDAR_MS.
    for (const [calendar, year] of [
      ["DE-BY", 2026 + PREFETCH_YEARS + 1],
      ["TW", 2028],
    ] as const) {
      const notAhead = worker.source(calendar, year);
      expect(notAhead).toBeInstanceOf(Promise);
      await notAhead;
    }
  });

  test("prefetch stops when its budget is spent", async () => {
    worker = createHolidayWorker({ prefetchBudgetMs: 0 });
    await warmHolidays(worker.source, await storeObservingDeByAndTw(), now, worker.prefetch);
    expect(worker.source("DE-BY", 2027)).not.toBeInstanceOf(Promise);
    const notAhead = worker.source("DE-BY", 2028);
    expect(notAhead).toBeInstanceOf(Promise);
    await notAhead;
  });

  test("keeps the event loop turning while the thread computes lunar calendars", async () => {
    worker = createHolidayWorker();
    // Four first-time lunar calendar-years, the slowest there are, in the thread. Count how many
    // times a zero-delay timer fires meanwhile: an event loop blocked by the computation
    // would fire it about once per await.
    let turns = 0;
    let computing = true;
    const tick = () => {
      turns++;
      if (computing) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    await Promise.all([worker.source("TW", 2031), worker.source("HK", 2031), worker.source("VN", 2031), worker.source("CN", 2031)]);
    computing = false;
    expect(turns).toBeGreaterThan(20);
  });

  /** Resolves once `condition` holds; fails the test if it has not within `withinMs` (a deadline, not a measurement). */
  async function eventually(condition: () => boolean, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
      await Bun.sleep(5);
    }
  }

  test("ends a thread that has sat idle, keeps what it computed, and starts another for a new calendar-year", async () => {
    worker = createHolidayWorker({ idleMs: 50 });
    expect(worker.running).toBe(false);
    const first = await worker.source("DE-BY", 2026);
    // Only once nothing waits: a busy thread is never ended for idleness.
    expect(worker.running).toBe(true);
    await eventually(() => !worker!.running, 5_000);
    // Remembered in this thread: answered at once, with no thread started for it.
    const remembered = worker.source("DE-BY", 2026);
    expect(remembered).not.toBeInstanceOf(Promise);
    expect(remembered).toEqual(first);
    expect(worker.running).toBe(false);
    // Not yet computed: a fresh thread answers it.
    expect(await worker.source("DE-BY", 2040)).toEqual(computePublicHolidays("DE-BY", 2040));
    expect(worker.running).toBe(true);
  });

  test("is not ended for idleness while a prefetch keeps it busy", async () => {
    // A prefetch of many cheap calendar-years takes far longer than the idle time in all.
    worker = createHolidayWorker({ idleMs: 1, prefetchBudgetMs: 60_000 });
    // A calendar is computed ahead only once a year of it cost at most PREFETCH_CALENDAR_MS
    // (the least seen): several years first, so that a loaded moment cannot rule DE-BY out.
    for (const year of [2020, 2021, 2022, 2023, 2024, 2025, 2026, 2027]) await worker.source("DE-BY", year);
    const years = Array.from({ length: 200 }, (_, i) => ["DE-BY", 1900 + i] as const);
    await worker.prefetch(years);
    // Every calendar-year was computed by the thread, none failed for the thread ending under it.
    for (const [calendar, year] of years) expect(worker.source(calendar, year)).not.toBeInstanceOf(Promise);
  });

  test("ends a thread that answers nothing, fails what waited, and starts afresh", async () => {
    worker = createHolidayWorker({ timeoutMs: 300, threadUrl: new URL("./fixtures/stuck-holiday-thread.ts", import.meta.url) });
    const [stuck, queued] = await Promise.allSettled([worker.source("ZZ", 2026), worker.source("DE", 2026)]);
    for (const outcome of [stuck, queued]) {
      expect(outcome.status).toBe("rejected");
      expect(String((outcome as PromiseRejectedResult).reason)).toContain("answered nothing for 300 ms");
    }
    expect(await worker.source("DE", 2026)).toEqual(computePublicHolidays("DE", 2026));
  });
});
