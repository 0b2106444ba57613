/**
 * The fields of every record the API serves, declared once, in the order the API answers
 * them (field order is part of what clients see: docs/api.md, "Rules for every record").
 * Everything that lists a record's fields derives its list from here: the record types
 * (records.ts), the API's JSON shaping and schemas (records.ts, api-schemas.ts, and so the
 * OpenAPI document), the SQL store's columns and row mapping (adapters/sql/), the memory
 * store's content, the import's fields and checks (scripts/import/) and the columns
 * `leaveapi fetch` writes (scripts/fetch/).
 *
 * A field says what kind of value it holds and where it appears:
 * - `api`: its schema in the API's JSON; absent, the API never shows it.
 * - `record`: the store keeps it and reads it back into the record the API shows.
 * - `input`: an import writes it (the ImportWriter's input, lib/admin-store.ts).
 * - `import`: an import file may carry it, checked by the rule of that name
 *   (scripts/import/import-fields.ts).
 * - `column`: the SQL column, when it is not the field's name.
 */
import * as v from "valibot";

export const LEAVE_STATUSES = ["pending", "approved", "rejected", "cancelled", "cancellation_requested"] as const;
export type LeaveStatus = (typeof LEAVE_STATUSES)[number];
export type HalfPeriod = "am" | "pm";
export type ClosureAppliesTo = "all" | "department" | "location";

/** The names of the checks an import applies to a field (scripts/import/import-fields.ts gives each its valibot schema). */
export type ImportRule =
  | "optionalUuid"
  | "externalId"
  | "text"
  | "optionalText"
  | "employmentStatus"
  | "leaveCategory"
  | "paidFlag"
  | "leaveType"
  | "date"
  | "optionalDate"
  | "optionalCalendarKey"
  | "flag"
  | "halfPeriod"
  | "days"
  | "leaveStatus"
  | "instant"
  | "holidayType"
  | "calendarKey"
  | "closureScope";

/**
 * What a field holds. `stamp` is the instant the store sets when a record changes
 * (`updated_at`): many records share it, so the JSON shaping remembers the last one.
 */
export type FieldKind =
  | "text"
  | "date"
  | "instant"
  | "stamp"
  | "flag"
  | "days"
  | "leave_status"
  | "half_period"
  | "closure_scope"
  | "holiday_type"
  | "leave_type";

export interface FieldSpec {
  readonly kind: FieldKind;
  readonly nullable?: true;
  readonly api?: v.GenericSchema;
  readonly record?: true;
  readonly input?: true;
  readonly import?: ImportRule;
  readonly column?: string;
}

export type FieldSpecs = Readonly<Record<string, FieldSpec>>;

/** Ids are answered in lower case (docs/api.md, "Rules for every record"). */
const Uuid = v.pipe(v.string(), v.uuid(), v.regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/));
const IsoDate = v.pipe(v.string(), v.isoDate());
/** What formatInstant writes: RFC 3339 in UTC with milliseconds. */
const Instant = v.pipe(v.string(), v.isoTimestamp(), v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/));
const Text = v.nullable(v.string());
const HalfPeriodJson = v.pipe(v.nullable(v.picklist(["am", "pm"])), v.description("`am` or `pm` when the matching half-day flag is true, else `null`."));
const CalendarKey = v.nullable(v.pipe(v.string(), v.examples(["GB-ENG"])));

const ID = { kind: "text", api: Uuid, record: true, input: true, import: "optionalUuid" } as const;
const EXTERNAL_ID = { kind: "text", nullable: true, input: true, import: "externalId" } as const;
const NAME = { kind: "text", nullable: true, api: Text, record: true, input: true, import: "optionalText" } as const;

