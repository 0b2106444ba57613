/**
 * One builder per record, for tests and fixtures: each gives every field of the record's
 * declaration (lib/record-fields.ts) a value by the field's kind, so that a field added to
 * the declaration gets a value here without anyone touching a test: `null` when the field
 * may be null, a fresh id for an id, otherwise a value of its kind the API's schema accepts.
 * On top of that, a few fields get values that read like a real record ("Ada Lovelace", an
 * annual leave type, a Monday-to-Friday booking), and the caller's overrides win over all.
 *
 *   anEmployee({ first_name: "Grace" })          // EmployeeRecord: what a Store reads back
 *   anEmployeeInput({ status: "terminated" })    // EmployeeInput: what an ImportWriter takes
 *   anEmployeeJson({ updated_at: "…" })          // EmployeeJson: what the API answers
 *   aStoredEmployee({ organisation_id: org })    // StoredEmployee: a record of StoreContents
 *
 * Runtime-neutral: imports only lib/, so it ships as `leaveapi/testing`.
 */
import type { ClosureDayInput, EmployeeInput, LeaveBookingInput } from "../lib/admin-store.ts";
import type { EmployeeJson, LeaveBookingJson } from "../lib/api-schemas.ts";
import { randomUuid } from "../lib/ids.ts";
import {
  EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  type FieldKind,
  type FieldSpec,
  type FieldSpecs,
  type KindValues,
} from "../lib/record-fields.ts";
import { employeeJson, leaveBookingJson, type ClosureDayRecord, type EmployeeRecord, type LeaveBookingRecord, type LeaveTypeRecord } from "../lib/records.ts";
import type { StoredBooking, StoredClosureDay, StoredEmployee, StoredLeaveType } from "../lib/store-contents.ts";

/** 2026-01-01T00:00:00Z: the instant a built record carries wherever the caller names none. */
export const BUILT_AT = Date.UTC(2026, 0, 1);

/** A value of each kind that the kind's API schema accepts; a new kind must say what its value is. */
const KIND_DEFAULTS: { readonly [K in FieldKind]: () => KindValues[K] } = {
  text: () => "text",
  date: () => "2026-03-02",
  instant: () => BUILT_AT,
  stamp: () => BUILT_AT,
  flag: () => false,
  days: () => 1,
  leave_status: () => "approved",
  half_period: () => "am",
  closure_scope: () => "all",
  holiday_type: () => "company",
  leave_type: () => aLeaveType(),
};

/**
 * The forms a record is built in: `record` as a Store reads it back, `input` as an
 * ImportWriter takes it, `stored` as StoreContents holds it (the record's fields under their
 * columns). Under its column a leave type is held by id.
 */
type Form = "record" | "input" | "stored";

/**
 * A field's default: `null` if it may be null (unless `full`), a fresh id if it holds one
 * (imported as an optional UUID), else by kind.
 */
function defaultOf(spec: FieldSpec, byColumn: boolean, full: boolean): unknown {
  if (spec.nullable && !full) return null;
  if (spec.import === "optionalUuid" || (byColumn && spec.kind === "leave_type")) return randomUuid();
  return KIND_DEFAULTS[spec.kind]();
}

/** A default for every field of `fields` that the form holds, in declaration order; with `full`, no field null. */
function defaultsOf<T>(fields: FieldSpecs, form: Form, full = false): T {
  const place = form === "input" ? "input" : "record";
  const byColumn = form !== "record";
  const built: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(fields)) {
    if (spec[place] === undefined) continue;
    built[byColumn ? (spec.column ?? key) : key] = defaultOf(spec, byColumn, full);
  }
  return built as T;
}

/**
 * The fields of `fields` that `form` holds and `built` leaves null (or lacks), by the
 * declaration: what a "full" builder must never leave, and what a store must read back.
 */
export function fieldsLeftNull(fields: FieldSpecs, form: Form, built: object): string[] {
  const place = form === "input" ? "input" : "record";
  const values = built as Record<string, unknown>;
  return Object.entries(fields)
    .filter(([, spec]) => spec[place] !== undefined)
    .map(([key, spec]) => (form === "record" ? key : (spec.column ?? key)))
    .filter((key) => values[key] === null || values[key] === undefined);
}

