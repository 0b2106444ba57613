/**
 * Calendar dates and instants. A date is handled as a day number (days since 1970-01-01)
 * so ranges, weekdays and overlaps are integer arithmetic with no time zone involved.
 */

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Day number of a strict `YYYY-MM-DD` that names a real calendar date in years 0001–9999,
 * else `null`. Year 0000 is refused: Postgres has no year zero and would fail the query.
 */
export function parseDate(text: string): number | null {
  const m = DATE_PATTERN.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1) return null;
  // setUTCFullYear, not Date.UTC, which maps years 0–99 onto 1900–1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return Math.round(d.getTime() / 86_400_000);
}

export function isDate(text: string): boolean {
  return parseDate(text) !== null;
}

export function formatDay(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

export const EARLIEST_DATE = "0001-01-01";
const EARLIEST_DAY = parseDate(EARLIEST_DATE)!;

/** The date `days` later (or earlier), never before 0001-01-01. */
export function addDays(date: string, days: number): string {
  return formatDay(Math.max(EARLIEST_DAY, parseDate(date)! + days));
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

const DATE_TIME_PATTERN =
  /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time with `Z` or a `±hh:mm` offset as an instant in whole milliseconds,
 * rounded up: "at or after" a sub-millisecond instant keeps exactly the records at or
 * after it, since stored instants are whole milliseconds. `null` when malformed or
 * without an offset.
 */
export function parseInstantCeil(text: string): number | null {
  const m = DATE_TIME_PATTERN.exec(text);
  if (!m) return null;
  const day = parseDate(m[1]!);
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (day === null || hour > 23 || minute > 59 || second > 60) return null;
  // RFC 3339 allows any number of fraction digits: whole milliseconds, plus one if anything finer is not zero.
  const fraction = m[5] ?? "";
  const millis = Number(fraction.slice(0, 3).padEnd(3, "0")) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  let offsetMinutes = 0;
  if (!m[6]) {
    const [oh, om] = [Number(m[8]), Number(m[9])];
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[7] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  // A leap second (:60) is read as the first instant of the next minute.
  const seconds = day * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  return seconds * 1000 + millis;
}

/** RFC 3339 in UTC with milliseconds: `2026-03-01T09:30:00.000Z` (DECISIONS §1). */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString();
}
