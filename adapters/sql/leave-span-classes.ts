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
 * So the index leads with each booking's span class (an expression over its dates: 0
 * for one-day bookings, then one class per doubling of the span). The page query
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

/**
 * The class of end_date - start_date. The page index is built on this expression and
 * the page query repeats it word for word, which is how the planner matches the two.
 */
export function spanClassExpression(caps: SqlCapabilities): string {
  const span = caps.dialect === "postgres" ? "(end_date - start_date)" : "(julianday(end_date) - julianday(start_date))";
  const cases: string[] = [];
  for (let c = 0; c <= LAST_BOUNDED_CLASS; c++) cases.push(`when ${span} < ${2 ** c} then ${c}`);
  return `case ${cases.join(" ")} else ${LAST_BOUNDED_CLASS + 1} end`;
}

/**
 * The leave page's index: the scan's keys first (organisation, class, then page order,
 * then the overlap test's end_date), then every other column the page filters on or
 * returns, so that a page never reads the table. "span_class" stands for
 * spanClassExpression().
 */
export const LEAVE_PAGE_INDEX_COLUMNS = [
  "organisation_id",
  "span_class",
  "start_date",
  "id",
  "end_date",
  "deleted_at",
  "employee_id",
  "leave_type_id",
  "status",
  "updated_at",
  "days",
  "start_half_day",
  "start_half_period",
  "end_half_day",
  "end_half_period",
  "requested_at",
  "reviewed_at",
  "cancelled_at",
] as const;
