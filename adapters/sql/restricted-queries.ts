/**
 * The reads of restricted credentials in the SQL store (lib/store.ts, `RestrictedReads`):
 * the unrestricted reads' queries with the selection's `department in (…)` and
 * `holiday_calendar in (…)` on the employee, built per request (a selection's lists vary
 * in length, so there is no one compiled shape), on the reader. The hot path of
 * unrestricted reads (read-queries.ts, leave-page-queries.ts) is untouched.
 *
 * Indexes: the employees page scans `employees_page` (SQLite) / `employees_by_update`
 * (Postgres) in (updated_at, id) order as the unrestricted page does, and checks the
 * selection on each row; the leave page joins each overlapping booking, read in
 * (start_date, id) order, to its employee by primary key.
 */
import { sql, type ExpressionBuilder, type RawBuilder } from "kysely";
import type { EmployeeSelection } from "../../lib/restriction.ts";
import type { EmployeeRecord, LeaveBookingRecord } from "../../lib/records.ts";
import type { DeletedResource, DeletionRecord, EmployeePageQuery, LeavePageQuery, RestrictedReads } from "../../lib/store.ts";
import { instant, EMPLOYEE_COLUMNS, LEAVE_BOOKING_COLUMNS, LEAVE_TYPE_COLUMNS, toEmployee, toLeaveBooking } from "./row-mapping.ts";
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

export function restrictedQueries(ctx: SqlContext): RestrictedReads {
  const { stamps } = ctx;
  const shownEmployees = async (organisationId: string, employees: EmployeeRecord[]) => {
    const shown = await stamps.shownAll(
      organisationId,
      employees.map((e) => e.updated_at),
    );
    return employees.map((e) => ({ ...e, updated_at: shown(e.updated_at) }));
  };

  const listEmployees = (q: EmployeePageQuery, selection: EmployeeSelection) =>
    ctx.guard(async (): Promise<EmployeeRecord[]> => {
      const org = q.organisationId;
      const { status, updated_since } = q.filters;
      let query = ctx.reader
        .selectFrom("employees as e")
        .select(EMPLOYEE_COLUMNS.map((c) => `e.${c}` as const))
        .where("e.organisation_id", "=", org)
        .where("e.deleted_at", "is", null);
      if (status !== undefined) query = query.where("e.status", "=", status);
      if (updated_since !== undefined) query = query.where("e.updated_at", ">=", await stamps.storedSince(org, updated_since));
      if (q.after) {
        const after = [await stamps.storedOf(org, q.after.updatedAt), q.after.id] as const;
        query = query.where((eb) => eb(eb.refTuple("e.updated_at", "e.id"), ">", eb.tuple(after[0], after[1])));
      }
      const rows = await query.where(selected(selection)).orderBy("e.updated_at").orderBy("e.id").limit(q.limit).execute();
      return shownEmployees(org, rows.map(toEmployee));
    });

  return {
    listEmployees,

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

    listOverlappingLeave: (q: LeavePageQuery, selection: EmployeeSelection) =>
      ctx.guard(async (): Promise<LeaveBookingRecord[]> => {
        const org = q.organisationId;
        const { from, to, status, employee_id, updated_since } = q.filters;
        let query = ctx.reader
          .selectFrom("leave_bookings as b")
          .innerJoin("employees as e", (j) => j.onRef("e.organisation_id", "=", "b.organisation_id").onRef("e.id", "=", "b.employee_id"))
          .innerJoin("leave_types as t", (j) => j.onRef("t.organisation_id", "=", "b.organisation_id").onRef("t.id", "=", "b.leave_type_id"))
          .select([...LEAVE_BOOKING_COLUMNS.map((c) => `b.${c}` as const), ...LEAVE_TYPE_COLUMNS.map((c) => `t.${c} as type_${c}` as const)])
          .where("b.organisation_id", "=", org)
          .where("b.deleted_at", "is", null)
          .where("e.deleted_at", "is", null)
          .where("t.category", "=", "annual")
          .where("b.start_date", "<=", to)
          .where("b.end_date", ">=", from);
        if (status !== undefined) query = query.where("b.status", "=", status);
        if (employee_id !== undefined) query = query.where("b.employee_id", "=", employee_id);
        if (updated_since !== undefined) {
          // The bookings of an employee who entered the selection (whose updated_at moved) come with them, however old.
          const since = await stamps.storedSince(org, updated_since);
          query = query.where((eb) => eb.or([eb("b.updated_at", ">=", since), eb("e.updated_at", ">=", since)]));
        }
        const { after } = q;
        if (after) query = query.where((eb) => eb(eb.refTuple("b.start_date", "b.id"), ">", eb.tuple(after.startDate, after.id)));
        const rows = await query.where(selected(selection)).orderBy("b.start_date").orderBy("b.id").limit(q.limit).execute();
        const bookings = rows.map((r) => {
          const row = r as unknown as Record<string, unknown>;
          const type = Object.fromEntries(LEAVE_TYPE_COLUMNS.map((c) => [c, row[`type_${c}`]]));
          return toLeaveBooking(r as unknown as Parameters<typeof toLeaveBooking>[0], type as unknown as Parameters<typeof toLeaveBooking>[1]);
        });
        const shown = await stamps.shownAll(
          org,
          bookings.map((b) => b.updated_at),
        );
        return bookings.map((b) => ({ ...b, updated_at: shown(b.updated_at) }));
      }),

    /**
     * One scan of `selection_exits_page` from deletedSince (migration 0014), each exit checked
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
