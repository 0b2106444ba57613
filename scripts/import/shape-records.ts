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
import type { ImportProblem } from "./field-rules.ts";
import { mapsRows, NO_MAP, type ImportMap } from "./import-map.ts";
import { importColumns, type ImportKind } from "./normalise-records.ts";
import { suggestField } from "./field-rules.ts";

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
      plan = planColumns(names, map, fields);
      mapper = createRowMapper(plan, map);
      columns = sourceColumns(plan);
      return [...plan.problems, ...unmappedColumns(kind, plan.unknown, true)];
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
  return {
    header(names) {
      header = names;
      dropped = names.filter((name) => !fields.includes(name));
      return unmappedColumns(kind, dropped, false);
    },
    row(record) {
      if (dropped.length > 0 && typeof record === "object" && record !== null) for (const column of dropped) delete (record as Record<string, unknown>)[column];
      return record;
    },
    describeField: (field) => field,
    report: () =>
      header === null ? null : { read: header.filter((c) => !dropped.includes(c)).map((c) => ({ column: c, field: c })), skipped: [], missing: [] },
  };
}

/**
 * The header's columns that map to no field, as ONE problem (DECISIONS §11): what they
 * are, the two ways to leave them out (`"ignore_unmapped": true`, or each under
 * `"columns"` as null), a likely field for a name that looks like one, and the fields.
 */
export function unmappedColumns(kind: ImportKind, columns: readonly string[], mapped: boolean): ImportProblem[] {
  if (columns.length === 0) return [];
  const fields = importColumns(kind, true);
  const shown = columns.slice(0, 10).map((c) => JSON.stringify(c.length > 40 ? `${c.slice(0, 40)}…` : c));
  const more = columns.length > 10 ? ` and ${columns.length - 10} more` : "";
  const names = shown.length === 1 ? `column ${shown[0]} maps` : `columns ${shown.join(", ")}${more} map`;
  const skips = `"columns": {${shown.map((c) => `${c}: null`).join(", ")}}`;
  const guesses = columns.flatMap((c) => {
    const guess = c.length <= 40 ? suggestField(c, fields) : null;
    return guess === null ? [] : [`${JSON.stringify(c)} looks like ${guess}: map it with "columns": {${JSON.stringify(c)}: ${JSON.stringify(guess)}}`];
  });
  const where = mapped ? "in the map" : "in a --map file";
  return [
    {
      field: "header",
      problem: `${names} to no field of ${kind}; to leave ${columns.length === 1 ? "it" : "them"} out, set "ignore_unmapped": true ${where}, or name ${columns.length === 1 ? "it" : "each"} under ${skips}${guesses.length > 0 ? `; ${guesses.join("; ")}` : ""}; the fields are ${fields.join(", ")}`,
      code: "unknown_columns",
    },
  ];
}
