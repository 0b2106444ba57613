/**
 * One import record, validated and normalised into what the import writer stores
 * (docs/cli.md, "The import format"). A record is an object from JSON, or a CSV row already turned into an
 * object of strings and nulls (`text: true`: booleans and numbers are then read from text).
 *
 * - Field names are the API's own, as each record's declaration lists them
 *   (lib/record-fields.ts). A field this kind does not have is refused, so a typo
 *   never drops data silently; `updated_at` alone is accepted and ignored, so what the API
 *   returned can be imported again.
 * - Employees and bookings are keyed by `id` (any case, stored lower-case) or by
 *   `external_id`, whose id is then derived (`derivedId`). Leave types are keyed by
 *   `leave_type.id`, else by their name.
 * - `deleted: true` deletes: only what identifies the record is read; other fields of
 *   the kind are allowed and ignored.
 * - Normalised records hold exactly the fields the import writer takes, so the store's
 *   content digest (over those fields, sorted: lib/imported-content.ts), and with it "an
 *   identical re-import changes nothing", is stable.
 */
import * as v from "valibot";
import type { EmployeeInput } from "../../lib/admin-store.ts";
import { restoreFormula } from "../../lib/csv-formula.ts";
import { parseDate } from "../../lib/dates.ts";
import { importDerivedId } from "./derived-ids.ts";
import { readBookingFields, type BookingFields } from "./booking-fields.ts";
import { holidayRow } from "./holiday-rows.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import { EMPLOYEE_FIELDS, HOLIDAY_ENTRY_FIELDS, importFieldsOfKind, importKeys, LEAVE_BOOKING_FIELDS, LEAVE_TYPE_FIELDS } from "../../lib/record-fields.ts";
import { externalId, flag, optionalUuid, parseField, RECORD, suggestField } from "./field-rules.ts";
import { importEntries } from "./import-fields.ts";
import type { ImportProblem } from "./field-rules.ts";
import {
  KEPT_BOOKING_FIELDS,
  KEPT_EMPLOYEE_FIELDS,
  type KeptBookingField,
  type BookingDraft,
  type ImportKind,
  type ImportRow,
  type KeptEmployeeField,
  type NormaliseOptions,
  type NormaliseResult,
} from "./import-rows.ts";

export type { ImportProblem } from "./field-rules.ts";
// Declared in import-rows.ts, below this file and holiday-rows.ts, which both make rows.
export type { BookingDraft, ImportKind, ImportRow, NormaliseOptions, NormaliseResult } from "./import-rows.ts";

/** The fields a record of each kind may have, as their declarations give them (lib/record-fields.ts). */
const FIELDS = {
  employees: importKeys(EMPLOYEE_FIELDS),
  leave: importKeys(LEAVE_BOOKING_FIELDS),
  holidays: importKeys(HOLIDAY_ENTRY_FIELDS),
} satisfies Record<ImportKind, readonly string[]>;
const ALWAYS_ALLOWED = ["deleted", "updated_at"];
const LEAVE_TYPE_KEYS = importKeys(LEAVE_TYPE_FIELDS);
/** A CSV row's leave type columns, `leave_type_id` and so on, by the embedded field each holds. */
const LEAVE_TYPE_COLUMNS = new Map(LEAVE_TYPE_KEYS.map((key) => [`leave_type_${key}`, key]));
/** The fields a record of each kind may have, as JSON and as CSV columns. */
const ALLOWED = Object.fromEntries(
  (Object.keys(FIELDS) as ImportKind[]).map((kind) => {
    const json: readonly string[] = [...FIELDS[kind], ...ALWAYS_ALLOWED];
    const csv = kind === "leave" ? [...json.filter((f) => f !== "leave_type"), ...LEAVE_TYPE_COLUMNS.keys()] : json;
    return [kind, { json, csv }];
  }),
) as Record<ImportKind, { json: readonly string[]; csv: readonly string[] }>;
const BOOLEAN_FIELDS = new Set(["deleted", ...importFieldsOfKind("flag")]);
const NUMBER_FIELDS = importFieldsOfKind("days");

const keyFields = { id: optionalUuid, external_id: externalId };

const employeeFields = v.object(importEntries(EMPLOYEE_FIELDS), RECORD);

type Problems = ImportProblem[];

/**
 * Validates records of `kind` for one import, one at a time; every problem of a record is
 * reported, not just the first. What repeats from row to row is derived once per import:
 * the ids of a booking's employee and leave type (a handful among a million bookings).
 */