export const EMPLOYEE_FIELDS = {
  id: ID,
  external_id: EXTERNAL_ID,
  first_name: NAME,
  last_name: NAME,
  preferred_name: NAME,
  job_title: NAME,
  department: NAME,
  status: {
    kind: "text",
    api: v.pipe(
      v.nullable(v.string()),
      v.description("Employment status, e.g. `active` or `terminated`; null only to a credential restricted to other fields."),
      v.examples(["active", "terminated"]),
    ),
    record: true,
    input: true,
    import: "employmentStatus",
  },
  start_date: { kind: "date", nullable: true, api: v.nullable(IsoDate), record: true, input: true, import: "optionalDate" },
  leaving_date: { kind: "date", nullable: true, api: v.nullable(IsoDate), record: true, input: true, import: "optionalDate" },
  holiday_calendar: {
    kind: "text",
    nullable: true,
    api: v.pipe(CalendarKey, v.description("The calendar key whose public holidays the employee follows (the key space of `calendar` on /v1/holidays).")),
    record: true,
    input: true,
    import: "optionalCalendarKey",
  },
  updated_at: { kind: "stamp", api: v.pipe(Instant, v.description("When anything in this record last changed.")), record: true },
} as const satisfies FieldSpecs;

export const LEAVE_TYPE_FIELDS = {
  id: ID,
  name: { kind: "text", api: v.string(), record: true, input: true, import: "text" },
  category: {
    kind: "text",
    api: v.pipe(v.string(), v.description("Always `annual` in v1: only annual leave is returned.")),
    record: true,
    input: true,
    import: "leaveCategory",
  },
  is_paid: { kind: "flag", api: v.boolean(), record: true, input: true, import: "paidFlag" },
} as const satisfies FieldSpecs;

/** The leave type's JSON schema: its own component in the OpenAPI document, embedded in every booking. */
export const LeaveTypeJson = v.strictObject(apiEntries(LEAVE_TYPE_FIELDS));

const DATE = { kind: "date", api: IsoDate, record: true, input: true, import: "date" } as const;
const HALF_DAY = { kind: "flag", api: v.boolean(), record: true, input: true, import: "flag" } as const;
const HALF_PERIOD = { kind: "half_period", nullable: true, api: HalfPeriodJson, record: true, input: true, import: "halfPeriod" } as const;

export const LEAVE_BOOKING_FIELDS = {
  id: ID,
  external_id: EXTERNAL_ID,
  employee_id: ID,
  employee_external_id: { kind: "text", nullable: true, import: "externalId" },
  /** Stored as the leave type's id; the record and the API embed the whole leave type. */
  leave_type: { kind: "leave_type", api: LeaveTypeJson, record: true, input: true, import: "leaveType", column: "leave_type_id" },
  start_date: DATE,
  end_date: DATE,
  start_half_day: HALF_DAY,
  start_half_period: HALF_PERIOD,
  end_half_day: HALF_DAY,
  end_half_period: HALF_PERIOD,
  days: {
    kind: "days",
    api: v.pipe(
      v.number(),
      v.minValue(0),
      v.multipleOf(0.5),
      v.description("Leave days the booking takes: weekdays, less public holidays and closure days, less half days."),
    ),
    record: true,
    input: true,
    import: "days",
  },
  status: { kind: "leave_status", api: v.picklist(LEAVE_STATUSES), record: true, input: true, import: "leaveStatus" },
  requested_at: { kind: "instant", nullable: true, api: v.nullable(Instant), record: true, input: true, import: "instant" },
  reviewed_at: {
    kind: "instant",
    nullable: true,
    api: v.pipe(v.nullable(Instant), v.description("`null` until the booking is reviewed.")),
    record: true,
    input: true,
    import: "instant",
  },
  cancelled_at: {
    kind: "instant",
    nullable: true,
    api: v.pipe(v.nullable(Instant), v.description("`null` unless the booking was cancelled.")),
    record: true,
    input: true,
    import: "instant",
  },
  updated_at: {
    kind: "stamp",
    api: v.pipe(Instant, v.description("When anything in this record, its leave type included, last changed.")),
    record: true,
  },
} as const satisfies FieldSpecs;

/**
 * An entry of GET /v1/holidays: a company closure day (the record the store keeps) or a
 * public holiday (`type` and `calendar` say which; only the API and files show them).
 */
