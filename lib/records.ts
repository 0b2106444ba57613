/**
 * The records the API returns, as the store hands them over (instants as epoch
 * milliseconds), and their exact v1 JSON shapes: every field the contract names, no other,
 * unknown values as `null` (docs/api.md, "Rules for every record"). The JSON types come
 * from lib/api-schemas.ts, the schemas the OpenAPI document is generated from, so the two
 * cannot disagree.
 */
import type { EmployeeJson, HolidayEntryJson, LeaveBookingJson } from "./api-schemas.ts";
import { formatInstant } from "./dates.ts";

export const LEAVE_STATUSES = ["pending", "approved", "rejected", "cancelled", "cancellation_requested"] as const;
export type LeaveStatus = (typeof LEAVE_STATUSES)[number];
export type HalfPeriod = "am" | "pm";

export interface EmployeeRecord {
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
  updated_at: number;
}

export interface LeaveTypeRecord {
  id: string;
  name: string;
  category: string;
  is_paid: boolean;
}

export interface LeaveBookingRecord {
  id: string;
  employee_id: string;
  leave_type: LeaveTypeRecord;
  start_date: string;
  end_date: string;
  start_half_day: boolean;
  start_half_period: HalfPeriod | null;
  end_half_day: boolean;
  end_half_period: HalfPeriod | null;
  days: number;
  status: LeaveStatus;
  requested_at: number | null;
  reviewed_at: number | null;
  cancelled_at: number | null;
  updated_at: number;
}

export type ClosureAppliesTo = "all" | "department" | "location";

export interface ClosureDayRecord {
  date: string;
  name: string;
  applies_to: ClosureAppliesTo;
  department: string | null;
  location: string | null;
  deducts_from_leave: boolean;
}

/** One entry of GET /v1/holidays: its shape is lib/api-schemas.ts's HolidayEntry. */
export type HolidayEntry = HolidayEntryJson;

const instantOrNull = (ms: number | null) => (ms === null ? null : formatInstant(ms));

// The records of one import share their updated_at, so a page formats the same instant
// many times over; the last one formatted is kept (toISOString was 7% of a page's time).
let lastInstant = Number.NaN;
let lastInstantText = "";
function formatUpdatedAt(ms: number): string {
  if (ms !== lastInstant) {
    lastInstantText = formatInstant(ms);
    lastInstant = ms;
  }
  return lastInstantText;
}

export function employeeJson(e: EmployeeRecord): EmployeeJson {
  return {
    id: e.id,
    first_name: e.first_name,
    last_name: e.last_name,
    preferred_name: e.preferred_name,
    job_title: e.job_title,
    department: e.department,
    status: e.status,
    start_date: e.start_date,
    leaving_date: e.leaving_date,
    holiday_calendar: e.holiday_calendar,
    updated_at: formatUpdatedAt(e.updated_at),
  };
}

export function leaveBookingJson(b: LeaveBookingRecord): LeaveBookingJson {
  return {
    id: b.id,
    employee_id: b.employee_id,
    leave_type: { id: b.leave_type.id, name: b.leave_type.name, category: b.leave_type.category, is_paid: b.leave_type.is_paid },
    start_date: b.start_date,
    end_date: b.end_date,
    start_half_day: b.start_half_day,
    // A period means nothing without its half-day flag (docs/api.md, "Leave bookings"),
    // whatever was stored.
    start_half_period: b.start_half_day ? b.start_half_period : null,
    end_half_day: b.end_half_day,
    end_half_period: b.end_half_day ? b.end_half_period : null,
    days: b.days,
    status: b.status,
    requested_at: instantOrNull(b.requested_at),
    reviewed_at: instantOrNull(b.reviewed_at),
    cancelled_at: instantOrNull(b.cancelled_at),
    updated_at: formatUpdatedAt(b.updated_at),
  };
}

export function closureHolidayEntry(c: ClosureDayRecord): HolidayEntry {
  return {
    date: c.date,
    name: c.name,
    type: "company",
    calendar: null,
    applies_to: c.applies_to,
    deducts_from_leave: c.deducts_from_leave,
    department: c.department,
    location: c.location,
  };
}

export function publicHolidayEntry(calendar: string, date: string, name: string): HolidayEntry {
  return {
    date,
    name,
    type: "public",
    calendar,
    applies_to: "calendar",
    deducts_from_leave: false,
    department: null,
    location: null,
  };
}
