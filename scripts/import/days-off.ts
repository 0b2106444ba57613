/**
 * The dates a booking never counts (docs/api.md, "Leave bookings"), as seen inside the import's
 * transaction: the effective public holidays of the employee's calendar (the
 * organisation's imported set for a year, else the shipped one) and the company closure
 * days that apply to the employee's department. Closure days are read once per import;
 * public holidays once per (calendar, year); the sets are cached per combination, which
 * stays small (calendars × departments × year spans), as day numbers so that counting a
 * booking's days formats no date.
 */
import type { EmployeeCalendarFacts, ImportWriter } from "../../lib/admin-store.ts";
import { closureAppliesTo, effectivePublicHolidays } from "../../lib/holidays.ts";
import { countLeaveDaysBy, type BookingSpan } from "../../lib/leave-days.ts";
import type { ClosureDayRecord } from "../../lib/records.ts";
import { EARLIEST_DATE, parseDate, yearOf } from "../../lib/dates.ts";

const CACHE_LIMIT = 1000;

export function createDaysCounter(writer: ImportWriter, organisationId: string) {
  let closures: ClosureDayRecord[] | null = null;
  const publicDates = new Map<string, string[]>();
  const daysOffSets = new Map<string, ReadonlySet<number>>();

  async function publicHolidayDates(calendar: string, year: number): Promise<string[]> {
    const key = `${calendar}|${year}`;
    let dates = publicDates.get(key);
    if (!dates) {
      const imported = await writer.listImportedPublicHolidays(organisationId, [calendar], year, year);
      dates = (await effectivePublicHolidays(calendar, year, year, imported)).map((h) => h.date);
      publicDates.set(key, dates);
    }
    return dates;
  }

  async function loadDaysOff(key: string, facts: EmployeeCalendarFacts, fromYear: number, toYear: number): Promise<ReadonlySet<number>> {
    closures ??= await writer.listClosureDays(organisationId, EARLIEST_DATE, "9999-12-31");
    const set = new Set<number>();
    for (const c of closures) if (closureAppliesTo(c, facts.department)) set.add(parseDate(c.date)!);
    if (facts.holiday_calendar !== null) {
      for (let year = fromYear; year <= toYear; year++) {
        for (const date of await publicHolidayDates(facts.holiday_calendar, year)) set.add(parseDate(date)!);
      }
    }
    if (daysOffSets.size >= CACHE_LIMIT) daysOffSets.clear();
    daysOffSets.set(key, set);
    return set;
  }

  /**
   * The leave days of `span` for an employee with these facts: a number when their days
   * off are already known, as they nearly always are, so a large import awaits only the
   * first booking of each combination.
   */
  return function countDays(span: BookingSpan, facts: EmployeeCalendarFacts): number | Promise<number> {
    const [fromYear, toYear] = [yearOf(span.start_date), yearOf(span.end_date)];
    const key = `${facts.holiday_calendar ?? ""}|${facts.department ?? ""}|${fromYear}|${toYear}`;
    const known = daysOffSets.get(key);
    if (known) return countLeaveDaysBy(span, (day) => known.has(day));
    return loadDaysOff(key, facts, fromYear, toYear).then((set) => countLeaveDaysBy(span, (day) => set.has(day)));
  };
}
