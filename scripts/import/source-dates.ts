/**
 * Dates as other systems write them (`dates` in a `--map`, or `--date-format`), turned
 * into our `YYYY-MM-DD`. Only a real calendar date is taken: `31/02/2021` is refused, and
 * named as the file wrote it. A date already in
 * `YYYY-MM-DD` is taken whatever the format, as a spreadsheet's date cells come that way.
 */
import { isDate } from "../../lib/dates.ts";
import type { DateFormat } from "./import-map.ts";

/** For each format: its pattern and where year, month and day are among the groups. */
const PATTERNS: Record<Exclude<DateFormat, "YYYY-MM-DD">, { pattern: RegExp; year: number; month: number; day: number }> = {
  "DD/MM/YYYY": { pattern: /^(\d{2})\/(\d{2})\/(\d{4})$/, day: 1, month: 2, year: 3 },
  "MM/DD/YYYY": { pattern: /^(\d{2})\/(\d{2})\/(\d{4})$/, month: 1, day: 2, year: 3 },
  "DD.MM.YYYY": { pattern: /^(\d{2})\.(\d{2})\.(\d{4})$/, day: 1, month: 2, year: 3 },
  "YYYY/MM/DD": { pattern: /^(\d{4})\/(\d{2})\/(\d{2})$/, year: 1, month: 2, day: 3 },
  "D/M/YYYY": { pattern: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, day: 1, month: 2, year: 3 },
  "M/D/YYYY": { pattern: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, month: 1, day: 2, year: 3 },
};
const ISO = /^\d{4}-\d{2}-\d{2}$/;

/** `text`, a real date in `format`, as `YYYY-MM-DD`; `null` when it is not one (`31/02/2021`, `2021-13-01`, `soon`). */
export function toIsoDate(text: string, format: DateFormat): string | null {
  const iso = rewrite(text, format);
  return iso !== null && isDate(iso) ? iso : null;
}

function rewrite(text: string, format: DateFormat): string | null {
  if (ISO.test(text)) return text;
  if (format === "YYYY-MM-DD") return null;
  const { pattern, year, month, day } = PATTERNS[format];
  const parts = pattern.exec(text);
  if (parts === null) return null;
  return `${parts[year]}-${parts[month]!.padStart(2, "0")}-${parts[day]!.padStart(2, "0")}`;
}

/** What a date that does not fit `format` is told, with the nearby format when one would fit. */
export function notInFormat(format: DateFormat, text: string): string {
  const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  const lenient = format === "DD/MM/YYYY" ? "D/M/YYYY" : format === "MM/DD/YYYY" ? "M/D/YYYY" : null;
  const hint = lenient && toIsoDate(text, lenient) !== null ? ` (for days and months of one digit, use ${lenient})` : "";
  return `must be a real date ${format}, not ${shown}${hint}`;
}

/**
 * The formats `text` is a real date in, for the hint that names the map's `"dates"`:
 * `15.01.2020` is DD.MM.YYYY, `03/02/2026` either DD/MM/YYYY or MM/DD/YYYY; a one-digit
 * format only where no two-digit one fits.
 */
export function formatsOf(text: string): DateFormat[] {
  const fits = (Object.keys(PATTERNS) as (keyof typeof PATTERNS)[]).filter((f) => toIsoDate(text, f) !== null && !ISO.test(text));
  const strict = fits.filter((f) => !f.startsWith("D/") && !f.startsWith("M/"));
  return strict.length > 0 ? strict : fits;
}