export const HOLIDAY_ENTRY_FIELDS = {
  /** A closure day's id: never shown, it keys the closure in imports and the store. */
  id: { kind: "text", input: true, import: "optionalUuid" },
  date: { kind: "date", api: IsoDate, record: true, input: true, import: "date" },
  name: { kind: "text", api: v.string(), record: true, input: true, import: "text" },
  type: { kind: "holiday_type", api: v.picklist(["public", "company"]), import: "holidayType" },
  calendar: {
    kind: "text",
    nullable: true,
    api: v.pipe(CalendarKey, v.description("Calendar key of a public holiday; `null` for a closure day.")),
    import: "calendarKey",
  },
  applies_to: { kind: "closure_scope", api: v.picklist(["calendar", "all", "department", "location"]), record: true, input: true, import: "closureScope" },
  deducts_from_leave: {
    kind: "flag",
    api: v.pipe(v.boolean(), v.description("Whether the day uses up leave allowance; always false for public holidays.")),
    record: true,
    input: true,
    import: "flag",
  },
  department: {
    kind: "text",
    nullable: true,
    api: v.pipe(Text, v.description("Set when `applies_to` is `department`.")),
    record: true,
    input: true,
    import: "optionalText",
  },
  location: {
    kind: "text",
    nullable: true,
    api: v.pipe(Text, v.description("Set when `applies_to` is `location`.")),
    record: true,
    input: true,
    import: "optionalText",
  },
} as const satisfies FieldSpecs;

// ---- What derives from a declaration, in types and at run time.

type KeysWhere<F extends FieldSpecs, Place extends keyof FieldSpec> = {
  [K in keyof F]: F[K] extends Record<Place, unknown> ? K : never;
}[keyof F] &
  string;

export type ApiKey<F extends FieldSpecs> = KeysWhere<F, "api">;
export type RecordKey<F extends FieldSpecs> = KeysWhere<F, "record">;
export type InputKey<F extends FieldSpecs> = KeysWhere<F, "input">;
export type ImportKey<F extends FieldSpecs> = KeysWhere<F, "import">;

/** A field's name in the SQL table (and in the ImportWriter's input). */
export type ColumnOf<F extends FieldSpecs, K extends keyof F> = F[K] extends { column: infer C extends string } ? C : K & string;

export type RecordColumn<F extends FieldSpecs> = { [K in RecordKey<F>]: ColumnOf<F, K> }[RecordKey<F>];

/** The value a record holds for each kind of field. */
export interface KindValues {
  text: string;
  date: string;
  instant: number;
  stamp: number;
  flag: boolean;
  days: number;
  leave_status: LeaveStatus;
  half_period: HalfPeriod;
  closure_scope: ClosureAppliesTo;
  holiday_type: "public" | "company";
  leave_type: RecordOf<typeof LEAVE_TYPE_FIELDS>;
}

type OrNull<S> = S extends { nullable: true } ? null : never;
export type ValueOf<S extends FieldSpec> = KindValues[S["kind"]] | OrNull<S>;

/** The record the store reads back and the API shows. */
export type RecordOf<F extends FieldSpecs> = { -readonly [K in RecordKey<F>]: ValueOf<F[K]> };

/** What an import writes: each field under its column, a leave type by its id. */
export type InputOf<F extends FieldSpecs> = {
  -readonly [K in InputKey<F> as ColumnOf<F, K>]: F[K]["kind"] extends "leave_type" ? string : ValueOf<F[K]>;
};

/** The JSON the API answers. */
export type JsonOf<F extends FieldSpecs> = { -readonly [K in ApiKey<F>]: v.InferOutput<NonNullable<F[K]["api"]>> };

/** The entries of the record's JSON object schema, in API order. */
export type ApiEntries<F extends FieldSpecs> = { readonly [K in ApiKey<F>]: NonNullable<F[K]["api"]> };

function keysWhere<F extends FieldSpecs, K extends string>(fields: F, place: keyof FieldSpec): K[] {
  return Object.keys(fields).filter((name) => fields[name]![place] !== undefined) as K[];
}

