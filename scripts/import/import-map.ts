/**
 * `--map FILE`: how another system's export is read (docs/cli.md, "Other systems'
 * exports"). A JSON object of
 *
 * - `columns`: source column → field, or `null` to skip the column;
 * - `values`: field → {source value → value}; a value not listed passes through;
 * - `dates`: the source's date format (one of DATE_FORMATS);
 * - `defaults`: field → value for an empty cell or a column the file lacks;
 * - `ignore_unmapped`: skip the columns neither mapped nor named like a field;
 * - `delimiter`, `encoding`, `sheet`: how the file itself is read.
 *
 * Every flag form (`--delimiter`, `--encoding`, `--sheet`, `--date-format`) overrides the
 * file's. The map is checked whole before a row is read, every mistake named with where it
 * is in the map (`columns."Hire Date": …`): a target that is no field of the kind, a field
 * two columns map to, an unknown date format.
 */
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { suggestField } from "./field-rules.ts";

export const DATE_FORMATS = ["YYYY-MM-DD", "DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY", "YYYY/MM/DD", "D/M/YYYY", "M/D/YYYY"] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** The delimiters a CSV may use, as given on the command line (`tab` for the tab character). */
export const DELIMITER_NAMES: Readonly<Record<string, string>> = { ",": ",", ";": ";", tab: "\t", "\t": "\t", "|": "|" };
export const DELIMITERS = [",", ";", "\t", "|"] as const;

export const ENCODINGS = ["utf-8", "windows-1252", "iso-8859-1", "utf-16le"] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** A map as the import applies it; the empty map (`NO_MAP`) reads our own format. */
export interface ImportMap {
  columns: Readonly<Record<string, string | null>>;
  values: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  dates: DateFormat;
  defaults: Readonly<Record<string, unknown>>;
  ignoreUnmapped: boolean;
  delimiter?: string;
  encoding?: Encoding;
  sheet?: string;
}

export const NO_MAP: ImportMap = { columns: {}, values: {}, dates: "YYYY-MM-DD", defaults: {}, ignoreUnmapped: false };

/** What the command line says on top of (and over) the map file. */
export interface MapOverrides {
  delimiter?: string;
  encoding?: string;
  sheet?: string;
  dateFormat?: string;
}

/** A map that cannot be used: every mistake, each a line of its own, prefixed with where it is. */
export class MapProblem extends Error {
  override name = "MapProblem";
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}

const jsonValue = v.union([v.string(), v.number(), v.boolean(), v.null()], "must be text, a number, true, false or null");
/** A JSON object (not an array) of `entry` values. */
const objectOf = <S extends v.GenericSchema>(entry: S, message: string) =>
  v.pipe(
    v.custom<Record<string, unknown>>((x) => typeof x === "object" && x !== null && !Array.isArray(x), message),
    v.record(v.string(), entry, message),
  );
const MapSchema = v.object({
  columns: v.optional(objectOf(v.nullable(v.string("must be a field name (text) or null")), "must be an object of column → field"), {}),
  values: v.optional(objectOf(objectOf(jsonValue, "must be an object of source value → value"), "must be an object of field → {…}"), {}),
  dates: v.optional(v.string("must be text")),
  defaults: v.optional(objectOf(jsonValue, "must be an object of field → value"), {}),
  ignore_unmapped: v.optional(v.boolean("must be true or false"), false),
  delimiter: v.optional(v.string("must be text")),
  encoding: v.optional(v.string("must be text")),
  sheet: v.optional(v.pipe(v.string("must be text"), v.nonEmpty("must not be empty"))),
});
const SETTINGS = Object.keys(MapSchema.entries);

/**
 * Reads and checks the map file against the fields of the kind (`fields`: what the
 * file's columns may be named), then lays the flags over it. Throws a MapProblem naming
 * every mistake; `label` is how problems name the map (its path).
 */
export async function readImportMap(path: string | undefined, fields: readonly string[], overrides: MapOverrides = {}, kind = "this kind"): Promise<ImportMap> {
  const label = path ?? "--map";
  let raw: unknown = {};
  if (path !== undefined) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new MapProblem([`${label}: cannot read the map: ${code === "ENOENT" ? "no such file" : (error as Error).message}`]);
    }
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new MapProblem([`${label}: is not valid JSON: ${(error as Error).message}`]);
    }
  }
  return checkImportMap(raw, fields, overrides, label, kind);
}

