/**
 * `observedCalendars` in the SQL store (docs/api.md, "Holidays"): the distinct non-null
 * holiday calendars of the organisation's non-deleted employees whose employment overlaps
 * [from, to]. Grouping the employees read every one of them (in a large organisation,
 * most of a first holiday request's time); this reads a few entries of the partial
 * index `employees_observed_calendars` (migration 0005) per calendar, whatever the
 * organisation's size:
 *
 * - a skip-scan finds the calendars: the least one, then the least one above the last
 *   found, one index seek each;
 * - for each, one seek asks for an employee with no start date, and one reads back from
 *   `to` for an employee who started by then: the latest hire before the range's end
 *   rarely left before its start, so the first entry read almost always answers. Only
 *   many leavers hired after every overlapping employee make it read further, and then
 *   still the index alone.
 *
 * test/observed-calendars-plan.pg.test.ts fails if a dialect's planner stops serving each of
 * these reads from the index.
 */
import { sql, type Expression, type RawBuilder } from "kysely";
import { defineQuery, rawQuery } from "./compiled-queries.ts";

/** The organisation's employees the index holds: each read repeats its condition, for the planner to see that it may use it. */
const indexedEmployeesOf = (organisationId: Expression<string>) =>
  sql`employees e where e.organisation_id = ${organisationId} and e.deleted_at is null and e.holiday_calendar is not null`;

/**
 * One step of the skip-scan: the least calendar of the organisation's indexed employees,
 * above `after` when given. An explicit ORDER BY and LIMIT rather than min(): Postgres
 * plans min() either way, and on a table it deems small, reads the organisation whole.
 */
export function nextCalendarSql(organisationId: Expression<string>, after?: Expression<string>): RawBuilder<{ holiday_calendar: string }> {
  const above = after === undefined ? sql`` : sql` and e.holiday_calendar > ${after}`;
  return sql`select e.holiday_calendar from ${indexedEmployeesOf(organisationId)}${above} order by e.holiday_calendar limit 1`;
}

/** The query over these values: slots in the store, literals in a plan test. */
export function observedCalendarsSql(organisationId: Expression<string>, from: Expression<string>, to: Expression<string>): RawBuilder<{ calendar: string }> {
  const ofCalendar = sql`${indexedEmployeesOf(organisationId)} and e.holiday_calendar = c.calendar`;
  const stillThere = sql`(e.leaving_date is null or e.leaving_date >= ${from})`;
  // Scalar subqueries with LIMIT 1, not EXISTS: SQLite drops the ORDER BY of an EXISTS,
  // and Postgres may turn an EXISTS into a hashed set of the whole organisation.
  return sql<{ calendar: string }>`
    with recursive calendars (calendar) as (
      select (${nextCalendarSql(organisationId)})
      union all
      select (${nextCalendarSql(organisationId, sql`c.calendar`)}) from calendars c where c.calendar is not null
    )
    select c.calendar from calendars c
    where c.calendar is not null
      and ((select 1 from ${ofCalendar} and e.start_date is null and ${stillThere} limit 1) is not null
        or (select e.start_date from ${ofCalendar} and e.start_date <= ${to} and ${stillThere} order by e.start_date desc limit 1) is not null)
    order by c.calendar`;
}

export const observedCalendarsQuery = defineQuery<{ organisationId: string; from: string; to: string }>()((s, db) =>
  rawQuery(observedCalendarsSql(s.organisationId, s.from, s.to), db),
);