export function createRecordNormaliser(kind: ImportKind, options: NormaliseOptions): (raw: unknown) => NormaliseResult {
  const known = { employee: new Map<string, string>(), leave_type: new Map<string, string>() };
  const referenceId: ReferenceId = (target, key) => {
    const ids = known[target];
    let id = ids.get(key);
    if (id === undefined) {
      if (ids.size >= REFERENCE_ID_LIMIT) ids.clear();
      id = importDerivedId(options.organisationId, target, key);
      ids.set(key, id);
    }
    return id;
  };
  return (raw) => normaliseRecord(kind, raw, options, referenceId);
}

/** Bounds the memo of derived reference ids: far above any real number of employees. */
const REFERENCE_ID_LIMIT = 100_000;

type ReferenceId = (target: "employee" | "leave_type", key: string) => string;

function normaliseRecord(kind: ImportKind, raw: unknown, options: NormaliseOptions, referenceId: ReferenceId): NormaliseResult {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [{ field: "row", problem: "must be an object of fields" }] };
  }
  const problems: Problems = [];
  let record = raw as Record<string, unknown>;
  if (options.text) {
    record = readTextCells(record);
    rejectUnknown(record, ALLOWED[kind].csv, "", problems);
    if (kind === "leave") record = nestLeaveTypeColumns(record);
  } else {
    rejectUnknown(record, ALLOWED[kind].json, "", problems);
    const leaveType = record.leave_type;
    if (kind === "leave" && typeof leaveType === "object" && leaveType !== null && !Array.isArray(leaveType)) {
      rejectUnknown(leaveType as Record<string, unknown>, LEAVE_TYPE_KEYS, "leave_type.", problems);
    }
  }
  const deleted = record.deleted === undefined ? false : (parseField(flag, record.deleted, "deleted", problems) ?? false);
  const row =
    kind === "employees"
      ? employeeRow(record, deleted, options, problems)
      : kind === "leave"
        ? bookingRow(record, deleted, options, referenceId, problems)
        : holidayRow(record, deleted, options, problems);
  if (problems.length > 0 || row === null) {
    const rename = (field: string) => (options.text && field.startsWith("leave_type.") ? field.replace(".", "_") : field);
    return { ok: false, problems: problems.map((p) => ({ ...p, field: rename(p.field) })) };
  }
  return { ok: true, row };
}

/**
 * CSV cells: `true`/`false` in any case for boolean fields, decimal text for number fields,
 * and text with the `'` that kept a spreadsheet from running it as a formula taken off.
 */
function readTextCells(row: Record<string, unknown>): Record<string, unknown> {
  // No prototype: a column named __proto__ stays a key, reported as unknown, not lost.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(row)) {
    const cell = typeof value === "string" ? value.trim() : value;
    if (BOOLEAN_FIELDS.has(key) && typeof cell === "string" && /^(true|false)$/i.test(cell)) out[key] = cell.toLowerCase() === "true";
    else if (NUMBER_FIELDS.has(key) && typeof cell === "string" && /^-?\d+(\.\d+)?$/.test(cell)) out[key] = Number(cell);
    else out[key] = typeof value === "string" ? restoreFormula(value) : value;
  }
  return out;
}

function nestLeaveTypeColumns(row: Record<string, unknown>): Record<string, unknown> {
  const nested = Object.create(null) as Record<string, unknown>;
  const leaveType: Record<string, unknown> = Object.fromEntries(LEAVE_TYPE_KEYS.map((key) => [key, undefined]));
  for (const [column, value] of Object.entries(row)) {
    const key = LEAVE_TYPE_COLUMNS.get(column);
    if (key === undefined) nested[column] = value;
    else leaveType[key] = value;
  }
  nested.leave_type = leaveType;
  return nested;
}

/** The names a record of `kind` may have: as CSV columns (`tabular`: a leave type's as `leave_type_…`), or as JSON fields. */
export function importColumns(kind: ImportKind, tabular: boolean): readonly string[] {
  return tabular ? ALLOWED[kind].csv : ALLOWED[kind].json;
}

/** Unknown fields named one by one, per record; a record of a million keys gets one more line, not a million. */
const MAX_UNKNOWN_REPORTED = 10;

function rejectUnknown(record: Record<string, unknown>, allowed: readonly string[], prefix: string, problems: Problems): void {
  let unknown = 0;
  for (const key of Object.keys(record)) {
    if (allowed.includes(key)) continue;
    if (++unknown > MAX_UNKNOWN_REPORTED) continue;
    // A name far longer than any field is no typo of one, and is shortened like a value.
    const guess = key.length <= 40 ? suggestField(key, allowed) : null;
    const hint = guess ? `did you mean ${guess}?` : `the fields are ${allowed.join(", ")}`;
    // `value` is the likely field: with one, the hint to leave the key out would only distract.
    problems.push({
      field: prefix + (key.length <= 40 ? key : `${key.slice(0, 40)}…`),
      problem: `unknown field; ${hint}`,
      code: "unknown_field",
      value: guess ?? undefined,
    });
  }
  if (unknown > MAX_UNKNOWN_REPORTED)
    problems.push({ field: "row", problem: `has ${(unknown - MAX_UNKNOWN_REPORTED).toLocaleString("en")} more unknown fields` });
}

