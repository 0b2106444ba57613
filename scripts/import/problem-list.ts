/**
 * The problems an import found, kept within bounds (docs/cli.md, "Errors
 * and transactions"): the first PROBLEMS_LISTED by line are listed, every one is counted,
 * and so is every row with one. A file of two million bad rows used to keep two million
 * lines of text and a set of their line numbers, and printed every one of them to stderr.
 *
 * Problems arrive nearly in line order, but not quite: a row checked against the store
 * is reported when its batch is written, after later rows were read. So the list keeps
 * up to twice its bound, and when that fills, sorts and keeps the first half. A row's
 * problems always arrive together (it is checked in one place, then dropped), so counting
 * the rows needs no set of lines.
 */

/** Problems listed in full; past this many, only counted. */
export const PROBLEMS_LISTED = 1000;

interface Problem {
  line: number;
  /** A function when its words wait for the whole file (a date hint that names the one format every date fits). */
  text: string | (() => string);
}

export class ProblemList {
  private kept: Problem[] = [];
  private lastLine: number | null = null;
  /** Every problem reported. */
  count = 0;
  /** Rows with at least one problem; a header's problems are not a row's. */
  invalidRows = 0;

  constructor(private readonly limit = PROBLEMS_LISTED) {}

  add(line: number, text: string | (() => string), ofRow: boolean): void {
    this.count++;
    if (ofRow && line !== this.lastLine) this.invalidRows++;
    this.lastLine = line;
    this.kept.push({ line, text });
    if (this.kept.length >= 2 * this.limit) this.trim();
  }

  /** The first `limit` problems by line (in the order reported within a line). */
  listed(): string[] {
    this.trim();
    return this.kept.map((p) => (typeof p.text === "string" ? p.text : p.text()));
  }

  private trim(): void {
    // Array.prototype.sort is stable: a line's problems stay in the order they came.
    this.kept.sort((a, b) => a.line - b.line);
    if (this.kept.length > this.limit) this.kept.length = this.limit;
  }
}