/** The checks of `readImportMap` on a map already parsed (see there). */
export function checkImportMap(raw: unknown, fields: readonly string[], overrides: MapOverrides = {}, label = "--map", kind = "this kind"): ImportMap {
  const problems: string[] = [];
  const at = (where: string, problem: string) => problems.push(`${label}: ${where}: ${problem}`);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new MapProblem([`${label}: must be a JSON object`]);
  for (const key of Object.keys(raw)) {
    if (SETTINGS.includes(key)) continue;
    const guess = suggestField(key, SETTINGS);
    at(key.slice(0, 40), `is not a map setting; ${guess ? `did you mean ${guess}?` : `the settings are ${SETTINGS.join(", ")}`}`);
  }
  const parsed = v.safeParse(MapSchema, raw);
  if (!parsed.success) {
    for (const issue of parsed.issues) at(v.getDotPath(issue) ?? "map", issue.message);
    throw new MapProblem(problems);
  }
  const map = parsed.output;
  const field = (name: string) => (fields.includes(name) ? null : unknownField(name, fields, kind));

  const targets = new Map<string, string>();
  for (const [column, target] of Object.entries(map.columns)) {
    if (target === null) continue;
    const wrong = field(target);
    if (wrong) at(`columns.${JSON.stringify(column)}`, `${JSON.stringify(target)} ${wrong}`);
    const first = targets.get(target);
    if (first !== undefined)
      at(`columns.${JSON.stringify(column)}`, `maps to ${target}, as column ${JSON.stringify(first)} already does; a field takes one column`);
    else targets.set(target, column);
  }
  for (const name of Object.keys(map.values)) {
    const wrong = field(name);
    if (wrong) at(`values.${JSON.stringify(name)}`, `${JSON.stringify(name)} ${wrong} (values are keyed by the field, after columns)`);
  }
  for (const name of Object.keys(map.defaults)) {
    const wrong = field(name);
    if (wrong) at(`defaults.${JSON.stringify(name)}`, `${JSON.stringify(name)} ${wrong}`);
  }

  const dates = overrides.dateFormat ?? map.dates ?? "YYYY-MM-DD";
  if (!(DATE_FORMATS as readonly string[]).includes(dates)) {
    at(overrides.dateFormat !== undefined ? "--date-format" : "dates", `${JSON.stringify(dates)} is not a date format; use one of ${DATE_FORMATS.join(", ")}`);
  }
  const delimiterName = overrides.delimiter ?? map.delimiter;
  const delimiter = delimiterName === undefined ? undefined : DELIMITER_NAMES[delimiterName];
  if (delimiterName !== undefined && delimiter === undefined) {
    at(overrides.delimiter !== undefined ? "--delimiter" : "delimiter", `${JSON.stringify(delimiterName)} is not a delimiter; use one of ",", ";", "tab", "|"`);
  }
  const encodingName = (overrides.encoding ?? map.encoding)?.toLowerCase();
  const encoding = encodingName === "utf8" ? "utf-8" : encodingName;
  if (encoding !== undefined && !(ENCODINGS as readonly string[]).includes(encoding)) {
    at(
      overrides.encoding !== undefined ? "--encoding" : "encoding",
      `${JSON.stringify(encodingName)} is not an encoding this reads; use one of ${ENCODINGS.join(", ")}`,
    );
  }
  if (problems.length > 0) throw new MapProblem(problems);
  return {
    columns: map.columns,
    values: map.values,
    dates: dates as DateFormat,
    defaults: map.defaults,
    ignoreUnmapped: map.ignore_unmapped,
    ...(delimiter !== undefined ? { delimiter } : {}),
    ...(encoding !== undefined ? { encoding: encoding as Encoding } : {}),
    ...((overrides.sheet ?? map.sheet) !== undefined ? { sheet: overrides.sheet ?? map.sheet } : {}),
  };
}

function unknownField(name: string, fields: readonly string[], kind: string): string {
  const guess = suggestField(name, fields);
  return `is not a field of ${kind}; ${guess ? `did you mean ${guess}?` : `the fields are ${fields.join(", ")}`}`;
}

/** Whether the map changes anything about how rows are read (the empty map reads our own format). */
export function mapsRows(map: ImportMap): boolean {
  return (
    Object.keys(map.columns).length > 0 ||
    Object.keys(map.values).length > 0 ||
    Object.keys(map.defaults).length > 0 ||
    map.dates !== "YYYY-MM-DD" ||
    map.ignoreUnmapped
  );
}
