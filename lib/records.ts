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
  EMPLOYEE_FIELDS,
  nullFilled,
  recordKeys,
  type NullsOptional,
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
// many times over; the last one formatted is kept (toISOString showed in a page's profile).
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
export function jsonShaper<F extends FieldSpecs>(fields: F): (source: JsonSource<F>) => JsonOf<F> {
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

/**
 * The JSON of a record of these fields, compiled from the field list into one function
 * that writes the object literal out (`{ id: r.id, …, updated_at: t(r.updated_at) }`): a
 * page shapes up to 500 records, and a literal object costs less a record than the loop
 * of jsonShaper. The code is made of the field list's own names, never of input.
 */
function compiledJsonShaper<F extends FieldSpecs>(fields: F): (source: JsonSource<F>) => JsonOf<F> {
  const converters: ((value: unknown) => unknown)[] = [];
  const members = apiKeys(fields).map((key) => {
    const kind = fields[key]!.kind;
    const name = JSON.stringify(key);
    if (!(kind in TO_JSON)) return `${name}: r[${name}]`;
    converters.push(TO_JSON[kind as keyof typeof TO_JSON]);
    return `${name}: t[${converters.length - 1}](r[${name}])`;
  });
  try {
    return new Function("t", `return (r) => ({ ${members.join(", ")} });`)(converters);
  } catch {
    // A host that refuses code generation (Node's --disallow-code-generation-from-strings,
    // a Content-Security-Policy without 'unsafe-eval') gets the same JSON from the loop.
    return jsonShaper(fields);
  }
}

/** An employee's JSON: every field of EMPLOYEE_FIELDS the API shows, in its order. */
export const employeeJson: (e: EmployeeRecord) => EmployeeJson = compiledJsonShaper(EMPLOYEE_FIELDS) as (e: EmployeeRecord) => EmployeeJson;

/** An employee record from a source that may not know every nullable field (a host's table): those it lacks are null. */
export function employeeRecord(fields: NullsOptional<EmployeeRecord>): EmployeeRecord {
  return nullFilled<EmployeeRecord>(recordKeys(EMPLOYEE_FIELDS), fields);
}

// The booking's shape is written out: it embeds its leave type and drops a half-day
// period whose flag is off, which no field kind says. test/record-fields.test.ts holds
// it to the declaration's fields and their order.

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
