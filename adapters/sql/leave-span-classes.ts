/**
 * Span classes: how the overlap scan of GET /v1/leave-requests stays cheap however many
 * bookings an organisation has.
 *
 * A booking overlaps [from, to] when start_date <= to and end_date >= from. Keyset order
 * is (start_date, id), so the scan runs over start_date; its lower end has to reach back
 * by the longest booking's span, and every shorter booking that starts in that stretch
 * and ends before `from` is read and thrown away. With one six-month absence among a
 * million one-week bookings, that is six months of bookings read for every page.
 *
 * So each booking carries its span's class (a generated column: 0 for one-day bookings,
 * then one class per doubling of the span) and the index leads with it. The page query
 * scans each class on its own, reaching back only by that class's longest span, and
 * merges the classes in (start_date, id) order. What is thrown away is then at most
 * about as many bookings as actually straddle `from`, not six months' worth.
 */
import type { SqlCapabilities } from "./capabilities.ts";

/** Classes 0..LAST_BOUNDED_CLASS hold spans below 2^class days; the last class holds the rest. */
export const LAST_BOUNDED_CLASS = 9;
export const SPAN_CLASS_COUNT = LAST_BOUNDED_CLASS + 2;

/** The longest span (end_date - start_date, in days) a bounded class holds. */
export function classMaxSpan(spanClass: number): number {
  return 2 ** spanClass - 1;
}

/** The generated column's expression: the class of end_date - start_date. */
export function spanClassExpression(caps: SqlCapabilities): string {
  const span = caps.dialect === "postgres" ? "(end_date - start_date)" : "(julianday(end_date) - julianday(start_date))";
  const cases: string[] = [];
  for (let c = 0; c <= LAST_BOUNDED_CLASS; c++) cases.push(`when ${span} < ${2 ** c} then ${c}`);
  return `case ${cases.join(" ")} else ${LAST_BOUNDED_CLASS + 1} end`;
}