/** The record's id: `id` when given, else derived from `external_id`. */
function recordId(
  key: { id: string | null; external_id: string | null },
  organisationId: string,
  kind: "employee" | "leave",
  problems: Problems,
): string | null {
  if (key.id !== null) return key.id;
  if (key.external_id !== null) return importDerivedId(organisationId, kind, key.external_id);
  problems.push({ field: "id", problem: "id or external_id is required", code: "required" });
  return null;
}

function deleteRow(record: Record<string, unknown>, target: "employee" | "booking", options: NormaliseOptions, problems: Problems): ImportRow | null {
  const key = parseField(v.object(keyFields, RECORD), { id: record.id, external_id: record.external_id }, "", problems);
  const id = key && recordId(key, options.organisationId, target === "employee" ? "employee" : "leave", problems);
  return id ? { type: "delete", record: target, id } : null;
}

function employeeRow(record: Record<string, unknown>, deleted: boolean, options: NormaliseOptions, problems: Problems): ImportRow | null {
  if (deleted) return deleteRow(record, "employee", options, problems);
  const before = problems.length;
  const e = parseField(employeeFields, record, "", problems);
  // An imported employee has a name (docs/cli.md, "Employees files"): missing, null (an
  // empty CSV cell), "" and blanks are all refused. The API's field stays nullable, for
  // records a host-owned store serves.
  for (const field of ["first_name", "last_name"] as const) {
    const value = record[field];
    if (value === undefined || value === null || (typeof value === "string" && value.trim() === "")) {
      problems.push({ field, problem: "is required and must not be empty", code: value === undefined || value === null ? "required" : "invalid" });
    }
  }
  if (e?.start_date && e.leaving_date && e.leaving_date < e.start_date) {
    problems.push({ field: "leaving_date", problem: `is before start_date ${e.start_date}` });
  }
  // Told even when other fields failed, so that a file without any key column hears of it at once.
  const id = e
    ? recordId(e, options.organisationId, "employee", problems)
    : record.id == null && record.external_id == null
      ? recordId({ id: null, external_id: null }, options.organisationId, "employee", problems)
      : null;
  if (!e || !id || problems.length > before) return null;
  const employee: EmployeeInput = { ...e, id };
  return { type: "employee", employee, absent: absentFields(record) };
}

const NONE_ABSENT: readonly never[] = [];

/** A booking's fields the record does not carry; a half day only when neither its flag nor its period is there. */
function absentBookingFields(record: Record<string, unknown>): readonly KeptBookingField[] {
  if (KEPT_BOOKING_FIELDS.every((field) => record[field] !== undefined)) return NONE_ABSENT;
  const absent: KeptBookingField[] = [];
  for (const end of ["start", "end"] as const)
    if (record[`${end}_half_day`] === undefined && record[`${end}_half_period`] === undefined) absent.push(`${end}_half_day`, `${end}_half_period`);
  for (const field of ["requested_at", "reviewed_at", "cancelled_at"] as const) if (record[field] === undefined) absent.push(field);
  return absent;
}

/** The fields an update keeps as stored because the record does not carry them: not even as an empty cell or `null`. */
function absentFields(record: Record<string, unknown>): readonly KeptEmployeeField[] {
  if (KEPT_EMPLOYEE_FIELDS.every((field) => record[field] !== undefined)) return NONE_ABSENT;
  return KEPT_EMPLOYEE_FIELDS.filter((field) => record[field] === undefined);
}