/** `T` with its nullable fields optional: what a source that may know nothing of some of them (a host's table, a later field) gives `nullFilled`. */
export type NullsOptional<T> = { [K in keyof T as null extends T[K] ? never : K]: T[K] } & { [K in keyof T as null extends T[K] ? K : never]?: T[K] };

/**
 * `partial` as a whole `T`: its fields in the order of `keys` (the field list's), each one
 * it lacks null. So a record or input built from a source written before a nullable
 * field was added gets the field as null, rather than failing to compile or missing it.
 */
export function nullFilled<T>(keys: readonly (keyof T & string)[], partial: NullsOptional<T>): T {
  const from = partial as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = key in from ? from[key] : null;
  return out as T;
}

/** The fields the API shows, in the order it shows them. */
export function apiKeys<F extends FieldSpecs>(fields: F): ApiKey<F>[] {
  return keysWhere(fields, "api");
}

/** The fields the store reads back into the record. */
export function recordKeys<F extends FieldSpecs>(fields: F): RecordKey<F>[] {
  return keysWhere(fields, "record");
}

/** The fields an import writes. */
export function inputKeys<F extends FieldSpecs>(fields: F): InputKey<F>[] {
  return keysWhere(fields, "input");
}

/** The fields an import file may carry, in the order its messages list them. */
export function importKeys<F extends FieldSpecs>(fields: F): ImportKey<F>[] {
  return keysWhere(fields, "import");
}

/** A field's SQL column (and name in the ImportWriter's input). */
export function columnOf<F extends FieldSpecs, K extends keyof F & string>(fields: F, key: K): ColumnOf<F, K> {
  return (fields[key]!.column ?? key) as ColumnOf<F, K>;
}

/** The columns that hold a record's fields, a leave type by its id: what the SQL store reads. */
export function recordColumns<F extends FieldSpecs>(fields: F): RecordColumn<F>[] {
  return recordKeys(fields).map((key) => columnOf(fields, key));
}

/** The columns an import writes, in declaration order: the keys of InputOf. */
export function inputColumns<F extends FieldSpecs>(fields: F): (keyof InputOf<F> & string)[] {
  return inputKeys(fields).map((key) => columnOf(fields, key) as keyof InputOf<F> & string);
}

/** The fields `keys` of `row`, in that order: what a store compares or keeps of a record. */
export function pickFields<T, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = row[key];
  return picked;
}

/** The valibot object entries of the record's JSON, in API order. */
export function apiEntries<F extends FieldSpecs>(fields: F): ApiEntries<F> {
  return Object.fromEntries(apiKeys(fields).map((k) => [k, fields[k]!.api])) as ApiEntries<F>;
}

/**
 * The API's fields as flat columns (`leaveapi fetch`'s CSV, which `leaveapi import` reads
 * back): an embedded record's fields become `parent_child` columns in its place.
 */
export function flatColumns<F extends FieldSpecs>(fields: F): string[] {
  return apiKeys(fields).flatMap((k) => (fields[k]!.kind === "leave_type" ? nestedColumns(k) : [k]));
}

/** The flat columns of the embedded leave type under `parent`: `leave_type_id`, `leave_type_name`, …. */
export function nestedColumns(parent: string): string[] {
  return apiKeys(LEAVE_TYPE_FIELDS).map((k) => `${parent}_${k}`);
}

/** The import fields of a kind across every record, an embedded leave type's as `leave_type_…`: for reading CSV cells. */
export function importFieldsOfKind(kind: FieldKind): Set<string> {
  const names = new Set<string>();
  const add = (fields: FieldSpecs, prefix: string) => {
    for (const [name, spec] of Object.entries(fields)) {
      if (spec.import && spec.kind === kind) names.add(prefix + name);
      if (spec.import && spec.kind === "leave_type") add(LEAVE_TYPE_FIELDS, `${name}_`);
    }
  };
  for (const fields of [EMPLOYEE_FIELDS, LEAVE_BOOKING_FIELDS, HOLIDAY_ENTRY_FIELDS]) add(fields, "");
  return names;
}