// The values that make a record read like a real one; every other field takes its kind's default.
const EMPLOYEE = {
  first_name: "Ada",
  last_name: "Lovelace",
  job_title: "Engineer",
  department: "Engineering",
  status: "active",
  start_date: "2020-01-06",
  holiday_calendar: "GB-ENG",
} satisfies Partial<EmployeeRecord & EmployeeInput>;
const LEAVE_TYPE = { name: "Annual leave", category: "annual", is_paid: true } satisfies Partial<LeaveTypeRecord>;
/** Monday to Friday: five days of leave. */
const BOOKING = {
  start_date: "2026-03-02",
  end_date: "2026-03-06",
  days: 5,
  status: "approved",
  requested_at: Date.UTC(2026, 1, 1, 10),
} satisfies Partial<LeaveBookingRecord & LeaveBookingInput>;
/**
 * What the full builders (`aFull…`) give the fields a typical record leaves null, so that a
 * store that drops one, or a field added to the declaration that no store writes, fails the
 * round trip of the Store contract (contract-round-trip.ts). Fields not named here take
 * their kind's default; the values agree with each other (a leaving date after the start,
 * half periods under half-day flags, a booking reviewed and then cancelled).
 */
const FULL_EMPLOYEE = {
  external_id: "HR-0042",
  preferred_name: "Addy",
  leaving_date: "2026-12-31",
} satisfies Partial<EmployeeInput>;
const FULL_BOOKING = {
  external_id: "LV-0042",
  start_half_day: true,
  start_half_period: "pm",
  end_half_day: true,
  end_half_period: "am",
  days: 4,
  status: "cancelled",
  reviewed_at: Date.UTC(2026, 1, 2, 9),
  cancelled_at: Date.UTC(2026, 1, 20, 16),
} satisfies Partial<LeaveBookingInput>;
const CLOSURE_DAY = { date: "2026-12-24", name: "Office closed", applies_to: "all", deducts_from_leave: true } satisfies Partial<ClosureDayInput>;

// ---- Records as a Store reads them back (lib/records.ts).

export function anEmployee(overrides: Partial<EmployeeRecord> = {}): EmployeeRecord {
  return { ...defaultsOf<EmployeeRecord>(EMPLOYEE_FIELDS, "record"), ...EMPLOYEE, ...overrides };
}

export function aLeaveType(overrides: Partial<LeaveTypeRecord> = {}): LeaveTypeRecord {
  return { ...defaultsOf<LeaveTypeRecord>(LEAVE_TYPE_FIELDS, "record"), ...LEAVE_TYPE, ...overrides };
}

export function aLeaveBooking(overrides: Partial<LeaveBookingRecord> = {}): LeaveBookingRecord {
  return { ...defaultsOf<LeaveBookingRecord>(LEAVE_BOOKING_FIELDS, "record"), ...BOOKING, ...overrides };
}

export function aClosureDay(overrides: Partial<ClosureDayRecord> = {}): ClosureDayRecord {
  return { ...defaultsOf<ClosureDayRecord>(HOLIDAY_ENTRY_FIELDS, "record"), ...CLOSURE_DAY, ...overrides };
}

// ---- What an ImportWriter takes (lib/admin-store.ts): a booking's leave type by id, which names no written type unless given.

export function anEmployeeInput(overrides: Partial<EmployeeInput> = {}): EmployeeInput {
  return { ...defaultsOf<EmployeeInput>(EMPLOYEE_FIELDS, "input"), ...EMPLOYEE, ...overrides };
}

export function aLeaveBookingInput(overrides: Partial<LeaveBookingInput> = {}): LeaveBookingInput {
  return { ...defaultsOf<LeaveBookingInput>(LEAVE_BOOKING_FIELDS, "input"), ...BOOKING, ...overrides };
}

export function aClosureDayInput(overrides: Partial<ClosureDayInput> = {}): ClosureDayInput {
  return { ...defaultsOf<ClosureDayInput>(HOLIDAY_ENTRY_FIELDS, "input"), ...CLOSURE_DAY, ...overrides };
}

