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
import { suggestField } from "./field-rules.ts";
import { PROBLEMS_LISTED } from "./problem-list.ts";

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

/**
 * A map that cannot be used: its mistakes, each a line of its own prefixed with where it
 * is. Like a file's problems (problem-list.ts), the first PROBLEMS_LISTED are listed and
 * one more line says how many the map has in all: a map of 300,000 columns used to print
 * 300,000 lines. `count` is every problem found.
 */
export class MapProblem extends Error {
  override name = "MapProblem";
  constructor(
    readonly problems: string[],
    readonly count = problems.length,
  ) {
    super(problems.join("\n"));
  }
}

/** Collects a map's problems, listing the first PROBLEMS_LISTED and counting the rest. */
class MapProblems {
  readonly listed: string[] = [];
  count = 0;
  constructor(private readonly label: string) {}
  /** `problem` may be a function: what costs work to word (a "did you mean") is worded only when listed. */
  at(where: string, problem: string | (() => string)): void {
    this.count++;
    if (this.listed.length < PROBLEMS_LISTED) this.listed.push(`${this.label}: ${where}: ${typeof problem === "string" ? problem : problem()}`);
  }
  throwIfAny(): void {
    if (this.count === 0) return;
    const unlisted = this.count - this.listed.length;
    const more = unlisted > 0 ? [`${this.label}: ${unlisted.toLocaleString("en")} more problems not listed (${this.count.toLocaleString("en")} in all)`] : [];
    throw new MapProblem([...this.listed, ...more], this.count);
  }
}

const SETTINGS = ["columns", "values", "dates", "defaults", "ignore_unmapped", "delimiter", "encoding", "sheet"];

/** A key as a problem names it: quoted, and shortened past 40 characters. */
const quoted = (key: string) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isJsonValue = (x: unknown) => x === null || typeof x === "string" || typeof x === "number" || typeof x === "boolean";
/** The object's own value for `key`, never one inherited (`constructor`, `__proto__`). */
const own = (object: Record<string, unknown>, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

/**
 * `given` (the map's value at `where`), an object of `check`ed entries, copied into an
 * object with no prototype: a key such as `__proto__` or `constructor` is a column or
 * value like any other, kept as an own property (a schema library's record drops those
 * keys, silently). Absent, it is an empty object.
 */
function entriesOf<T>(
  given: unknown,
  where: string,
  whatObject: string,
  problems: MapProblems,
  check: (value: unknown, where: string) => T | undefined,
): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (given === undefined) return out;
  if (!isObject(given)) {
    problems.at(where, whatObject);
    return out;
  }
  for (const key of Object.keys(given)) {
    const value = check(given[key], `${where}.${quoted(key)}`);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

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
  const problems = new MapProblems(label);
  const at = problems.at.bind(problems);
  if (!isObject(raw)) throw new MapProblem([`${label}: must be a JSON object`]);
  for (const key of Object.keys(raw)) {
    if (SETTINGS.includes(key)) continue;
    at(key.slice(0, 40), () => {
      const guess = suggestField(key, SETTINGS);
      return `is not a map setting; ${guess ? `did you mean ${guess}?` : `the settings are ${SETTINGS.join(", ")}`}`;
    });
  }
  const jsonValue = (value: unknown, where: string) => {
    if (isJsonValue(value)) return value;
    at(where, "must be text, a number, true, false or null");
    return undefined;
  };
  const columns = entriesOf(own(raw, "columns"), "columns", "must be an object of column → field", problems, (value, where) => {
    if (value === null || typeof value === "string") return value;
    at(where, "must be a field name (text) or null");
    return undefined;
  });
  const values = entriesOf(own(raw, "values"), "values", "must be an object of field → {…}", problems, (value, where) =>
    value === undefined ? undefined : entriesOf(value, where, "must be an object of source value → value", problems, jsonValue),
  );
  const defaults = entriesOf(own(raw, "defaults"), "defaults", "must be an object of field → value", problems, jsonValue);
  const text = (setting: string): string | undefined => {
    const value = own(raw, setting);
    if (value === undefined || typeof value === "string") return value;
    at(setting, "must be text");
    return undefined;
  };
  const ignoreUnmapped = own(raw, "ignore_unmapped") ?? false;
  if (typeof ignoreUnmapped !== "boolean") at("ignore_unmapped", "must be true or false");
  const [mapDates, mapDelimiter, mapEncoding, mapSheet] = [text("dates"), text("delimiter"), text("encoding"), text("sheet")];
  if (mapSheet === "") at("sheet", "must not be empty");

  const field = (name: string) => (fields.includes(name) ? null : () => unknownField(name, fields, kind));
  const targets = new Map<string, string>();
  for (const column of Object.keys(columns)) {
    const target = columns[column];
    if (target === null || target === undefined) continue;
    const wrong = field(target);
    if (wrong) at(`columns.${quoted(column)}`, () => `${quoted(target)} ${wrong()}`);
    const first = targets.get(target);
    if (first !== undefined) at(`columns.${quoted(column)}`, `maps to ${target}, as column ${quoted(first)} already does; a field takes one column`);
    else targets.set(target, column);
  }
  for (const name of Object.keys(values)) {
    const wrong = field(name);
    if (wrong) at(`values.${quoted(name)}`, () => `${quoted(name)} ${wrong()} (values are keyed by the field, after columns)`);
  }
  for (const name of Object.keys(defaults)) {
    const wrong = field(name);
    if (wrong) at(`defaults.${quoted(name)}`, () => `${quoted(name)} ${wrong()}`);
  }

  const dates = overrides.dateFormat ?? mapDates ?? "YYYY-MM-DD";
  if (!(DATE_FORMATS as readonly string[]).includes(dates)) {
    at(overrides.dateFormat !== undefined ? "--date-format" : "dates", `${quoted(dates)} is not a date format; use one of ${DATE_FORMATS.join(", ")}`);
  }
  const delimiterName = overrides.delimiter ?? mapDelimiter;
  const delimiter = delimiterName === undefined || !Object.hasOwn(DELIMITER_NAMES, delimiterName) ? undefined : DELIMITER_NAMES[delimiterName];
  if (delimiterName !== undefined && delimiter === undefined) {
    at(overrides.delimiter !== undefined ? "--delimiter" : "delimiter", `${quoted(delimiterName)} is not a delimiter; use one of ",", ";", "tab", "|"`);
  }
  const encodingName = (overrides.encoding ?? mapEncoding)?.toLowerCase();
  const encoding = encodingName === "utf8" ? "utf-8" : encodingName;
  if (encoding !== undefined && !(ENCODINGS as readonly string[]).includes(encoding)) {
    at(
      overrides.encoding !== undefined ? "--encoding" : "encoding",
      `${quoted(encodingName!)} is not an encoding this reads; use one of ${ENCODINGS.join(", ")}`,
    );
  }
  problems.throwIfAny();
  const sheet = overrides.sheet ?? mapSheet;
  return {
    columns,
    values,
    dates: dates as DateFormat,
    defaults,
    ignoreUnmapped: ignoreUnmapped as boolean,
    ...(delimiter !== undefined ? { delimiter } : {}),
    ...(encoding !== undefined ? { encoding: encoding as Encoding } : {}),
    ...(sheet !== undefined ? { sheet } : {}),
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
