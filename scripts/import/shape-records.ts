/**
 * Between reading and validating: a record of the file as our own format would have
 * written it. Without a `--map` that is the record itself, less a CSV header's unknown
 * columns (reported once, at the header's line); with one, the map's columns, values,
 * dates and defaults applied (column-plan.ts). Tabular files (CSV, XLSX) are planned once,
 * from their header; a JSON record is planned from its own keys, and keys neither mapped
 * nor named like a field are left for validation to report (or dropped under
 * `ignore_unmapped`).
 */
import { createRowMapper, planColumns, sourceColumns, withSourceColumn, type ColumnPlan } from "./column-plan.ts";
import { guessColumns } from "./column-guesses.ts";
import type { ImportProblem } from "./field-rules.ts";
import { mapsRows, NO_MAP, type ImportMap } from "./import-map.ts";
import { importColumns, type ImportKind } from "./normalise-records.ts";

/** What `--dry-run` shows of a map as applied: each column read and the field it became, the columns skipped, and the mapped columns the file does not have. */
export interface MappingReport {
  read: { column: string; field: string }[];
  skipped: string[];
  missing: string[];
}

export interface RecordShaper {
  /** Takes a tabular file's header; its problems are reported at the header's line, `field` naming the column. */
  header(names: readonly string[]): ImportProblem[];
  /** The record in our own format; problems found on the way (a date not in the map's format) are added to `problems`. */
  row(record: unknown, problems: ImportProblem[]): unknown;
  /** A field as a row's problem names it: with its source column beside it when it came from one of another name. */
  describeField(field: string): string;
  /** The column a field came from, where it has another name (for the hint that names it). */
  columnOf(field: string): string | undefined;
  /** The map as applied to the header (tabular files only). */
  report(): MappingReport | null;
}

export function createRecordShaper(kind: ImportKind, map: ImportMap = NO_MAP, tabular = false): RecordShaper {
  const fields = importColumns(kind, tabular);
  if (!mapsRows(map)) return ownFormat(kind);
  let plan: ColumnPlan | null = null;
  let mapper: ReturnType<typeof createRowMapper> | null = null;
  let columns = new Map<string, string>();
  /** JSON records are planned from their keys; one plan serves every record of the same keys. */
  const jsonPlans = new Map<string, { plan: ColumnPlan; mapper: ReturnType<typeof createRowMapper> }>();
  return {
    header(names) {
      const first = planColumns(names, map, fields);
      // Columns of a likely field are read as it for this (failing) run: their values are checked now, not on the next try.
      const guesses = guessColumns(
        kind,
        first.unknown,
        fields,
        first.read.map((r) => r.field),
      );
      plan = guesses.size === 0 ? first : planColumns(names, { ...map, columns: { ...Object.fromEntries(guesses), ...map.columns } }, fields);
      mapper = createRowMapper(plan, map);
      columns = sourceColumns(plan);
      return [...plan.problems, ...unmappedColumns(kind, first.unknown, true, guesses)];
    },
    row(record, problems) {
      if (typeof record !== "object" || record === null || Array.isArray(record)) return record;
      const cells = record as Record<string, unknown>;
      if (mapper !== null) return mapper(cells, problems);
      const keys = Object.keys(cells);
      const signature = keys.join("\u0000");
      let planned = jsonPlans.get(signature);
      if (planned === undefined) {
        const jsonPlan = planColumns(keys, map, fields);
        planned = { plan: jsonPlan, mapper: createRowMapper(jsonPlan, map) };
        // Records of many shapes would each add one: past a few hundred, start again.
        if (jsonPlans.size >= 256) jsonPlans.clear();
        jsonPlans.set(signature, planned);
      }
      const out = planned.mapper(cells, problems);
      for (const key of planned.plan.unknown) out[key] = cells[key];
      for (const problem of planned.plan.problems) problems.push(problem);
      return out;
    },
    describeField: (field) => withSourceColumn(field, columns),
    columnOf: (field) => columns.get(field),
    report() {
      if (plan === null) return null;
      const inFile = new Set([...plan.read.map((r) => r.column), ...plan.skipped]);
      return { read: plan.read, skipped: plan.skipped, missing: Object.keys(map.columns).filter((c) => !inFile.has(c)) };
    },
  };
}

/** Our own format: records as they are, a header's unknown columns reported once and left out of every row. */
function ownFormat(kind: ImportKind): RecordShaper {
  const fields = importColumns(kind, true);
  let dropped: readonly string[] = [];
  let header: readonly string[] | null = null;
  /** Unknown columns of a likely field, read as it for this (failing) run, so that their values are checked too. */
  let guesses = new Map<string, string>();
  let columns = new Map<string, string>();
  return {
    header(names) {
      header = names;
      const unknown = names.filter((name) => !fields.includes(name));
      guesses = guessColumns(kind, unknown, fields, names);
      columns = new Map([...guesses].map(([column, field]) => [field, column]));
      dropped = unknown.filter((name) => !guesses.has(name));
      return unmappedColumns(kind, unknown, false, guesses);
    },
    row(record) {
      if (typeof record !== "object" || record === null) return record;
      const cells = record as Record<string, unknown>;
      for (const column of dropped) delete cells[column];
      for (const [column, field] of guesses) {
        cells[field] = cells[column];
        delete cells[column];
      }
      return record;
    },
    describeField: (field) => withSourceColumn(field, columns),
    columnOf: (field) => columns.get(field),
    report: () =>
      header === null
        ? null
        : { read: header.filter((c) => !dropped.includes(c)).map((c) => ({ column: c, field: guesses.get(c) ?? c })), skipped: [], missing: [] },
  };
}

/**
 * The header's columns that map to no field, as ONE problem (DECISIONS §11): what they
 * are, the `"columns"` that reads those of a likely field as it, the two ways to leave the
 * rest out (`"ignore_unmapped": true`, or each under `"columns"` as null), and the fields.
 */
export function unmappedColumns(
  kind: ImportKind,
  columns: readonly string[],
  mapped: boolean,
  guesses: ReadonlyMap<string, string> = new Map(),
): ImportProblem[] {
  if (columns.length === 0) return [];
  const fields = importColumns(kind, true);
  const quote = (c: string) => JSON.stringify(c.length > 40 ? `${c.slice(0, 40)}…` : c);
  const listed = (names: readonly string[]) => `${names.slice(0, 10).map(quote).join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""}`;
  const names = columns.length === 1 ? `column ${quote(columns[0]!)} maps` : `columns ${listed(columns)} map`;
  const where = mapped ? "in the map" : "in a --map file";
  const rest = columns.filter((c) => !guesses.has(c));
  const likely =
    guesses.size === 0
      ? ""
      : `; ${guesses.size === 1 ? "it looks like this field" : "they look like these fields"} (read so here, to check the values): "columns": {${[...guesses].map(([c, f]) => `${quote(c)}: ${JSON.stringify(f)}`).join(", ")}}`;
  const others = guesses.size === 0 ? (rest.length === 1 ? "it" : "them") : rest.length === 1 ? quote(rest[0]!) : `the others (${listed(rest)})`;
  const skips = `"columns": {${rest
    .slice(0, 10)
    .map((c) => `${quote(c)}: null`)
    .join(", ")}}`;
  const leaveOut =
    rest.length === 0 ? "" : `; to leave ${others} out, set "ignore_unmapped": true ${where}, or name ${rest.length === 1 ? "it" : "each"} under ${skips}`;
  return [{ field: "header", problem: `${names} to no field of ${kind}${likely}${leaveOut}; the fields are ${fields.join(", ")}`, code: "unknown_columns" }];
}
