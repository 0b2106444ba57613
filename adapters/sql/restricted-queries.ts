/**
 * The reads of restricted credentials in the SQL store (lib/store.ts, `RestrictedReads`)
 * but the two pages: one employee, the calendars and departments observed, and the
 * deletions feed, with the selection's `department in (…)` and `holiday_calendar in (…)`
 * on the employee, built per request, on the reader. The pages are the unrestricted ones'
 * compiled scans, each row tested against the set of selected employees
 * (selected-employees.ts): read-queries.ts, leave-page/leave-page-queries.ts. An unrestricted
 * request binds no selection and runs the statements it ran before.
 */
import { sql, type ExpressionBuilder, type RawBuilder } from "kysely";
import type { EmployeeSelection } from "../../lib/restriction.ts";
import type { EmployeeRecord } from "../../lib/records.ts";
import type { DeletedResource, DeletionRecord, RestrictedReads } from "../../lib/store.ts";
import { instant, EMPLOYEE_COLUMNS, toEmployee } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

/** The selection's lists as one condition on the `department` and `holiday_calendar` of `alias` (an empty list selects no one). */
function selected(selection: EmployeeSelection, alias = "e"): RawBuilder<boolean> {
  const inList = (column: RawBuilder<unknown>, list: readonly string[] | null) =>
    list === null ? sql<boolean>`1 = 1` : list.length === 0 ? sql<boolean>`1 = 0` : sql<boolean>`${column} in (${sql.join(list)})`;
  return sql<boolean>`(${inList(sql.ref(`${alias}.department`), selection.departments)} and ${inList(sql.ref(`${alias}.holiday_calendar`), selection.calendars)})`;
}

/** Whether the client reads the record `x.id` of `resource` now: listed, with a selected employee. */
function readNow(resource: DeletedResource, selection: EmployeeSelection): RawBuilder<boolean> {
  if (resource === "employees") {
    return sql<boolean>`exists (select 1 from employees e where e.organisation_id = x.organisation_id and e.id = x.id and e.deleted_at is null and ${selected(selection)})`;
  }
  return sql<boolean>`exists (select 1 from leave_bookings b
    join employees e on e.organisation_id = b.organisation_id and e.id = b.employee_id
    join leave_types t on t.organisation_id = b.organisation_id and t.id = b.leave_type_id
    where b.organisation_id = x.organisation_id and b.id = x.id and b.deleted_at is null and e.deleted_at is null
      and t.category = 'annual' and ${selected(selection)})`;
}

const employed = (from: string, to: string) => (eb: ExpressionBuilder<{ e: Tables["employees"] }, "e">) =>
  eb.and([eb.or([eb("e.start_date", "is", null), eb("e.start_date", "<=", to)]), eb.or([eb("e.leaving_date", "is", null), eb("e.leaving_date", ">=", from)])]);

/** Every restricted read but the pages, which are the unrestricted ones' scans with the selection (read-queries.ts, leave-page/leave-page-queries.ts). */
export function restrictedQueries(ctx: SqlContext): Omit<RestrictedReads, "listEmployees" | "listOverlappingLeave"> {
  const { stamps } = ctx;
  const shownEmployees = async (organisationId: string, employees: EmployeeRecord[]) => {
    const shown = await stamps.shownAll(
      organisationId,
      employees.map((e) => e.updated_at),
    );
    return employees.map((e) => ({ ...e, updated_at: shown(e.updated_at) }));
  };

  return {
    findEmployee: (organisationId, id, selection) =>
      ctx.guard(async () => {
        const query = ctx.reader
          .selectFrom("employees as e")
          .select(EMPLOYEE_COLUMNS.map((c) => `e.${c}` as const))
          .where("e.organisation_id", "=", organisationId)
          .where("e.id", "=", id)
          .where("e.deleted_at", "is", null);
        const row = await query.where(selected(selection)).executeTakeFirst();
        return row ? (await shownEmployees(organisationId, [toEmployee(row)]))[0]! : null;
      }),

    /**
     * One scan of `selection_exits_page` from deletedSince (migration 0015), each exit checked
     * against the selection and against what the client reads now, grouped by record.
     */
    listDeletions: (q, selection) =>
      ctx.guard(async (): Promise<DeletionRecord[]> => {
        const org = q.organisationId;
        const since = await stamps.storedSince(org, q.deletedSince);
        const after = q.after && { at: await stamps.storedOf(org, q.after.deletedAt), id: q.after.id };
        const keyset = after ? sql`having max(x.until) > ${after.at} or (max(x.until) = ${after.at} and x.id > ${after.id})` : sql``;
        const { rows } = await sql<{ id: string; left_at: number | string }>`
          select x.id, max(x.until) as left_at from selection_exits x
          where x.organisation_id = ${org} and x.resource = ${q.resource} and x.until >= ${since}
            and ${selected(selection, "x")} and not ${readNow(q.resource, selection)}
          group by x.id ${keyset}
          order by left_at, x.id
          limit ${q.limit}`.execute(ctx.reader);
        const shown = await stamps.shownAll(
          org,
          rows.map((r) => instant(r.left_at)),
        );
        return rows.map((r) => ({ id: r.id, deleted_at: shown(instant(r.left_at)) }));
      }),

    observedBy: (organisationId, from, to, selection) =>
      ctx.guard(async () => {
        const query = ctx.reader
          .selectFrom("employees as e")
          .select(["e.holiday_calendar", "e.department"])
          .distinct()
          .where("e.organisation_id", "=", organisationId)
          .where("e.deleted_at", "is", null)
          .where(employed(from, to));
        const rows = await query.where(selected(selection)).execute();
        const sorted = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))].sort();
        return { calendars: sorted(rows.map((r) => r.holiday_calendar)), departments: sorted(rows.map((r) => r.department)) };
      }),
  };
}
