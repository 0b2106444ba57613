/**
 * What validation makes of one import record (normalise-records.ts, holiday-rows.ts) and
 * the later stages read (import-file.ts, apply-rows.ts, prune.ts): a row the writer takes.
 */
import type { ClosureDayInput, EmployeeInput, LeaveBookingInput } from "../../lib/admin-store.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import type { ImportProblem } from "./field-rules.ts";

/** The employee fields a record may leave out and an update then keeps as stored (DECISIONS §11, "Absent is not empty"). */
export const KEPT_EMPLOYEE_FIELDS = ["preferred_name", "job_title", "department", "start_date", "leaving_date", "holiday_calendar"] as const;
export type KeptEmployeeField = (typeof KEPT_EMPLOYEE_FIELDS)[number];

/** The booking fields a record may leave out and an update then keeps as stored; a half day's flag and period go together. */
export const KEPT_BOOKING_FIELDS = [
  "start_half_day",
  "start_half_period",
  "end_half_day",
  "end_half_period",
  "requested_at",
  "reviewed_at",
  "cancelled_at",
] as const;
export type KeptBookingField = (typeof KEPT_BOOKING_FIELDS)[number];

export type ImportKind = "employees" | "leave" | "holidays";

/** A booking before its employee is looked up: `days` is `null` when the file did not give it. */
export type BookingDraft = Omit<LeaveBookingInput, "days"> & { days: number | null };

export type ImportRow =
  /**
   * `absent`: the fields the record did not carry at all (a column the file does not have,
   * a key a JSON record leaves out), which an update keeps as stored (apply-rows.ts).
   */
  | { type: "employee"; employee: EmployeeInput; absent: readonly KeptEmployeeField[] }
  | { type: "booking"; booking: BookingDraft; leaveType: LeaveTypeRecord; employeeExternalId: string | null; absent: readonly KeptBookingField[] }
  | { type: "closure"; closure: ClosureDayInput }
  /** `name` is `null` only on a deleted row. */
  | { type: "public_holiday"; calendar: string; date: string; name: string | null; deleted: boolean }
  | { type: "delete"; record: "employee" | "booking" | "closure"; id: string };

export type NormaliseResult = { ok: true; row: ImportRow } | { ok: false; problems: ImportProblem[] };

export interface NormaliseOptions {
  organisationId: string;
  /** The record is a CSV row: cells are text or null. */
  text?: boolean;
}