// ---- Full records: every field that may be null holds a value (FULL_EMPLOYEE, FULL_BOOKING).

/** Without the input-only fields (an external id), which a record does not hold. */
const recordPart = <F extends FieldSpecs>(fields: F, values: object) =>
  Object.fromEntries(Object.entries(values).filter(([key]) => fields[key]?.record !== undefined));

export function aFullEmployee(overrides: Partial<EmployeeRecord> = {}): EmployeeRecord {
  const full = recordPart(EMPLOYEE_FIELDS, FULL_EMPLOYEE);
  return { ...defaultsOf<EmployeeRecord>(EMPLOYEE_FIELDS, "record", true), ...EMPLOYEE, ...full, ...overrides };
}

export function aFullEmployeeInput(overrides: Partial<EmployeeInput> = {}): EmployeeInput {
  return { ...defaultsOf<EmployeeInput>(EMPLOYEE_FIELDS, "input", true), ...EMPLOYEE, ...FULL_EMPLOYEE, ...overrides };
}

export function aFullStoredEmployee(overrides: Partial<StoredEmployee> = {}): StoredEmployee {
  return { organisation_id: randomUuid(), ...aFullEmployee(), deleted: false, ...overrides };
}

export function aFullLeaveBooking(overrides: Partial<LeaveBookingRecord> = {}): LeaveBookingRecord {
  const full = recordPart(LEAVE_BOOKING_FIELDS, FULL_BOOKING);
  return { ...defaultsOf<LeaveBookingRecord>(LEAVE_BOOKING_FIELDS, "record", true), ...BOOKING, ...full, ...overrides };
}

export function aFullLeaveBookingInput(overrides: Partial<LeaveBookingInput> = {}): LeaveBookingInput {
  return { ...defaultsOf<LeaveBookingInput>(LEAVE_BOOKING_FIELDS, "input", true), ...BOOKING, ...FULL_BOOKING, ...overrides };
}

export function aFullStoredBooking(overrides: Partial<StoredBooking> = {}): StoredBooking {
  const booking = { ...defaultsOf<Omit<StoredBooking, "organisation_id" | "deleted">>(LEAVE_BOOKING_FIELDS, "stored", true), ...BOOKING };
  return { organisation_id: randomUuid(), ...booking, ...recordPart(LEAVE_BOOKING_FIELDS, FULL_BOOKING), deleted: false, ...overrides };
}

// ---- The API's JSON (lib/api-schemas.ts), shaped from a built record as the API shapes it.

export function anEmployeeJson(overrides: Partial<EmployeeJson> = {}): EmployeeJson {
  return { ...employeeJson(anEmployee()), ...overrides };
}

export function aLeaveBookingJson(overrides: Partial<LeaveBookingJson> = {}): LeaveBookingJson {
  return { ...leaveBookingJson(aLeaveBooking()), ...overrides };
}

// ---- Records of StoreContents (lib/store-contents.ts): the memory store's data, the Store contract's fixture.

export function aStoredEmployee(overrides: Partial<StoredEmployee> = {}): StoredEmployee {
  return { organisation_id: randomUuid(), ...anEmployee(), deleted: false, ...overrides };
}

export function aStoredLeaveType(overrides: Partial<StoredLeaveType> = {}): StoredLeaveType {
  return { organisation_id: randomUuid(), ...aLeaveType(), ...overrides };
}

export function aStoredBooking(overrides: Partial<StoredBooking> = {}): StoredBooking {
  const booking = { ...defaultsOf<Omit<StoredBooking, "organisation_id" | "deleted">>(LEAVE_BOOKING_FIELDS, "stored"), ...BOOKING };
  return { organisation_id: randomUuid(), ...booking, deleted: false, ...overrides };
}

export function aStoredClosureDay(overrides: Partial<StoredClosureDay> = {}): StoredClosureDay {
  return { organisation_id: randomUuid(), id: randomUuid(), ...aClosureDay(), updated_at: BUILT_AT, deleted: false, ...overrides };
}
