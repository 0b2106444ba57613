/**
 * The memory store's data reads (adapters/memory-store.ts): each filters, sorts and slices the
 * plain collections the way the SQL store's `where`, `order by` and `limit` do, so a host
 * implementing Store over its own tables can follow them method by method. The filters
 * of a page are applied by their rules (lib/list-filters.ts), which is what each means.
 */
import { EMPLOYEE_FILTER_RULES, filterPredicate, LEAVE_FILTER_RULES } from "../../lib/list-filters.ts";
import type { EmployeeRecord, LeaveBookingRecord } from "../../lib/records.ts";
import type { DeletionPageQuery, EmployeePageQuery, LeavePageQuery, Store } from "../../lib/store.ts";
import type { StoredBooking, StoredEmployee } from "../../lib/store-contents.ts";
import { closureDaysWithin, importedHolidaysWithin, keyOf, type MemoryTables } from "./memory-tables.ts";

/** Ascending order of plain values, as SQL's `order by` compares them. */
export const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether (a1, a2) comes strictly after (b1, b2): SQL's row comparison `(a1, a2) > (b1, b2)`. */
const isAfter = (a1: string | number, a2: string, b1: string | number, b2: string) => a1 > b1 || (a1 === b1 && a2 > b2);

const toEmployee = ({ organisation_id: _o, deleted: _d, ...record }: StoredEmployee): EmployeeRecord => record;

type DataReads = Pick<
  Store,
  | "listEmployees"
  | "findEmployee"
  | "listOverlappingLeave"
  | "listDeletions"
  | "sweepDeletions"
  | "listClosureDays"
  | "observedCalendars"
  | "listImportedPublicHolidays"
>;

/** Which live employees a read keeps: everyone, or a restricted client's selection (memory-restricted-reads.ts). */
export type EmployeeKept = (employee: StoredEmployee) => boolean;
const everyone: EmployeeKept = () => true;

/** The reads of employees and leave over `t()`, of the employees `kept` keeps; `sinceOf` is when a booking last changed for a sync. */
export function employeeAndLeaveReads(t: () => MemoryTables, open: () => void) {
  const liveEmployee = (organisationId: string, id: string) => {
    const employee = t().employees.get(keyOf(organisationId, id));
    return employee && !employee.deleted ? employee : undefined;
  };
  return {
    async listEmployees(q: EmployeePageQuery, kept = everyone): Promise<EmployeeRecord[]> {
      open();
      const { after } = q;
      return [...t().employees.values()]
        .filter((e) => e.organisation_id === q.organisationId && !e.deleted && kept(e))
        .filter(filterPredicate(EMPLOYEE_FILTER_RULES, q.filters))
        .filter((e) => !after || isAfter(e.updated_at, e.id, after.updatedAt, after.id))
        .sort((a, b) => compare(a.updated_at, b.updated_at) || compare(a.id, b.id))
        .slice(0, q.limit)
        .map(toEmployee);
    },

    async findEmployee(organisationId: string, id: string, kept = everyone): Promise<EmployeeRecord | null> {
      open();
      const employee = liveEmployee(organisationId, id);
      return employee && kept(employee) ? toEmployee(employee) : null;
    },

    /** With `kept`, `updated_since` keeps a booking whose employee's `updated_at` is at or after it too (lib/store.ts, `RestrictedReads`). */
    async listOverlappingLeave(q: LeavePageQuery, kept?: EmployeeKept): Promise<LeaveBookingRecord[]> {
      open();
      const { after } = q;
      const typeOf = (b: StoredBooking) => t().leaveTypes.get(keyOf(b.organisation_id, b.leave_type_id));
      const records: LeaveBookingRecord[] = [];
      const { updated_since, ...others } = q.filters;
      const passes = filterPredicate(LEAVE_FILTER_RULES, kept ? others : q.filters);
      for (const b of t().bookings.values()) {
        if (b.organisation_id !== q.organisationId || b.deleted) continue;
        if (b.start_date > q.filters.to || b.end_date < q.filters.from) continue;
        const type = typeOf(b);
        const employee = liveEmployee(b.organisation_id, b.employee_id);
        if (type?.category !== "annual" || !employee) continue;
        if (kept && (!kept(employee) || (updated_since !== undefined && b.updated_at < updated_since && employee.updated_at < updated_since))) continue;
        if (after && !isAfter(b.start_date, b.id, after.startDate, after.id)) continue;
        const { organisation_id: _o, deleted: _d, leave_type_id: _t, ...booking } = b;
        const { organisation_id: _to, ...leave_type } = type;
        const record = { ...booking, leave_type };
        if (passes(record)) records.push(record);
      }
      return records.sort((a, b) => compare(a.start_date, b.start_date) || compare(a.id, b.id)).slice(0, q.limit);
    },

    /** The distinct calendars and departments of the kept live employees employed at some point in [from, to], each sorted. */
    observedBy(organisationId: string, from: string, to: string, kept = everyone) {
      open();
      const calendars = new Set<string>();
      const departments = new Set<string>();
      for (const e of t().employees.values()) {
        if (e.organisation_id !== organisationId || e.deleted || !kept(e)) continue;
        // A null start or leaving date is open-ended.
        if ((e.start_date === null || e.start_date <= to) && (e.leaving_date === null || e.leaving_date >= from)) {
          if (e.holiday_calendar !== null) calendars.add(e.holiday_calendar);
          if (e.department !== null) departments.add(e.department);
        }
      }
      return { calendars: [...calendars].sort(compare), departments: [...departments].sort(compare) };
    },
  };
}

/** The reads over `t()`, the tables as they are now (an import swaps them), each after `open()`, which throws once the store is closed. */
export function memoryReads(t: () => MemoryTables, open: () => void): DataReads {
  const reads = employeeAndLeaveReads(t, open);
  return {
    listEmployees: (q) => reads.listEmployees(q),
    findEmployee: (organisationId, id) => reads.findEmployee(organisationId, id),
    listOverlappingLeave: (q) => reads.listOverlappingLeave(q),

    async listDeletions(q: DeletionPageQuery) {
      open();
      const { after } = q;
      return [...t().deletions.values()]
        .filter((d) => d.organisation_id === q.organisationId && d.resource === q.resource && d.deleted_at >= q.deletedSince)
        .filter((d) => !after || isAfter(d.deleted_at, d.id, after.deletedAt, after.id))
        .sort((a, b) => compare(a.deleted_at, b.deleted_at) || compare(a.id, b.id))
        .slice(0, q.limit)
        .map(({ id, deleted_at }) => ({ id, deleted_at }));
    },

    async sweepDeletions(before) {
      open();
      let swept = 0;
      for (const [key, d] of t().deletions) {
        if (d.deleted_at >= before) continue;
        t().deletions.delete(key);
        swept++;
      }
      // A restricted client's feed reads the exits as far back as the tombstones, and no further.
      t().exits = t().exits.filter((x) => x.until >= before);
      return swept;
    },

    async listClosureDays(organisationId, from, to) {
      open();
      return closureDaysWithin(t(), organisationId, from, to);
    },

    async observedCalendars(organisationId, from, to) {
      return reads.observedBy(organisationId, from, to).calendars;
    },

    async listImportedPublicHolidays(organisationId, calendars, fromYear, toYear) {
      open();
      return importedHolidaysWithin(t(), organisationId, calendars, fromYear, toYear);
    },
  };
}
