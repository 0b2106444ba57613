/**
 * A sheet's rows as they are written (read-xlsx.ts makes records of them), streamed with
 * the limits of DECISIONS §11: a row number from 1 to 1,048,576, a cell reference from
 * A1 to XFD1048576 (refused at once: its letters are not counted past three), at most
 * 16,384 cells a row, and at most 1 MiB a cell, all refused while streaming. A row holds
 * its cells as a list in the order written, never an array indexed by column, so that
 * what a row costs follows the cells it has and not their column letters; and at most 1
 * MiB of their values (a row past that keeps none, only its size, and is reported as too
 * large).
 */
import { FileProblem, MAX_RECORD_BYTES } from "./source.ts";
import { columnIndex, columnLetter, MAX_COLUMNS, MAX_ROWS, richText } from "./xlsx-values.ts";
import { parsePart, type Entry, type ZipFile } from "./xlsx-zip.ts";

export interface RawCell {
  /** A is 0. */
  column: number;
  /** `n` (a number), `s` (a shared string's index), `inlineStr`, `b`, `str`, `e`, `d`. */
  type: string;
  style: number;
  /** The value as written (a shared string's index, a number's digits, an inline string's text); null when not kept or not there. */
  value: string | null;
  /** Whether the cell has any text, kept or not. */
  filled: boolean;
}

export interface RawRow {
  /** The row's number, as Excel shows it. */
  line: number;
  cells: RawCell[];
  /** The bytes of the kept values; past MAX_RECORD_BYTES the row keeps no values (`cells` is then empty), only their count. */
  bytes: number;
}

/** Whether a pass keeps the value of a cell in this column of this type. */
export type KeepCell = (column: number, type: string) => boolean;

const refused = (what: string, line: number | null) => new FileProblem(line === null ? what : `row: ${what}`, line);
const shown = (text: string) => JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text);

/** The sheet's rows in order, each handed on once the chunk of XML it ends in is parsed. */
export async function* rawRows(zip: ZipFile, entry: Entry, keep: KeepCell): AsyncIterable<RawRow> {
  const ready: RawRow[] = [];
  let row: RawRow = { line: 0, cells: [], bytes: 0 };
  /** The cells of the row so far, kept or not. */
  let count = 0;
  let lastColumn = -1;
  let cell: RawCell | null = null;
  let keeping = false;
  let cellBytes = 0;
  let inValue = false;
  let inInline = false;
  const inline = richText();
  const text = (piece: string) => {
    if (piece === "") return;
    cell!.filled = true;
    const size = Buffer.byteLength(piece);
    cellBytes += size;
    if (cellBytes > MAX_RECORD_BYTES)
      throw refused(
        `the cell in column ${columnLetter(cell!.column)} holds over 1 MiB (${MAX_RECORD_BYTES.toLocaleString("en")} bytes); a cell may hold at most 1 MiB`,
        row.line,
      );
    if (!keeping) return;
    // Past 1 MiB the row is too large to be a record: its size is all it keeps on counting, for the message.
    row.bytes += size;
    if (row.bytes <= MAX_RECORD_BYTES) cell!.value += piece;
    else if (row.cells.length > 0) row.cells = [];
  };
  const handlers = {
    open(name: string, attributes: Record<string, string>) {
      if (name === "row") {
        const r = attributes.r;
        const line = r === undefined ? row.line + 1 : /^[1-9][0-9]{0,6}$/.test(r) ? Number(r) : Number.NaN;
        if (!(line <= MAX_ROWS)) {
          throw refused(
            r === undefined || Number.isFinite(line)
              ? `the sheet has a row past row ${MAX_ROWS.toLocaleString("en")}, the last a sheet can have`
              : `the sheet has a row numbered ${shown(r)}; rows are numbered from 1 to ${MAX_ROWS.toLocaleString("en")}`,
            null,
          );
        }
        row = { line, cells: [], bytes: 0 };
        count = 0;
        lastColumn = -1;
      } else if (name === "c") {
        if (++count > MAX_COLUMNS) throw refused(`has more than ${MAX_COLUMNS.toLocaleString("en")} cells, the most a row of a sheet can have`, row.line);
        const r = attributes.r;
        const column = r === undefined ? lastColumn + 1 : columnIndex(r);
        if (column === -1 || column >= MAX_COLUMNS) {
          throw refused(
            r === undefined
              ? "has a cell past column XFD, the last a sheet can have"
              : `the cell reference ${shown(r)} is not one from A1 to XFD1048576, the cells a sheet can have`,
            row.line,
          );
        }
        lastColumn = column;
        const type = attributes.t ?? "n";
        const style = Number(attributes.s ?? 0);
        cell = { column, type, style: Number.isInteger(style) ? style : 0, value: null, filled: false };
        keeping = keep(column, type);
        cellBytes = 0;
        if (row.bytes <= MAX_RECORD_BYTES) row.cells.push(cell);
      } else if (cell === null) {
        return;
      } else if (name === "v") {
        inValue = true;
        if (keeping && row.bytes <= MAX_RECORD_BYTES) cell.value ??= "";
      } else if (name === "is") {
        inInline = true;
        if (keeping && row.bytes <= MAX_RECORD_BYTES) cell.value ??= "";
      } else if (inInline) inline.open(name);
    },
    close(name: string) {
      if (name === "row") {
        ready.push(row);
        row = { line: row.line, cells: [], bytes: 0 };
      } else if (name === "c") cell = null;
      else if (name === "v") inValue = false;
      else if (name === "is") inInline = false;
      else if (inInline) inline.close(name);
    },
    text(piece: string) {
      if (cell === null) return;
      if (inValue || (inInline && inline.inText())) text(piece);
    },
  };
  for await (const _ of parsePart(zip, entry, handlers)) {
    for (const done of ready) yield done;
    ready.length = 0;
  }
}
