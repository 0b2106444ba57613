/**
 * How many leave days a booking takes when the import does not say (docs/api.md, "Leave
 * bookings"): Monday–Friday dates in the range, minus the days off the employee has anyway
 * (public holidays of their calendar, company closure days that apply to them), minus half
 * a day for each half-day end that falls on a counted date.
 */
import { parseDate, formatDay, weekdayOfDay } from "./dates.ts";

export interface BookingSpan {
  start_date: string;
  end_date: string;
  start_half_day: boolean;
  end_half_day: boolean;
}

/** `daysOff` holds dates (`YYYY-MM-DD`) that are never counted. The result is a multiple of 0.5. */
export function countLeaveDays(span: BookingSpan, daysOff: ReadonlySet<string>): number {
  return countLeaveDaysBy(span, (day) => daysOff.has(formatDay(day)));
}

/**
 * `countLeaveDays` with the days off as a test on day numbers (see `parseDate`): an import
 * asks it for every date of a million bookings, and formatting each date would cost more
 * than the count.
 */
export function countLeaveDaysBy(span: BookingSpan, isDayOff: (day: number) => boolean): number {
  const first = parseDate(span.start_date)!;
  const last = parseDate(span.end_date)!;
  const counts = (day: number) => {
    const weekday = weekdayOfDay(day);
    return weekday !== 0 && weekday !== 6 && !isDayOff(day);
  };
  let days = 0;
  for (let day = first; day <= last; day++) if (counts(day)) days++;
  if (first === last) {
    // A one-day booking with a half-day flag on either end is half a day.
    return counts(first) && (span.start_half_day || span.end_half_day) ? 0.5 : days;
  }
  if (span.start_half_day && counts(first)) days -= 0.5;
  if (span.end_half_day && counts(last)) days -= 0.5;
  return days;
}
