/**
 * Calendar dates and instants. A date is handled as a day number (days since 1970-01-01)
 * so ranges, weekdays and overlaps are integer arithmetic with no time zone involved.
 */

/**
 * Day number of a strict `YYYY-MM-DD` that names a real calendar date in years 0001–9999,
 * else `null`. Year 0000 is refused: Postgres has no year zero and would fail the query.
 * Read digit by digit, with no RegExp or Date: an import parses several dates per row.
 */
export function parseDate(text: string): number | null {
  return text.length === 10 ? dayAt(text, 0) : null;
}

/** `parseDate` of the ten characters at `at`, read in place. */
function dayAt(text: string, at: number): number | null {
  if (text.charCodeAt(at + 4) !== 45 || text.charCodeAt(at + 7) !== 45) return null;
  const year = digitsAt(text, at, 4);
  const month = digitsAt(text, at + 5, 2);
  const day = digitsAt(text, at + 8, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return dayNumber(year, month, day);
}

/** The decimal value of `count` ASCII digits at `at`, or -1 when one is not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (year ≥ 1): H. Hinnant's days_from_civil. */
function dayNumber(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
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

const DATE_TIME_PATTERN = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time with `Z` or a `±hh:mm` offset as an instant in whole milliseconds,
 * rounded up: "at or after" a sub-millisecond instant keeps exactly the records at or
 * after it, since stored instants are whole milliseconds. `null` when malformed or
 * without an offset.
 */
export function parseInstantCeil(text: string): number | null {
  return parseCanonicalInstant(text) ?? parseAnyInstant(text);
}

/**
 * The form this API writes (`formatInstant`), read digit by digit: an import of an
 * export reads it three times per row. `null` for any other form, valid or not.
 */
function parseCanonicalInstant(text: string): number | null {
  if (text.length !== 24 || text[10] !== "T" || text[13] !== ":" || text[16] !== ":" || text[19] !== "." || text[23] !== "Z") return null;
  const day = dayAt(text, 0);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  const millis = digitsAt(text, 20, 3);
  if (day === null || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60 || millis < 0) return null;
  return (day * 86_400 + hour * 3600 + minute * 60 + second) * 1000 + millis;
}

function parseAnyInstant(text: string): number | null {
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

/**
 * RFC 3339 in UTC with milliseconds: `2026-03-01T09:30:00.000Z` (docs/api.md, "Rules for
 * every record").
 */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString();
}
