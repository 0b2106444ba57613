/**
 * The data endpoints' reads in the SQL store, on the reader (a replica when there is one),
 * except the leave page (leave-page/leave-page-queries.ts). The closure-day and public-holiday reads
 * also serve the import writer inside its transaction.
 */
import { sql, type Kysely } from "kysely";
import { employeeText, listTextOf } from "./record-bodies.ts";
import type { ClosureDayRecord, EmployeeRecord } from "../../lib/records.ts";
import type { EmployeePageQuery, ImportedPublicHoliday, ListText, RestrictedReads, Store } from "../../lib/store.ts";
import type { EmployeeSelection } from "../../lib/restriction.ts";
import { isSelected, leadArms, otherListOf, selectionValues, type LeadArm, type SelectionValues } from "./selected-employees.ts";
import { defineQuery } from "./compiled-queries.ts";
import { observedCalendarsQuery } from "./observed-calendars.ts";
import { firstRows, perRowCount } from "./row-counts.ts";
import { CLOSURE_DAY_COLUMNS, EMPLOYEE_COLUMNS, instant, toClosureDay, toEmployee } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import type { EmployeesTable, Tables } from "./tables.ts";

interface EmployeePageValues extends SelectionValues {
  organisationId: string;
  status: string | undefined;
  updatedSince: number | undefined;
  afterUpdatedAt: number | undefined;
  afterId: string | undefined;
}

/**
 * The employees page over `columns`, at most `rowCount` rows (a literal: row-counts.ts):
 * one scan of the page index (migration 0006), which covers it as text; for a restricted
 * client whose selection is led (selected-employees.ts), one scan per department or
 * calendar of the index that leads with it (migration 0019), merged in page order.
 */
const employeePageQueryOf = <C extends readonly (keyof EmployeesTable)[]>(columns: C, rowCount: number) =>
  defineQuery<EmployeePageValues>()((s, db, caps) => {
    const limit = sql.lit(rowCount);
    const scan = (lead?: LeadArm) => {
      let query = db.selectFrom("employees").select(columns).where("organisation_id", "=", s.organisationId);
      if (lead) query = query.where(sql.ref(lead.column), "=", lead.value);
      query = query.where("deleted_at", "is", null);
      if (s.selectedOf) query = query.where(isSelected(db, caps, s.selectedOf, "employees.id", s));
      else for (const test of otherListOf(caps, "employees", s)) query = query.where(test);
      if (s.status) query = query.where("status", "=", s.status);
      if (s.updatedSince) query = query.where("updated_at", ">=", s.updatedSince);
      const { afterUpdatedAt, afterId } = s;
      if (afterUpdatedAt && afterId) query = query.where((eb) => eb(eb.refTuple("updated_at", "id"), ">", eb.tuple(afterUpdatedAt, afterId)));
      return query;
    };
    const arms = leadArms(s);
    if (arms.length === 0) return scan().orderBy("updated_at").orderBy("id").limit(limit);
    // As the leave page's span classes (leave-page/leave-page-sql.ts): on Postgres each arm ordered and
    // limited under a Merge Append; SQLite allows neither in a compound's members, and merges.
    const bounded = (lead: LeadArm): ReturnType<typeof scan> =>
      caps.dialect === "postgres"
        ? (db.selectFrom(scan(lead).orderBy("updated_at").orderBy("id").limit(limit).as("arm")).selectAll() as unknown as ReturnType<typeof scan>)
        : scan(lead);
    let merged = bounded(arms[0]!);
    for (const lead of arms.slice(1)) merged = merged.unionAll(bounded(lead));
    return merged.orderBy("updated_at").orderBy("id").limit(limit);
  });

const employeePageQuery = perRowCount((n) => employeePageQueryOf(EMPLOYEE_COLUMNS, n));
const employeeTextQuery = perRowCount((n) => employeePageQueryOf(["id", "updated_at", "rendered"] as const, n));

const employeeQuery = defineQuery<{ organisationId: string; id: string }>()((s, db) =>
  db.selectFrom("employees").select(EMPLOYEE_COLUMNS).where("organisation_id", "=", s.organisationId).where("id", "=", s.id).where("deleted_at", "is", null),
);

/** Closure days within [from, to], on `db` (a transaction, in an import). */
export async function listClosureDaysOn(db: Kysely<Tables>, organisationId: string, from: string, to: string): Promise<ClosureDayRecord[]> {
  const rows = await db
    .selectFrom("closure_days")
    .select(CLOSURE_DAY_COLUMNS)
    .where("organisation_id", "=", organisationId)
    .where("deleted_at", "is", null)
    .where("date", ">=", from)
    .where("date", "<=", to)
    .orderBy("date")
    .orderBy("name")
    .execute();
  return rows.map(toClosureDay);
}

