/**
 * The span classes of leave-span-plan.ts in SQL: the expression that gives a booking's
 * class, and the leave page's index that leads with it (migration 0002, which holds both
 * as the literal SQL it shipped with). The page query (leave-page-queries.ts) scans the
 * index one class at a time.
 */
import { classMaxSpan, LAST_BOUNDED_CLASS } from "./leave-span-plan.ts";
import type { SqlCapabilities } from "../capabilities.ts";

/**
 * The class of end_date - start_date, as leave-span-plan.ts's spanClassOf. The page
 * index holds this expression, as migration 0002 wrote it out, and the page query repeats
 * it word for word, which is how the planner matches the two: its text must never change.
 * test/migrations-frozen.pg.test.ts checks, on both dialects, that the migrated index is
 * built on exactly this expression and that a page query plans on it.
 */
export function spanClassExpression(caps: SqlCapabilities): string {
  const span = caps.dialect === "postgres" ? "(end_date - start_date)" : "(julianday(end_date) - julianday(start_date))";
  const cases: string[] = [];
  for (let c = 0; c <= LAST_BOUNDED_CLASS; c++) cases.push(`when ${span} < ${classMaxSpan(c) + 1} then ${c}`);
  return `case ${cases.join(" ")} else ${LAST_BOUNDED_CLASS + 1} end`;
}

/**
 * The leave page's index: the scan's keys first (organisation, class, then page order,
 * then the overlap test's end_date), then every other column the page filters on or
 * returns (the booking's body as text, ../record-bodies.ts), so that a page never reads
 * the table. Read by rowid or heap pointer instead, the bodies of a page's rows cost more
 * than the index's width saves an import (bench/RESULTS.md, "The body out of the page
 * index"). "span_class" stands for spanClassExpression(). Migration 0006 froze this
 * list (0002's held the body's columns); test/migrations-frozen.pg.test.ts holds the
 * migrated index to it.
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
  "rendered",
] as const;