function bookingRow(
  record: Record<string, unknown>,
  deleted: boolean,
  options: NormaliseOptions,
  referenceId: ReferenceId,
  problems: Problems,
): ImportRow | null {
  if (deleted) return deleteRow(record, "booking", options, problems);
  const b = readBookingFields(record, problems);
  if (!b) {
    // The keys are told even when other fields failed, so that a file without them hears of it at once.
    if (record.id == null && record.external_id == null) recordId({ id: null, external_id: null }, options.organisationId, "leave", problems);
    if (record.employee_id == null && record.employee_external_id == null)
      problems.push({ field: "employee_id", problem: "employee_id or employee_external_id is required", code: "required" });
    if (typeof record.days === "number" && Number.isInteger(record.days * 2))
      checkHalfDayDays(record.days, record.start_half_day === true || record.end_half_day === true, problems);
    return null;
  }
  const id = recordId(b, options.organisationId, "leave", problems);
  if (!id) return null;
  const before = problems.length;
  // Both are valid YYYY-MM-DD dates (years 0001-9999), which sort as text as they do in time.
  if (b.end_date < b.start_date) problems.push({ field: "end_date", problem: `is before start_date ${b.start_date}` });
  else checkSpan(b.start_date, b.end_date, problems);
  checkHalfDay(b.start_half_day, b.start_half_period, "start", problems);
  checkHalfDay(b.end_half_day, b.end_half_period, "end", problems);
  let employeeId = b.employee_id;
  if (employeeId === null && b.employee_external_id !== null) employeeId = referenceId("employee", b.employee_external_id);
  if (employeeId === null) problems.push({ field: "employee_id", problem: "employee_id or employee_external_id is required", code: "required" });
  checkHalfDayDays(b.days, b.start_half_day || b.end_half_day, problems);
  if (problems.length > before || employeeId === null) return null;
  const t = b.leave_type;
  const leaveType: LeaveTypeRecord = { id: t.id ?? referenceId("leave_type", t.name), name: t.name, category: t.category, is_paid: t.is_paid };
  // Field by field, in the record's order: copying with rest and spread took a tenth of
  // reading a booking. `_bookingFieldsCarried` keeps this list to the record's fields.
  const booking: BookingDraft = {
    id,
    external_id: b.external_id,
    employee_id: employeeId,
    start_date: b.start_date,
    end_date: b.end_date,
    start_half_day: b.start_half_day,
    start_half_period: b.start_half_period,
    end_half_day: b.end_half_day,
    end_half_period: b.end_half_period,
    days: b.days,
    status: b.status,
    requested_at: b.requested_at,
    reviewed_at: b.reviewed_at,
    cancelled_at: b.cancelled_at,
    leave_type_id: leaveType.id,
  };
  return {
    type: "booking",
    booking,
    leaveType,
    employeeExternalId: b.employee_id === null ? b.employee_external_id : null,
    absent: absentBookingFields(record),
  };
}

/**
 * Every field a booking record has, but the two that name other records, is one of the
 * draft's, and the reverse: a field added to the declaration fails to compile until
 * `bookingRow` carries it (and with it the content digest, which covers every field); the same for the leave type's.
 */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _bookingFieldsCarried: SameKeys<Exclude<keyof BookingFields, "employee_external_id" | "leave_type">, Exclude<keyof BookingDraft, "leave_type_id">> = true;
const _leaveTypeFieldsCarried: SameKeys<keyof BookingFields["leave_type"], keyof LeaveTypeRecord> = true;

/**
 * The most days a booking may span, first and last included (docs/cli.md, "Limits"): a
 * booking's days are counted one by one, so its length bounds the work of its row.
 * Longer absences (a career break) are several bookings.
 */
export const MAX_BOOKING_SPAN_DAYS = 1000;

function checkSpan(start: string, end: string, problems: Problems): void {
  const span = parseDate(end)! - parseDate(start)! + 1;
  if (span > MAX_BOOKING_SPAN_DAYS)
    problems.push({
      field: "end_date",
      problem: `is ${span.toLocaleString("en")} days from start_date ${start}, first and last included; a booking spans at most ${MAX_BOOKING_SPAN_DAYS.toLocaleString("en")} days, so split a longer absence into several bookings`,
    });
}

/** A half-day period is `am`/`pm` exactly when its flag is true (docs/api.md, "Leave bookings"). */
function checkHalfDay(half: boolean, period: string | null, end: "start" | "end", problems: Problems): void {
  if (half && period === null) problems.push({ field: `${end}_half_period`, problem: `is required (am or pm) when ${end}_half_day is true` });
  if (!half && period !== null) problems.push({ field: `${end}_half_period`, problem: `must be null when ${end}_half_day is not true` });
}

/**
 * `days` given with half a day (1.5, 0.5) says the booking has a half day, so one of its
 * half-day flags must say which (docs/cli.md, "Leave files"): else the API would show a
 * booking of whole days that takes half a day less.
 */
function checkHalfDayDays(days: number | null, halfDay: boolean, problems: Problems): void {
  if (days === null || Number.isInteger(days) || halfDay) return;
  problems.push({
    field: "days",
    problem: `${days} includes half a day, but neither start_half_day nor end_half_day is true; mark the half day (start_half_day true and start_half_period am or pm, or the same for the end), or leave days out to have it worked out`,
    code: "half_day",
    value: days,
  });
}
