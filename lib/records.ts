/**
 * The records the API returns, as the store hands them over (instants as epoch
 * milliseconds), and their exact v1 JSON shapes: every field the contract names, no other,
 * unknown values as `null` (docs/api.md, "Rules for every record"). Both derive from the
 * field declarations of record-fields.ts, as do the schemas the OpenAPI document is
 * generated from (api-schemas.ts), so the three cannot disagree.
 */
import type { EmployeeJson, HolidayEntryJson, LeaveBookingJson } from "./api-schemas.ts";
import { formatInstant } from "./dates.ts";
import {
  apiKeys,
  type EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  type LEAVE_BOOKING_FIELDS,
  type LEAVE_TYPE_FIELDS,
  type ApiKey,
  type FieldKind,
  type FieldSpecs,
  type JsonOf,
  type RecordOf,
  type ValueOf,
} from "./record-fields.ts";

export { LEAVE_STATUSES, type ClosureAppliesTo, type HalfPeriod, type LeaveStatus } from "./record-fields.ts";

export interface EmployeeRecord extends RecordOf<typeof EMPLOYEE_FIELDS> {}
export interface LeaveTypeRecord extends RecordOf<typeof LEAVE_TYPE_FIELDS> {}
export interface LeaveBookingRecord extends RecordOf<typeof LEAVE_BOOKING_FIELDS> {}
/** A company closure day as the store keeps it: what the API shows of it, less the fixed `type` and `calendar`. */
export interface ClosureDayRecord extends RecordOf<typeof HOLIDAY_ENTRY_FIELDS> {}

/** One entry of GET /v1/holidays: its shape is lib/api-schemas.ts's HolidayEntry. */
export type HolidayEntry = HolidayEntryJson;

const instantOrNull = (ms: number | null) => (ms === null ? null : formatInstant(ms));

// The records of one import share their updated_at, so a page formats the same instant
// many times over; the last one formatted is kept (toISOString was 7% of a page's time).
let lastInstant = Number.NaN;
let lastInstantText = "";
/** `formatInstant`, remembering the last instant formatted: a page's records mostly share theirs. */
export function formatUpdatedAt(ms: number): string {
  if (ms !== lastInstant) {
    lastInstantText = formatInstant(ms);
    lastInstant = ms;
  }
  return lastInstantText;
}

/** What the JSON shaping reads for each field: the record's value where the JSON writes it otherwise, else the JSON value itself. */
type JsonSource<F extends FieldSpecs> = {
  [K in ApiKey<F>]: F[K]["kind"] extends keyof typeof TO_JSON ? ValueOf<F[K]> : JsonOf<F>[K];
};

/** The kinds whose JSON is not the record's value. */
const TO_JSON = {
  instant: (ms: unknown) => instantOrNull(ms as number | null),
  stamp: (ms: unknown) => formatUpdatedAt(ms as number),
} satisfies Partial<Record<FieldKind, (value: unknown) => unknown>>;

/** The JSON of a record of these fields, for the records no page shapes by the hundred: a new object, its fields in API order. */
function jsonShaper<F extends FieldSpecs>(fields: F): (source: JsonSource<F>) => JsonOf<F> {
  const steps = apiKeys(fields).map((key) => {
    const kind = fields[key]!.kind;
    return [key, kind in TO_JSON ? TO_JSON[kind as keyof typeof TO_JSON] : null] as const;
  });
  return (source) => {
    const values = source as Record<string, unknown>;
    const json: Record<string, unknown> = {};
    for (const [key, toJson] of steps) json[key] = toJson ? toJson(values[key]) : values[key];
    return json as JsonOf<F>;
  };
}

const holidayJson = jsonShaper(HOLIDAY_ENTRY_FIELDS);

// The employee and booking shapes are written out: a page shapes up to 500 records, and
// the loop of jsonShaper took about 0.2 µs more a record (7% of an employees page). The
// return types hold them to the declaration's fields, test/record-fields.test.ts to its order.

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
  return holidayJson({ ...c, type: "company", calendar: null });
}

export function publicHolidayEntry(calendar: string, date: string, name: string): HolidayEntry {
  return holidayJson({
    date,
    name,
    type: "public",
    calendar,
    applies_to: "calendar",
    deducts_from_leave: false,
    department: null,
    location: null,
  });
}
