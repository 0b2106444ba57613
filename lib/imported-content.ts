/**
 * How an import tells a changed record from an unchanged one, for every store: by what a
 * client can see of it. An identical re-import must move no `updated_at` (docs/api.md,
 * "Incremental sync"), so the SQL store keeps a digest of this text beside each row
 * (adapters/sql/content-digest.ts) and the memory store compares it directly.
 */

/**
 * The fields records had when digests were first stored. A field added since is left out
 * of the text while it is null, so adding a nullable field to the field list changes no
 * stored digest, and the first import after an upgrade moves no `updated_at` for it: a
 * record's digest changes only once the field holds something. Frozen: never add to it.
 */
export const FIRST_FIELDS: ReadonlySet<string> = new Set([
  "applies_to",
  "calendar",
  "cancelled_at",
  "category",
  "date",
  "days",
  "deducts_from_leave",
  "department",
  "employee_external_id",
  "employee_id",
  "end_date",
  "end_half_day",
  "end_half_period",
  "external_id",
  "first_name",
  "holiday_calendar",
  "id",
  "is_paid",
  "job_title",
  "last_name",
  "leave_type",
  "leave_type_id",
  "leaving_date",
  "location",
  "name",
  "preferred_name",
  "requested_at",
  "reviewed_at",
  "start_date",
  "start_half_day",
  "start_half_period",
  "status",
  "type",
  "updated_at",
]);

/**
 * The canonical text of a record's fields, in sorted order (so the order an input was
 * built in does not matter). `external_id` is left out: the API never shows it, so it
 * must not move `updated_at`, and an import that omits it keeps the stored one. So is a
 * field added since FIRST_FIELDS while it is null. The SQL store compares digests of this
 * text on every import: its bytes never change.
 */
export function importedContent(row: object): string {
  const values = row as Record<string, unknown>;
  const members: [string, unknown][] = [];
  for (const key of digestKeys(row)) {
    const value = values[key];
    if (value !== null || FIRST_FIELDS.has(key)) members.push([key, value]);
  }
  return JSON.stringify(members);
}

/** The keys of the last row shape seen, and the same keys in content order: rows come in a few shapes. */
let lastShape: { keys: string[]; sorted: string[] } = { keys: [], sorted: [] };

function digestKeys(row: object): string[] {
  const keys = Object.keys(row);
  const last = lastShape.keys;
  if (keys.length !== last.length || keys.some((key, i) => key !== last[i])) {
    const sorted = keys.filter((key) => key !== "external_id").sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    lastShape = { keys, sorted };
  }
  return lastShape.sorted;
}

/** The rows of one write with one per id: later rows with the same id win, as they would if written one by one. */
export function lastById<T extends { id: string }>(rows: T[]): T[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()];
}
