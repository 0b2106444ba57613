/**
 * The fields of one leave-booking import record: the valibot schema that states them and
 * words every problem, and a quick reader for the common case, a well-formed record, since
 * a large import reads a million of them and the schema costs several microseconds each.
 * The quick reader accepts only what the schema accepts and returns what the schema would
 * (test/import-fast-paths.test.ts holds them to that, test/record-fields.test.ts to the
 * declaration's fields); on anything else it gives up and the schema decides, with its messages.
 */
import * as v from "valibot";
import { isDate, parseInstantCeil } from "../../lib/dates.ts";
import { isUuid } from "../../lib/ids.ts";
import { LEAVE_BOOKING_FIELDS, LEAVE_STATUSES } from "../../lib/record-fields.ts";
import { isImportYear, parseField, RECORD, SNAKE_WORD, withinTextLimit, type ImportProblem } from "./field-rules.ts";
import { importEntries } from "./import-fields.ts";

/** The schema of a booking's import fields, from its declaration (lib/record-fields.ts). */
export const bookingFields = v.object(importEntries(LEAVE_BOOKING_FIELDS), RECORD);

export type BookingFields = v.InferOutput<typeof bookingFields>;

/** The booking's fields, or `null` with every problem added to `problems`. */
export function readBookingFields(record: Record<string, unknown>, problems: ImportProblem[]): BookingFields | null {
  return quickBookingFields(record) ?? parseField(bookingFields, record, "", problems);
}

/** Marks a value the quick reader does not vouch for; the schema then reads the record. */
const UNSURE = Symbol("unsure");
type Unsure = typeof UNSURE;

/** `bookingFields`' output for a record it accepts without a problem; `null` when unsure. */
export function quickBookingFields(record: Record<string, unknown>): BookingFields | null {
  const t = record.leave_type;
  if (typeof t !== "object" || t === null || Array.isArray(t)) return null;
  const type = t as Record<string, unknown>;
  const typeId = quickUuid(type.id);
  const { name, category, is_paid } = type;
  if (typeId === UNSURE || typeof name !== "string" || name === "" || !withinTextLimit(name) || typeof is_paid !== "boolean") return null;
  if (typeof category !== "string" || !SNAKE_WORD.test(category)) return null;
  const fields = {
    id: quickUuid(record.id),
    external_id: quickExternalId(record.external_id),
    employee_id: quickUuid(record.employee_id),
    employee_external_id: quickExternalId(record.employee_external_id),
    leave_type: { id: typeId, name, category, is_paid },
    start_date: quickDate(record.start_date),
    end_date: quickDate(record.end_date),
    start_half_day: quickFlag(record.start_half_day),
    start_half_period: quickHalfPeriod(record.start_half_period),
    end_half_day: quickFlag(record.end_half_day),
    end_half_period: quickHalfPeriod(record.end_half_period),
    days: quickDays(record.days),
    status: (LEAVE_STATUSES as readonly unknown[]).includes(record.status) ? (record.status as BookingFields["status"]) : UNSURE,
    requested_at: quickInstant(record.requested_at),
    reviewed_at: quickInstant(record.reviewed_at),
    cancelled_at: quickInstant(record.cancelled_at),
  };
  for (const key in fields) if (fields[key as keyof typeof fields] === UNSURE) return null;
  return fields as BookingFields;
}

const absent = (value: unknown) => value === undefined || value === null;

function quickUuid(value: unknown): string | null | Unsure {
  if (absent(value)) return null;
  return typeof value === "string" && isUuid(value) ? value.toLowerCase() : UNSURE;
}

function quickExternalId(value: unknown): string | null | Unsure {
  if (absent(value)) return null;
  if (typeof value === "string") return value === "" || !withinTextLimit(value) ? UNSURE : value;
  return typeof value === "number" && Number.isSafeInteger(value) ? String(value) : UNSURE;
}

function quickDate(value: unknown): string | Unsure {
  return typeof value === "string" && isDate(value) && isImportYear(value) ? value : UNSURE;
}

function quickFlag(value: unknown): boolean | Unsure {
  if (absent(value)) return false;
  return typeof value === "boolean" ? value : UNSURE;
}

function quickHalfPeriod(value: unknown): "am" | "pm" | null | Unsure {
  if (absent(value)) return null;
  return value === "am" || value === "pm" ? value : UNSURE;
}

function quickDays(value: unknown): number | null | Unsure {
  if (absent(value)) return null;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && Number.isInteger(value * 2) ? value : UNSURE;
}

function quickInstant(value: unknown): number | null | Unsure {
  if (absent(value)) return null;
  if (typeof value !== "string") return UNSURE;
  return parseInstantCeil(value) ?? UNSURE;
}
