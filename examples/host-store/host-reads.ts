/**
 * The data reads of the host's Store: plain SQL over the host's tables (host-schema.ts),
 * each row mapped to the record the API returns. Every query is one company's, leaves
 * out removed rows, and orders and pages exactly as `lib/store.ts` says.
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type {
  DeletionPageQuery,
  DeletionRecord,
  ClosureAppliesTo,
  ClosureDayRecord,
  EmployeePageQuery,
  EmployeeRecord,
  HalfPeriod,
  ImportedPublicHoliday,
  LeaveBookingRecord,
  LeavePageQuery,
  LeaveStatus,
} from "leaveapi";
import { employeeRecord } from "leaveapi";

/** The host keeps instants as ISO-8601 text; the Store speaks epoch milliseconds. */
export const isoOf = (ms: number) => new Date(ms).toISOString();
const msOf = (iso: string) => Date.parse(iso);
const msOrNull = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** The host's one-letter absence states and the API's leave statuses, both ways. */
export const STATE_OF_STATUS: Record<LeaveStatus, string> = {
  pending: "P",
  approved: "A",
  rejected: "R",
  cancelled: "C",
  cancellation_requested: "W",
};
const STATUS_OF_STATE = Object.fromEntries(Object.entries(STATE_OF_STATUS).map(([status, state]) => [state, status])) as Record<string, LeaveStatus>;

/** The host says `company` and `site` where the API says `all` and `location`. */
export const SCOPE_OF_APPLIES_TO: Record<ClosureAppliesTo, string> = { all: "company", department: "department", location: "site" };
const APPLIES_TO_OF_SCOPE = Object.fromEntries(Object.entries(SCOPE_OF_APPLIES_TO).map(([a, s]) => [s, a])) as Record<string, ClosureAppliesTo>;

interface StaffRow {
  public_id: string;
  given_name: string | null;
  family_name: string | null;
  known_as: string | null;
  title: string | null;
  dept: string | null;
  state: string;
  hired_on: string | null;
  left_on: string | null;
  calendar: string | null;
  modified: string;
}

const STAFF_COLUMNS = "s.public_id, s.given_name, s.family_name, s.known_as, s.title, s.dept, s.state, s.hired_on, s.left_on, s.calendar, s.modified";

/** Through `employeeRecord`, so a field a later leaveapi adds (and this table lacks) is answered as null. */
function toEmployee(r: StaffRow): EmployeeRecord {
  return employeeRecord({
    id: r.public_id,
    first_name: r.given_name,
    last_name: r.family_name,
    preferred_name: r.known_as,
    job_title: r.title,
    department: r.dept,
    status: r.state,
    start_date: r.hired_on,
    leaving_date: r.left_on,
    holiday_calendar: r.calendar,
    updated_at: msOf(r.modified),
  });
}

interface AbsenceRow {
  public_id: string;
  staff_id: string;
  kind_id: string;
  label: string;
  category: string;
  paid: number;
  first_day: string;
  last_day: string;
  first_half: HalfPeriod | null;
  last_half: HalfPeriod | null;
  day_count: number;
  state: string;
  requested: string | null;
  decided: string | null;
  withdrawn: string | null;
  modified: string;
}

function toLeaveBooking(r: AbsenceRow): LeaveBookingRecord {
  return {
    id: r.public_id,
    employee_id: r.staff_id,
    leave_type: { id: r.kind_id, name: r.label, category: r.category, is_paid: r.paid === 1 },
    start_date: r.first_day,
    end_date: r.last_day,
    // One nullable column holds both the API's half-day flag and its period.
    start_half_day: r.first_half !== null,
    start_half_period: r.first_half,
    end_half_day: r.last_half !== null,
    end_half_period: r.last_half,
    days: r.day_count,
    status: STATUS_OF_STATE[r.state]!,
    requested_at: msOrNull(r.requested),
    reviewed_at: msOrNull(r.decided),
    cancelled_at: msOrNull(r.withdrawn),
    updated_at: msOf(r.modified),
  };
}

/** A `where` clause grown one condition at a time, its parameters kept in step. */
function conditions(first: string, ...params: SQLQueryBindings[]) {
  const parts = [first];
  const values = [...params];
  return {
    and(part: string, ...more: SQLQueryBindings[]) {
      parts.push(part);
      values.push(...more);
    },
    sql: () => parts.join(" and "),
    values,
  };
}

