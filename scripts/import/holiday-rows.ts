/**
 * Rows of a holidays import (docs/cli.md, "Holidays files"): `type: "company"` rows are the
 * organisation's closure days, keyed by `id` or else by what they are (date, name, scope),
 * so re-importing the same closure updates it; `type: "public"` rows are one calendar's
 * public holiday on one date. The fields of the other type must be null or absent, except
 * those the API itself returns with fixed values (`applies_to: "calendar"`,
 * `deducts_from_leave: false` on a public entry), so an API answer can be imported again.
 */
import * as v from "valibot";
import type { ClosureDayInput } from "../../lib/admin-store.ts";
import { importDerivedId } from "./derived-ids.ts";
import { HOLIDAY_ENTRY_FIELDS } from "../../lib/record-fields.ts";
import { calendarKey, date, optionalUuid, parseField, RECORD, text, type ImportProblem } from "./field-rules.ts";
import { IMPORT_RULES, importEntries } from "./import-fields.ts";
import type { ImportRow, NormaliseOptions } from "./import-rows.ts";

type Problems = ImportProblem[];

// A closure day's fields: the holiday entry's, less the two that tell a public holiday apart.
const { type: _type, calendar: _calendar, ...closureEntries } = importEntries(HOLIDAY_ENTRY_FIELDS);
const closureFields = v.object(closureEntries, RECORD);

/** A public holiday's rules: test/record-fields.test.ts holds these fields to the declaration's. */
export const publicFields = v.object(
  {
    calendar: calendarKey,
    date,
    name: v.nullish(text, null),
    applies_to: v.nullish(v.literal("calendar", 'must be "calendar" or null on a public holiday'), null),
    deducts_from_leave: v.nullish(v.literal(false, "must be false or null on a public holiday"), null),
    department: v.null("must be null on a public holiday"),
    location: v.null("must be null on a public holiday"),
  },
  RECORD,
);

/** One holidays row: a closure day to upsert or delete, or a public holiday (possibly deleted). */
export function holidayRow(record: Record<string, unknown>, deleted: boolean, options: NormaliseOptions, problems: Problems): ImportRow | null {
  const type = parseField(IMPORT_RULES.holidayType, record.type, "type", problems);
  if (type === "public") return publicRow(record, deleted, problems);
  if (type !== "company") return null;
  if (record.calendar !== undefined && record.calendar !== null) problems.push({ field: "calendar", problem: "must be null on a company closure day" });
  if (deleted && record.id !== undefined && record.id !== null) {
    const id = parseField(optionalUuid, record.id, "id", problems);
    return id ? { type: "delete", record: "closure", id } : null;
  }
  const c = parseField(closureFields, record, "", problems);
  if (!c) return null;
  for (const scope of ["department", "location"] as const) {
    if (c.applies_to === scope && c[scope] === null) problems.push({ field: scope, problem: `is required when applies_to is ${scope}` });
    if (c.applies_to !== scope && c[scope] !== null) problems.push({ field: scope, problem: `must be null unless applies_to is ${scope}` });
  }
  const identity = `${c.date}|${c.name}|${c.applies_to}|${c.department ?? ""}|${c.location ?? ""}`;
  const id = c.id ?? importDerivedId(options.organisationId, "closure", identity);
  if (deleted) return { type: "delete", record: "closure", id };
  const closure: ClosureDayInput = { ...c, id };
  return { type: "closure", closure };
}

function publicRow(record: Record<string, unknown>, deleted: boolean, problems: Problems): ImportRow | null {
  if (record.id !== undefined && record.id !== null) problems.push({ field: "id", problem: "must be absent: public holidays have no id" });
  const p = parseField(publicFields, { ...record, department: record.department ?? null, location: record.location ?? null }, "", problems);
  if (!p) return null;
  if (!deleted && p.name === null) problems.push({ field: "name", problem: "is required" });
  return { type: "public_holiday", calendar: p.calendar, date: p.date, name: p.name, deleted };
}
