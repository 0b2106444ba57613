/**
 * The records the API returns, as JSON (DECISIONS §1): every field always present, unknown
 * values `null`, date-times as RFC 3339 strings in UTC with milliseconds. These are the
 * wire shapes of lib/records.ts's `employeeJson` and `leaveBookingJson`; a type-level test
 * keeps the two from drifting apart.
 */
import type { HalfPeriod, LeaveStatus } from "../lib/records.ts";

export type { HalfPeriod, HolidayEntry, LeaveStatus } from "../lib/records.ts";

export interface Employee {
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
  updated_at: string;
}

export interface LeaveType {
  id: string;
  name: string;
  category: string;
  is_paid: boolean;
}

export interface LeaveBooking {
  id: string;
  employee_id: string;
  leave_type: LeaveType;
  start_date: string;
  end_date: string;
  start_half_day: boolean;
  start_half_period: HalfPeriod | null;
  end_half_day: boolean;
  end_half_period: HalfPeriod | null;
  /** A multiple of 0.5. */
  days: number;
  status: LeaveStatus;
  requested_at: string | null;
  reviewed_at: string | null;
  cancelled_at: string | null;
  updated_at: string;
}

/** One page of a list endpoint (api-spec §2.4). */
export interface Page<T> {
  has_more: boolean;
  next_cursor: string | null;
  data: T[];
}

/** An instant for `updated_since`: a Date, or an RFC 3339 string with an offset. */
export type Instant = Date | string;

export interface EmployeesQuery {
  /** Exact employment status, such as `active` or `terminated`. */
  status?: string;
  /** Only employees changed at or after this instant. */
  updatedSince?: Instant;
  /** Records per request, 1–500 (the API's default is 100). */
  limit?: number;
}

export interface LeaveRequestsQuery {
  /** First day of the range, `YYYY-MM-DD`, inclusive. */
  from: string;
  /**
   * Last day of the range, inclusive. The API takes at most 400 days per request; a longer
   * range is read in consecutive windows, and each booking is still yielded once.
   */
  to: string;
  status?: LeaveStatus;
  employeeId?: string;
  updatedSince?: Instant;
  limit?: number;
}

export interface HolidaysQuery {
  /** At most 400 days after `from` (the API refuses longer ranges). */
  from: string;
  to: string;
  /** One calendar key, such as `GB-ENG`: public holidays of that calendar only. */
  calendar?: string;
  type?: "public" | "company";
}