export function hostReads(db: Database) {
  return {
    listEmployees(q: EmployeePageQuery): EmployeeRecord[] {
      const where = conditions("c.public_id = ? and s.removed = 0", q.organisationId);
      const { status, updated_since } = q.filters;
      if (status !== undefined) where.and("s.state = ?", status);
      if (updated_since !== undefined) where.and("s.modified >= ?", isoOf(updated_since));
      // Comparing the text works because every `modified` has toISOString()'s fixed form.
      if (q.after) where.and("(s.modified, s.public_id) > (?, ?)", isoOf(q.after.updatedAt), q.after.id);
      const sql = `select ${STAFF_COLUMNS} from staff s join companies c on c.company_no = s.company_no
        where ${where.sql()} order by s.modified, s.public_id limit ?`;
      return db
        .query<StaffRow, SQLQueryBindings[]>(sql)
        .all(...where.values, q.limit)
        .map(toEmployee);
    },

    findEmployee(organisationId: string, id: string): EmployeeRecord | null {
      const row = db
        .query<StaffRow, [string, string]>(`select ${STAFF_COLUMNS} from staff s join companies c on c.company_no = s.company_no
          where c.public_id = ? and s.public_id = ? and s.removed = 0`)
        .get(organisationId, id);
      return row ? toEmployee(row) : null;
    },

    listOverlappingLeave(q: LeavePageQuery): LeaveBookingRecord[] {
      const where = conditions(
        "c.public_id = ? and a.removed = 0 and s.removed = 0 and k.category = 'annual' and a.first_day <= ? and a.last_day >= ?",
        q.organisationId,
        q.filters.to,
        q.filters.from,
      );
      const { status, employee_id, updated_since } = q.filters;
      if (status !== undefined) where.and("a.state = ?", STATE_OF_STATUS[status]);
      if (employee_id !== undefined) where.and("s.public_id = ?", employee_id);
      if (updated_since !== undefined) where.and("max(a.modified, k.modified) >= ?", isoOf(updated_since));
      if (q.after) where.and("(a.first_day, a.public_id) > (?, ?)", q.after.startDate, q.after.id);
      // Renaming an absence kind changes every booking the API shows with it, so a
      // booking's updated_at is the later of its own change and its kind's (docs/api.md,
      // "Incremental sync").
      const sql = `select a.public_id, s.public_id as staff_id, k.public_id as kind_id, k.label, k.category, k.paid,
          a.first_day, a.last_day, a.first_half, a.last_half, a.day_count, a.state, a.requested, a.decided, a.withdrawn,
          max(a.modified, k.modified) as modified
        from absences a
        join staff s on s.staff_no = a.staff_no
        join companies c on c.company_no = s.company_no
        join absence_kind k on k.kind_no = a.kind_no
        where ${where.sql()} order by a.first_day, a.public_id limit ?`;
      return db
        .query<AbsenceRow, SQLQueryBindings[]>(sql)
        .all(...where.values, q.limit)
        .map(toLeaveBooking);
    },

    /**
     * The deletions feed, read from the host's own soft-delete flags: a removed staff
     * member since its last change; an annual absence since it or its staff member was
     * removed, whichever came first. A host whose rows can also be hidden in ways these
     * columns do not record (an absence kind that stops being annual), or that keeps
     * many removed rows, writes tombstones to a table of its own instead, as leaveapi's
     * SQL store does, and pages that on an index of (company, deleted_at, id).
     */
    listDeletions(q: DeletionPageQuery): DeletionRecord[] {
      const gone =
        q.resource === "employees"
          ? `select s.public_id as id, s.modified as deleted_at from staff s join companies c on c.company_no = s.company_no
              where c.public_id = ? and s.removed = 1`
          : `select a.public_id as id,
                min(case when a.removed = 1 then a.modified else '9999' end, case when s.removed = 1 then s.modified else '9999' end) as deleted_at
              from absences a join staff s on s.staff_no = a.staff_no join companies c on c.company_no = s.company_no
              join absence_kind k on k.kind_no = a.kind_no
              where c.public_id = ? and (a.removed = 1 or s.removed = 1) and k.category = 'annual'`;
      const where = conditions("deleted_at >= ?", isoOf(q.deletedSince));
      if (q.after) where.and("(deleted_at, id) > (?, ?)", isoOf(q.after.deletedAt), q.after.id);
      return db
        .query<{ id: string; deleted_at: string }, SQLQueryBindings[]>(
          `select id, deleted_at from (${gone}) where ${where.sql()} order by deleted_at, id limit ?`,
        )
        .all(q.organisationId, ...where.values, q.limit)
        .map((r) => ({ id: r.id, deleted_at: msOf(r.deleted_at) }));
    },

    listClosureDays(organisationId: string, from: string, to: string): ClosureDayRecord[] {
      const rows = db
        .query<
          { closed_on: string; title: string; scope: string; dept: string | null; site: string | null; counts_as_leave: number },
          [string, string, string]
        >(`select o.closed_on, o.title, o.scope, o.dept, o.site, o.counts_as_leave
          from office_closures o join companies c on c.company_no = o.company_no
          where c.public_id = ? and o.removed = 0 and o.closed_on between ? and ?`)
        .all(organisationId, from, to);
      return rows.map((r) => ({
        date: r.closed_on,
        name: r.title,
        applies_to: APPLIES_TO_OF_SCOPE[r.scope]!,
        department: r.dept,
        location: r.site,
        deducts_from_leave: r.counts_as_leave === 1,
      }));
    },

    observedCalendars(organisationId: string, from: string, to: string): string[] {
      return db
        .query<{ calendar: string }, [string, string, string]>(`select distinct s.calendar
          from staff s join companies c on c.company_no = s.company_no
          where c.public_id = ? and s.removed = 0 and s.calendar is not null
            and (s.hired_on is null or s.hired_on <= ?) and (s.left_on is null or s.left_on >= ?)
          order by s.calendar`)
        .all(organisationId, to, from)
        .map((r) => r.calendar);
    },

    listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number): ImportedPublicHoliday[] {
      if (calendars.length === 0) return [];
      // No year column: the years are a range of days.
      const year = (y: number) => String(y).padStart(4, "0");
      return db
        .query<ImportedPublicHoliday, SQLQueryBindings[]>(`select h.calendar, h.day as date, h.name
          from bank_holidays h join companies c on c.company_no = h.company_no
          where c.public_id = ? and h.calendar in (${calendars.map(() => "?").join(", ")}) and h.day between ? and ?`)
        .all(organisationId, ...calendars, `${year(fromYear)}-01-01`, `${year(toYear)}-12-31`);
    },
  };
}
