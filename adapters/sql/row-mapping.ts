/** Turns database rows into the store's records, smoothing over dialect types. */
import type { EmployeeRecord, HalfPeriod, LeaveBookingRecord, LeaveStatus } from "../../lib/records.ts";
import type { Scope } from "../../lib/scopes.ts";

/** 0/1 from SQLite, true/false from Postgres. */
export const bool = (v: boolean | number): boolean => v === true || v === 1;

/** Postgres returns BIGINT as a string. */
export const instant = (v: number | string): number => Number(v);
export const instantOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const scopeList = (text: string): Scope[] => (text === "" ? [] : (text.split(" ") as Scope[]));

export interface EmployeeRow {
  id: string;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
  job_title: string | null;
  department: string | null;
  status: string;
  start_date: string | null;
  leaving_date: string | null;
  holiday_calendar: string | null;
  updated_at: number | string;
}

export function toEmployee(r: EmployeeRow): EmployeeRecord {
  return {
    id: r.id,
    first_name: r.first_name,
    last_name: r.last_name,
    preferred_name: r.preferred_name,
    job_title: r.job_title,
    department: r.department,
    status: r.status,
    start_date: r.start_date,
    leaving_date: r.leaving_date,
    holiday_calendar: r.holiday_calendar,
    updated_at: instant(r.updated_at),
  };
}

export interface LeaveRow {
  id: string;
  employee_id: string;
  leave_type_id: string;
  start_date: string;
  end_date: string;
  start_half_day: boolean | number;
  start_half_period: string | null;
  end_half_day: boolean | number;
  end_half_period: string | null;
  days: number;
  status: string;
  requested_at: number | string | null;
  reviewed_at: number | string | null;
  cancelled_at: number | string | null;
  updated_at: number | string;
}

export interface LeaveTypeRow {
  id: string;
  name: string;
  category: string;
  is_paid: boolean | number;
}

export function toLeaveBooking(r: LeaveRow, type: LeaveTypeRow): LeaveBookingRecord {
  return {
    id: r.id,
    employee_id: r.employee_id,
    leave_type: {
      id: type.id,
      name: type.name,
      category: type.category,
      is_paid: bool(type.is_paid),
    },
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
