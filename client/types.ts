/**
 * The records the API returns, as JSON (docs/api.md, "Rules for every record"): every field
 * always present, unknown values `null`, date-times as RFC 3339 strings in UTC with
 * milliseconds. These are the types of lib/api-schemas.ts, the schemas the OpenAPI document
 * is generated from.
 */
import type { EmployeeJson, LeaveBookingJson } from "../lib/api-schemas.ts";
import type { LeaveStatus } from "../lib/records.ts";

export type { HalfPeriod, HolidayEntry, LeaveStatus } from "../lib/records.ts";

/** An employee as the API returns it: the type of the valibot schema the server's own answers are checked against. */
export type Employee = EmployeeJson;

/** A leave booking as the API returns it; `days` is a multiple of 0.5. */
export type LeaveBooking = LeaveBookingJson;

export type LeaveType = LeaveBooking["leave_type"];

/** One page of a list endpoint (docs/api.md, "Pages"). */
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

/** A record no longer listed (docs/api.md, "GET /v1/deletions"). */
export interface Deletion {
  resource: "employees" | "leave-requests";
  id: string;
  deleted_at: string;
}

export interface DeletionsQuery {
  resource: Deletion["resource"];
  /** Required: deletions at or after this instant. */
  updatedSince: Instant;
  limit?: number;
}
