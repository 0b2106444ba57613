/**
 * The dates a booking never counts (DECISIONS §7), as seen inside the import's
 * transaction: the effective public holidays of the employee's calendar (the
 * organisation's imported set for a year, else the shipped one) and the company closure
 * days that apply to the employee's department. Closure days are read once per import;
 * public holidays once per (calendar, year); the sets are cached per combination, which
 * stays small (calendars × departments × year spans).
 */
import type { EmployeeCalendarFacts, ImportWriter } from "../../lib/admin-store.ts";
import { closureAppliesTo, effectivePublicHolidays } from "../../lib/holidays.ts";
import { countLeaveDays, type BookingSpan } from "../../lib/leave-days.ts";
import type { ClosureDayRecord } from "../../lib/records.ts";
import { EARLIEST_DATE, yearOf } from "../../lib/dates.ts";

const CACHE_LIMIT = 1000;

export function createDaysCounter(writer: ImportWriter, organisationId: string) {
  let closures: ClosureDayRecord[] | null = null;
  const publicDates = new Map<string, string[]>();
  const daysOffSets = new Map<string, ReadonlySet<string>>();

  async function publicHolidayDates(calendar: string, year: number): Promise<string[]> {
    const key = `${calendar}|${year}`;
    let dates = publicDates.get(key);
    if (!dates) {
      const imported = await writer.listImportedPublicHolidays(organisationId, [calendar], year, year);
      dates = effectivePublicHolidays(calendar, year, year, imported).map((h) => h.date);
      publicDates.set(key, dates);
    }
    return dates;
  }

  async function daysOff(facts: EmployeeCalendarFacts, fromYear: number, toYear: number): Promise<ReadonlySet<string>> {
    const key = `${facts.holiday_calendar ?? ""}|${facts.department ?? ""}|${fromYear}|${toYear}`;
    const cached = daysOffSets.get(key);
    if (cached) return cached;
    closures ??= await writer.listClosureDays(organisationId, EARLIEST_DATE, "9999-12-31");
    const set = new Set<string>();
    for (const c of closures) if (closureAppliesTo(c, facts.department)) set.add(c.date);
    if (facts.holiday_calendar !== null) {
      for (let year = fromYear; year <= toYear; year++) {
        for (const date of await publicHolidayDates(facts.holiday_calendar, year)) set.add(date);
      }
    }
    if (daysOffSets.size >= CACHE_LIMIT) daysOffSets.clear();
    daysOffSets.set(key, set);
    return set;
  }

  /** The leave days of `span` for an employee with these facts. */
  return async function countDays(span: BookingSpan, facts: EmployeeCalendarFacts): Promise<number> {
    return countLeaveDays(span, await daysOff(facts, yearOf(span.start_date), yearOf(span.end_date)));
  };
}
