/**
 * A `--map` applied (import-map.ts): which of the file's columns become which fields, and
 * each row rewritten into our own format before it is validated like any other. The
 * validation's problems are then told with the source column beside the field
 * (`start_date (column "Hire Date"): …`), since the column is what the person sees in
 * their file.
 *
 * A column is read as the field the map names; else, when it is named like a field, as
 * that field; else it is skipped when the map says `ignore_unmapped` or names it `null`,
 * and is an unknown field otherwise. For each field: an empty cell takes the map's
 * default; a value listed in `values` becomes the value given there (taken as it is);
 * any other value of a date field is read in the map's date format.
 */
import { isImportYear, outsideImportYears, type ImportProblem } from "./field-rules.ts";
import type { ImportMap } from "./import-map.ts";
import { notInFormat, toIsoDate } from "./source-dates.ts";
import { importFieldsOfKind } from "../../lib/record-fields.ts";

/** The fields whose values are dates, read in the map's format. */
const DATE_FIELDS = importFieldsOfKind("date");

export interface ColumnPlan {
  /** The columns read, in the file's order, each with the field it becomes. */
  read: { column: string; field: string }[];
  /** Columns left out: mapped to `null`, or neither mapped nor named like a field under `ignore_unmapped`. */
  skipped: string[];
  /** Columns neither mapped nor named like a field: unknown fields, unless the map ignores them. */
  unknown: string[];
  /** Problems of the header itself (two columns giving one field), `field` naming the column. */
  problems: ImportProblem[];
}

/** How the columns `names` are read under `map`, `fields` being the names the kind's columns may have. */
export function planColumns(names: readonly string[], map: ImportMap, fields: readonly string[]): ColumnPlan {
  const plan: ColumnPlan = { read: [], skipped: [], unknown: [], problems: [] };
  const givenBy = new Map<string, string>();
  for (const column of names) {
    const mapped = Object.hasOwn(map.columns, column) ? map.columns[column] : undefined;
    let field: string | null;
    if (mapped !== undefined) field = mapped;
    else if (fields.includes(column)) field = column;
    else {
      if (map.ignoreUnmapped) plan.skipped.push(column);
      else plan.unknown.push(column);
      continue;
    }
    if (field === null) {
      plan.skipped.push(column);
      continue;
    }
    const other = givenBy.get(field);
    if (other !== undefined) {
      plan.problems.push({
        field: column,
        problem: `gives ${field}, as column ${JSON.stringify(other)} does; under "columns", map one of them to another field or to null`,
        code: "duplicate_column",
      });
      continue;
    }
    givenBy.set(field, column);
    plan.read.push({ column, field });
  }
  return plan;
}

/** The column a field came from, where it differs from the field's name: for the problems of a row. */
export function sourceColumns(plan: ColumnPlan): Map<string, string> {
  return new Map(plan.read.filter((r) => r.column !== r.field).map((r) => [r.field, r.column]));
}

/**
 * Rewrites a row of the file (cells by column) into our own format under `plan` and
 * `map`; a date that does not fit the map's format is a problem of its field.
 */
export function createRowMapper(
  plan: ColumnPlan,
  map: ImportMap,
): (cells: Readonly<Record<string, unknown>>, problems: ImportProblem[]) => Record<string, unknown> {
  const steps = plan.read.map(({ column, field }) => ({
    column,
    field,
    values: Object.hasOwn(map.values, field) ? map.values[field]! : null,
    date: map.dates !== "YYYY-MM-DD" && DATE_FIELDS.has(field),
  }));
  const defaults = Object.entries(map.defaults);
  return (cells, problems) => {
    // No prototype: a JSON record's unknown key __proto__ is copied as a key, to be reported.
    const out = Object.create(null) as Record<string, unknown>;
    for (const { column, field, values, date } of steps) {
      const value = cells[column];
      // An empty cell clears its field; only a column the file does not have leaves it out (DECISIONS §11, "Absent is not empty").
      if (value === null || value === undefined || (typeof value === "string" && value.trim() === "")) {
        out[field] = null;
        continue;
      }
      const key = typeof value === "string" ? value.trim() : String(value);
      if (values !== null && Object.hasOwn(values, key)) out[field] = values[key];
      else if (date && typeof value === "string") {
        const iso = toIsoDate(key, map.dates);
        if (iso === null) problems.push({ field, problem: notInFormat(map.dates, key), code: "date_format", value: key });
        // Told as the file wrote it, not as the date it became.
        else if (!isImportYear(iso)) problems.push({ field, problem: outsideImportYears(key) });
        else out[field] = iso;
      } else out[field] = value;
    }
    for (const [field, value] of defaults) if (out[field] === undefined || out[field] === null) out[field] = value;
    return out;
  };
}

/** `field` with its source column beside it (`start_date (column "Hire Date")`) when it came from one of another name. */
export function withSourceColumn(field: string, columns: ReadonlyMap<string, string>): string {
  const column = columns.get(field);
  return column === undefined ? field : `${field} (column ${JSON.stringify(column)})`;
}
