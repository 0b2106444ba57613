/**
 * Where an import's problems are put into words (docs/cli.md, "Reading import problems"):
 * each stage reports `{field, problem, code}` at a line, and here it becomes the line the
 * person importing reads, `FILE:LINE: field (column "Source"): problem; what fixes it`,
 * the hint chosen by the code (problem-codes.ts). A field every row needs but the file
 * has no column for is told once, at the header, naming `"defaults"`, rather than on
 * every row; header problems are counted apart from rows.
 */
import { hintFor, type ImportProblem, type ProblemCode } from "./problem-codes.ts";
import { ProblemList } from "./problem-list.ts";
import { formatsOf } from "./source-dates.ts";
import type { DateFormat } from "./import-map.ts";

/** Where the field that a "required" problem names may also come from: its alternative key. */
const ALTERNATIVES: Record<string, string> = { id: "external_id", employee_id: "employee_external_id" };

export interface ProblemReportOptions {
  /** How problems name the source: the path as given, or `stdin`. */
  label: string;
  /** Whether a `--map` was given (the hints then name its keys as keys of that file). */
  mapped: boolean;
  /** The fields the map fills when a cell is empty (its `defaults`). */
  defaults: readonly string[];
  /** A field as a row's problem names it, with its source column (shape-records.ts). */
  describeField: (field: string) => string;
  /** The source column of a field, where it has another name. */
  columnOf?: (field: string) => string | undefined;
}

export class ProblemReport {
  readonly list = new ProblemList();
  /** Every code reported, for the command's closing hint. */
  readonly codes = new Set<ProblemCode>();
  private headerLine: number | null = null;
  /** The fields the header gives (null: no header, records carry their own keys). */
  private headerFields: Set<string> | null = null;
  /** Fields already told as a column the file lacks. */
  private readonly missingTold = new Set<string>();
  headerProblems = 0;
  /** The formats every date not in the expected format fits (null: none seen yet). */
  private dateFormats: DateFormat[] | null = null;
  /** The header's columns read as no field: where a key column's example is taken from. */
  private unread: readonly string[] = [];

  constructor(private readonly options: ProblemReportOptions) {}

  get count(): number {
    return this.list.count;
  }

  /** The header was read at `line`, giving `fields`; its own problems follow. */
  header(line: number, fields: readonly string[], problems: readonly ImportProblem[], unread: readonly string[] = []): void {
    this.headerLine = line;
    this.unread = unread;
    this.headerFields = new Set([...fields, ...this.options.defaults]);
    for (const p of problems) this.add(line, p);
  }

  /** One problem of the row (or header) at `line`. */
  add(line: number, p: ImportProblem): void {
    const code = p.code ?? "invalid";
    if (code === "required" && this.headerLine !== null && this.lacksColumn(p.field)) {
      this.missingColumn(p.field);
      return;
    }
    this.codes.add(code);
    const ofRow = line !== this.headerLine;
    if (!ofRow) this.headerProblems++;
    // A header's problem names a column, or a field the file has no column for: as it is.
    const field = p.field === "header" ? "" : `${ofRow ? this.options.describeField(p.field) : p.field}: `;
    const text = `${this.options.label}:${line}: ${field}${p.problem}`;
    const column = ofRow ? this.options.columnOf?.(p.field) : undefined;
    if (code !== "date_format" || typeof p.value !== "string") {
      this.list.add(line, text + hintFor(p, { mapped: this.options.mapped, column }), ofRow);
      return;
    }
    // The format to name is the one every date of the file fits: known once all are read.
    const fits = formatsOf(p.value);
    this.dateFormats = this.dateFormats === null ? fits : this.dateFormats.filter((f) => fits.includes(f));
    this.list.add(
      line,
      () => text + hintFor(p, { mapped: this.options.mapped, column, dateFormats: this.dateFormats?.length ? this.dateFormats : fits }),
      ofRow,
    );
  }

  /** A problem of the file as a whole found at `line` (its encoding): neither the header's nor a row's. */
  addOfFile(line: number, p: ImportProblem): void {
    this.codes.add(p.code ?? "invalid");
    this.list.add(line, `${this.options.label}:${line}: ${p.field}: ${p.problem}${hintFor(p, { mapped: this.options.mapped })}`, false);
  }

  private lacksColumn(field: string): boolean {
    const fields = this.headerFields!;
    const other = ALTERNATIVES[field];
    return !fields.has(field) && (other === undefined || !fields.has(other));
  }

  /**
   * The column likely to hold a key, for the example: an employee column for a booking's
   * employee, else the first column not read (exports put their own id first).
   */
  private keyColumn(field: string): string {
    const employee = field === "employee_id" ? this.unread.find((c) => /employee|mitarbeiter|personal/i.test(c)) : undefined;
    return employee ?? (field === "id" ? this.unread[0] : undefined) ?? "ID column";
  }

  /** A field every row needs and the file has no column for: once, at the header. */
  private missingColumn(field: string): void {
    if (this.missingTold.has(field)) return;
    this.missingTold.add(field);
    const other = ALTERNATIVES[field];
    const where = this.options.mapped ? "the map's" : "a --map file's";
    const problem =
      other === undefined
        ? `every row needs ${field}, and the file has no column for it; give one value for every row under ${where} "defaults", e.g. "defaults": {${JSON.stringify(field)}: ${field === "leave_type_is_paid" ? "true" : field === "leave_type_category" ? '"annual"' : '"…"'}}, or name the column that holds it under "columns"`
        : `every row needs ${field} or ${other}, and the file has a column for neither; name the column that holds it under ${where} "columns", e.g. "columns": {${JSON.stringify(this.keyColumn(field))}: ${JSON.stringify(other)}}`;
    this.add(this.headerLine!, { field, problem, code: "missing_column" });
  }
}
