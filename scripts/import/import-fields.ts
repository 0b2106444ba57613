/**
 * The valibot schema of each import rule a field declaration names (lib/record-fields.ts),
 * and from them the object schema of a record's import fields: the fields an import file
 * may carry are the declaration's, in its order, each checked by its rule.
 */
import * as v from "valibot";
import { importKeys, LEAVE_STATUSES, LEAVE_TYPE_FIELDS, type FieldSpecs, type ImportKey, type ImportRule } from "../../lib/record-fields.ts";
import {
  calendarKey,
  date,
  days,
  expected,
  externalId,
  flag,
  halfPeriod,
  instant,
  optionalDate,
  optionalText,
  optionalUuid,
  snakeWord,
  text,
} from "./field-rules.ts";

const VALUE_RULES = {
  optionalUuid,
  externalId,
  text,
  optionalText,
  employmentStatus: snakeWord("status", "statuses", "active or terminated"),
  leaveCategory: snakeWord("category", "categories", "annual or sick"),
  paidFlag: v.boolean(expected("true or false")),
  date,
  optionalDate,
  optionalCalendarKey: v.nullish(calendarKey, null),
  flag,
  halfPeriod,
  days,
  leaveStatus: v.picklist(LEAVE_STATUSES, expected(`one of ${LEAVE_STATUSES.join(", ")}`)),
  instant,
  holidayType: v.picklist(["company", "public"], expected('"company" or "public"')),
  calendarKey,
  closureScope: v.nullish(v.picklist(["all", "department", "location"], expected("all, department or location")), "all"),
} as const;

/** The entries of the object schema of a record's import fields, each its rule's schema among `R`. */
type EntriesOf<F extends FieldSpecs, R> = { [K in ImportKey<F>]: R[NonNullable<F[K]["import"]> & keyof R] };

function entriesOf<F extends FieldSpecs, R extends Partial<Record<ImportRule, v.GenericSchema>>>(fields: F, rules: R): EntriesOf<F, R> {
  return Object.fromEntries(importKeys(fields).map((key) => [key, rules[fields[key]!.import!]])) as EntriesOf<F, R>;
}

/** An embedded leave type: its fields as a leave type's declaration gives them. */
const leaveTypeFields = v.object(entriesOf(LEAVE_TYPE_FIELDS, VALUE_RULES), expected(`an object {${importKeys(LEAVE_TYPE_FIELDS).join(", ")}}`));

/** Every rule a declaration may name, each as its valibot schema. */
export const IMPORT_RULES = { ...VALUE_RULES, leaveType: leaveTypeFields } satisfies Record<ImportRule, v.GenericSchema>;

export type ImportEntries<F extends FieldSpecs> = EntriesOf<F, typeof IMPORT_RULES>;

/** The object entries of the record's import fields, each with its rule's schema, in declaration order. */
export function importEntries<F extends FieldSpecs>(fields: F): ImportEntries<F> {
  return entriesOf(fields, IMPORT_RULES);
}
