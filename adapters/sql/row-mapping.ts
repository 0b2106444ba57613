/**
 * Turns database rows into the store's records, smoothing over dialect types. The columns
 * a read selects are the record's fields (lib/record-fields.ts), so a row is its record
 * but for the values a dialect returns in its own way.
 */
import type { Selectable } from "kysely";
import type { ClosureAppliesTo, ClosureDayRecord, EmployeeRecord, HalfPeriod, LeaveBookingRecord, LeaveStatus, LeaveTypeRecord } from "../../lib/records.ts";
import { EMPLOYEE_FIELDS, HOLIDAY_ENTRY_FIELDS, LEAVE_BOOKING_FIELDS, LEAVE_TYPE_FIELDS, recordColumns, type RecordColumn } from "../../lib/record-fields.ts";
import type { Scope } from "../../lib/scopes.ts";
import type { ClosureDaysTable, EmployeesTable, LeaveBookingsTable, LeaveTypesTable } from "./tables.ts";

/** 0/1 from SQLite, true/false from Postgres. */
export const bool = (v: boolean | number): boolean => v === true || v === 1;

/** Postgres returns BIGINT as a string. */
export const instant = (v: number | string): number => Number(v);
export const instantOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const scopeList = (text: string): Scope[] => (text === "" ? [] : (text.split(" ") as Scope[]));

export const EMPLOYEE_COLUMNS = recordColumns(EMPLOYEE_FIELDS);
export const LEAVE_TYPE_COLUMNS = recordColumns(LEAVE_TYPE_FIELDS);
export const LEAVE_BOOKING_COLUMNS = recordColumns(LEAVE_BOOKING_FIELDS);
export const CLOSURE_DAY_COLUMNS = recordColumns(HOLIDAY_ENTRY_FIELDS);

export type EmployeeRow = Pick<Selectable<EmployeesTable>, RecordColumn<typeof EMPLOYEE_FIELDS>>;
export type LeaveRow = Pick<Selectable<LeaveBookingsTable>, RecordColumn<typeof LEAVE_BOOKING_FIELDS>>;
export type LeaveTypeRow = Pick<Selectable<LeaveTypesTable>, RecordColumn<typeof LEAVE_TYPE_FIELDS>>;
export type ClosureDayRow = Pick<Selectable<ClosureDaysTable>, RecordColumn<typeof HOLIDAY_ENTRY_FIELDS>>;

/** `r` holds the record's columns and no other (a read selects EMPLOYEE_COLUMNS): spread, it is the record. */
export function toEmployee(r: EmployeeRow): EmployeeRecord {
  return { ...r, updated_at: instant(r.updated_at) };
}

/** Written out: the leave page hands over a row that carries more than the leave type. */
export function toLeaveType(r: LeaveTypeRow): LeaveTypeRecord {
  return { id: r.id, name: r.name, category: r.category, is_paid: bool(r.is_paid) };
}

/** `r` holds the record's columns and no other (a read selects CLOSURE_DAY_COLUMNS). */
export function toClosureDay(r: ClosureDayRow): ClosureDayRecord {
  return { ...r, applies_to: r.applies_to as ClosureAppliesTo, deducts_from_leave: bool(r.deducts_from_leave) };
}

/**
 * Written out rather than spread: the row's leave_type_id becomes the embedded leave type,
 * and a leave page maps up to 500 rows. Its type holds it to the declaration's fields.
 */
export function toLeaveBooking(r: LeaveRow, type: LeaveTypeRow): LeaveBookingRecord {
  return {
    id: r.id,
    employee_id: r.employee_id,
    leave_type: toLeaveType(type),
    start_date: r.start_date,
    end_date: r.end_date,
    start_half_day: bool(r.start_half_day),
    start_half_period: r.start_half_period as HalfPeriod | null,
    end_half_day: bool(r.end_half_day),
    end_half_period: r.end_half_period as HalfPeriod | null,
    days: Number(r.days),
    status: r.status as LeaveStatus,
    requested_at: instantOrNull(r.requested_at),
    reviewed_at: instantOrNull(r.reviewed_at),
    cancelled_at: instantOrNull(r.cancelled_at),
    updated_at: instant(r.updated_at),
  };
}