/** Imported public holidays of these calendars and years, on `db` (a transaction, in an import). */
export function listImportedPublicHolidaysOn(
  db: Kysely<Tables>,
  organisationId: string,
  calendars: readonly string[],
  fromYear: number,
  toYear: number,
): Promise<ImportedPublicHoliday[]> {
  if (calendars.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("public_holidays")
    .select(["calendar", "date", "name"])
    .where("organisation_id", "=", organisationId)
    .where("calendar", "in", [...calendars])
    .where("year", ">=", fromYear)
    .where("year", "<=", toYear)
    .orderBy("date")
    .execute();
}

/**
 * `updated_since`, unless the cursor already implies it. Both bounds on the same leading
 * index column leave SQLite to seek by one and filter by the other, and it seeks by
 * `updated_at >= since`: every row between `since` and the cursor was read again for each
 * page, so a sync's deep page cost as much as all the pages before it (bench/RESULTS.md,
 * "A sync's deep page"). A cursor at or after `since` bounds the scan on its own.
 */
function sinceNotImpliedByCursor(updatedSince: number | undefined, after: { updatedAt: number } | undefined): number | undefined {
  return after && updatedSince !== undefined && after.updatedAt >= updatedSince ? undefined : updatedSince;
}

/** The data endpoints' reads but the leave page, and the employees page as text for `Store.listText`. */
export function readQueries(ctx: SqlContext): Pick<
  Store,
  "listEmployees" | "findEmployee" | "listClosureDays" | "observedCalendars" | "listImportedPublicHolidays"
> & {
  /** The page as text, of the employees `selection` selects when given (a restricted client's that reads every field). */
  employeesText: (q: EmployeePageQuery, selection?: EmployeeSelection) => Promise<ListText | null>;
  /** A restricted client's page (restricted-queries.ts): the same scan, of the selected employees. */
  restrictedEmployees: RestrictedReads["listEmployees"];
} {
  const { stamps } = ctx;
  /** The query's instants (shown ones: a sync's `updated_since`, a cursor's position) as the stamps stored (published-stamps.ts). */
  const pageValues = async (q: EmployeePageQuery, selection?: EmployeeSelection): Promise<EmployeePageValues> => {
    const org = q.organisationId;
    const after = q.after && { updatedAt: await stamps.storedOf(org, q.after.updatedAt), id: q.after.id };
    // A position at or after `updated_since` implies it (the stored bound is never later),
    // so the deep pages of a sync ask the publications nothing.
    const impliedByCursor = after !== undefined && q.filters.updated_since !== undefined && after.updatedAt >= q.filters.updated_since;
    const { status, updated_since } = q.filters;
    const since = updated_since === undefined || impliedByCursor ? undefined : await stamps.storedSince(org, updated_since);
    return {
      organisationId: org,
      status,
      updatedSince: sinceNotImpliedByCursor(since, after),
      afterUpdatedAt: after?.updatedAt,
      afterId: after?.id,
      ...selectionValues(org, selection, true),
    };
  };
  /** The page's employees, of those `selection` selects when given (a restricted client's). */
  const listEmployees = (q: EmployeePageQuery, selection?: EmployeeSelection) =>
    ctx.guard(async (): Promise<EmployeeRecord[]> => {
      const employees = firstRows(await ctx.replica.rows(employeePageQuery(q.limit), await pageValues(q, selection)), q.limit).map(toEmployee);
      const shown = await stamps.shownAll(
        q.organisationId,
        employees.map((e) => e.updated_at),
      );
      return employees.map((e) => ({ ...e, updated_at: shown(e.updated_at) }));
    });
  return {
    listEmployees: (q) => listEmployees(q),
    restrictedEmployees: listEmployees,

    /** The page and one row more, which says whether the list goes on; null when an employee has no body (render-bodies.ts). */
    employeesText: (q, selection) =>
      ctx.guard(async (): Promise<ListText | null> => {
        const rows = firstRows(await ctx.replica.rows(employeeTextQuery(q.limit + 1), await pageValues(q, selection)), q.limit + 1);
        if (rows.some((r) => r.rendered === null)) return null;
        const shown = await stamps.shownAll(
          q.organisationId,
          rows.map((r) => instant(r.updated_at)),
        );
        return listTextOf(
          rows,
          q.limit,
          (r) => [shown(instant(r.updated_at)), r.id],
          (r) => employeeText(r.id, r.rendered!, shown(instant(r.updated_at))),
        );
      }),

    findEmployee: (organisationId, id) =>
      ctx.guard(async () => {
        const [row] = await ctx.replica.rows(employeeQuery, { organisationId, id });
        if (!row) return null;
        const employee = toEmployee(row);
        return { ...employee, updated_at: await stamps.shownOf(organisationId, employee.updated_at) };
      }),

    listClosureDays: (organisationId, from, to) => ctx.guard(() => listClosureDaysOn(ctx.reader, organisationId, from, to)),

    observedCalendars: (organisationId, from, to) =>
      ctx.guard(async () => (await ctx.replica.rows(observedCalendarsQuery, { organisationId, from, to })).map((r) => r.calendar)),

    listImportedPublicHolidays: (organisationId, calendars, fromYear, toYear) =>
      ctx.guard(() => listImportedPublicHolidaysOn(ctx.reader, organisationId, calendars, fromYear, toYear)),
  };
}
