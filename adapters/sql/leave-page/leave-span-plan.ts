/**
 * Span classes: how the overlap scan of GET /v1/leave-requests stays cheap however many
 * bookings an organisation has. This is the plan, as data; a store executes it (the SQL
 * store: leave-page-queries.ts, over the index of leave-span-classes.ts).
 *
 * A booking overlaps [from, to] when start_date <= to and end_date >= from. Keyset order
 * is (start_date, id), so the scan runs over start_date; its lower end has to reach back
 * by the longest booking's span, and every shorter booking that starts in that stretch
 * and ends before `from` is read and thrown away. With one six-month absence among a
 * million one-week bookings, that is six months of bookings read for every page.
 *
 * So bookings are put in span classes (0 for one-day bookings, then one class per
 * doubling of the span), and the page scans each class on its own, reaching back only by
 * the longest span among that class's bookings (which the store keeps as it writes them),
 * and merges the classes in (start_date, id) order. What is thrown away is then at most
 * about as many bookings as actually straddle `from`, not six months' worth.
 */
import { addDays } from "../../../lib/dates.ts";

/** Classes 0..LAST_BOUNDED_CLASS hold spans below 2^class days; the last class holds the rest. */
export const LAST_BOUNDED_CLASS = 9;
export const SPAN_CLASS_COUNT = LAST_BOUNDED_CLASS + 2;

/** The longest span (end_date - start_date, in days) a bounded class holds. */
export function classMaxSpan(spanClass: number): number {
  return 2 ** spanClass - 1;
}

/** The class of a booking whose end_date - start_date is `spanDays`. */
export function spanClassOf(spanDays: number): number {
  for (let c = 0; c <= LAST_BOUNDED_CLASS; c++) if (spanDays <= classMaxSpan(c)) return c;
  return LAST_BOUNDED_CLASS + 1;
}

/**
 * The longest span (end_date - start_date, in days) among each class's bookings, by class;
 * -1 for a class that holds none. A class's scan reaches back by its own longest booking,
 * not by the longest its class could hold: an organisation whose bookings take 8 or 9
 * days reads back 9 days for that class, not 15.
 */
export type ClassSpans = readonly number[];

/** No booking in any class. */
export const NO_SPANS: ClassSpans = Object.freeze(Array.from({ length: SPAN_CLASS_COUNT }, () => -1));

/** The class spans of bookings of these spans (days). */
export function classSpansOf(spans: Iterable<number>): number[] {
  const out = [...NO_SPANS];
  for (const span of spans) {
    const c = spanClassOf(span);
    out[c] = Math.max(out[c]!, span);
  }
  return out;
}

/** Whether, class by class, `wide` reaches back at least as far as `narrow`. */
export function spansCover(wide: ClassSpans, narrow: ClassSpans): boolean {
  return narrow.every((days, c) => (wide[c] ?? -1) >= days);
}

/**
 * One class's scan: its bookings from this position on in (start_date, id) order. Without
 * `afterId`, those with start_date ≥ `startDate`; with it, those strictly after
 * (`startDate`, `afterId`).
 */
export interface SpanClassArm {
  spanClass: number;
  startDate: string;
  afterId?: string;
}

/**
 * The arms of one leave page, one per class that holds a booking, in class order. Each
 * class is scanned from `from` minus its own longest booking's span (`ClassSpans`); a
 * class that holds none is not scanned (each class scanned costs the merge a level's
 * worth of work on every row). With no booking at all, class 0 from `from`: a query needs
 * an arm, and there it reads nothing. Past a cursor, each class starts at whichever is
 * later, the cursor or its own earliest start, as one (start_date, id) bound: given two
 * lower bounds on the index, a planner may seek to the looser and filter its way to the
 * cursor, making deep pages cost their depth.
 */
export function planLeaveScan(page: { from: string; after?: { startDate: string; id: string } }, spans: ClassSpans): SpanClassArm[] {
  const arms: SpanClassArm[] = [];
  for (let spanClass = 0; spanClass < SPAN_CLASS_COUNT; spanClass++) {
    const longest = spans[spanClass] ?? -1;
    if (longest < 0) continue;
    const earliest = addDays(page.from, -longest);
    if (!page.after) arms.push({ spanClass, startDate: earliest });
    else if (page.after.startDate >= earliest) arms.push({ spanClass, startDate: page.after.startDate, afterId: page.after.id });
    // Every id sorts after "", so this keeps every booking that starts on `earliest`.
    else arms.push({ spanClass, startDate: earliest, afterId: "" });
  }
  if (arms.length === 0) return planLeaveScan(page, [0]);
  return arms;
}
