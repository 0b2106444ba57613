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
import { derivedId } from "../../lib/ids.ts";
import { calendarKey, date, expected, flag, optionalText, optionalUuid, parseField, RECORD, text, type ImportProblem } from "./field-rules.ts";
import type { ImportRow, NormaliseOptions } from "./normalise-records.ts";

type Problems = ImportProblem[];

const closureFields = v.object({
  id: optionalUuid,
  date,
  name: text,
  applies_to: v.nullish(v.picklist(["all", "department", "location"], expected("all, department or location")), "all"),
  department: optionalText,
  location: optionalText,
  deducts_from_leave: flag,
}, RECORD);

const publicFields = v.object({
  calendar: calendarKey,
  date,
  name: v.nullish(text, null),
  applies_to: v.nullish(v.literal("calendar", 'must be "calendar" or null on a public holiday'), null),
  deducts_from_leave: v.nullish(v.literal(false, "must be false or null on a public holiday"), null),
  department: v.null("must be null on a public holiday"),
  location: v.null("must be null on a public holiday"),
}, RECORD);

/** One holidays row: a closure day to upsert or delete, or a public holiday (possibly deleted). */
export function holidayRow(record: Record<string, unknown>, deleted: boolean, options: NormaliseOptions, problems: Problems): ImportRow | null {
  const type = parseField(v.picklist(["company", "public"], expected('"company" or "public"')), record.type, "type", problems);
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
  const id = c.id ?? derivedId(options.organisationId, "closure", identity);
  if (deleted) return { type: "delete", record: "closure", id };
  const closure: ClosureDayInput = {
    id,
    date: c.date,
    name: c.name,
    applies_to: c.applies_to,
    department: c.department,
    location: c.location,
    deducts_from_leave: c.deducts_from_leave,
  };
  return { type: "closure", closure };
}

function publicRow(record: Record<string, unknown>, deleted: boolean, problems: Problems): ImportRow | null {
  if (record.id !== undefined && record.id !== null) problems.push({ field: "id", problem: "must be absent: public holidays have no id" });
  const p = parseField(publicFields, { ...record, department: record.department ?? null, location: record.location ?? null }, "", problems);
  if (!p) return null;
  if (!deleted && p.name === null) problems.push({ field: "name", problem: "is required" });
  return { type: "public_holiday", calendar: p.calendar, date: p.date, name: p.name, deleted };
}
