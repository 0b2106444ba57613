/**
 * CSV with a header row of field names (csv-parse, streamed with back-pressure). Each
 * row becomes an object of strings, an empty cell becoming `null`; its line is the
 * physical line the row starts on (the header is line 1), counted from csv-parse's raw
 * text so that quoted fields spanning lines are accounted for (csv-parse's own count
 * is not: it counts `\r\n` inside quotes twice). Blank lines come through as records of
 * their own, so each record's raw text starts on its first line; rows whose cells are
 * all empty (blank lines, spreadsheet padding) are skipped.
 *
 * The bytes reach csv-parse only once read-lines.ts has checked each line: valid UTF-8
 * and at most 1 MiB, else reading stops at that line, as it does at a record (a quoted
 * field may span lines) over 1 MiB, or at a CSV syntax error: after a broken record there
 * is no telling where the next one starts. Such problems, and those of the header, are
 * reported at their line, as row errors are (docs/cli.md, "Errors and transactions"). The
 * header itself comes through as a `CsvHeader`, so that the importer checks its columns
 * once, at line 1, rather than on every row.
 */
import { Readable, pipeline } from "node:stream";
import { isUtf8 } from "node:buffer";
import { CsvError, parse, type Options, type Parser } from "csv-parse";
import { parse as parseSync } from "csv-parse/sync";
import { DELIMITERS } from "./import-map.ts";
import { concatBytes, readLines } from "./read-lines.ts";
import { checkedHeader, CsvHeader, FileProblem, MAX_RECORD_BYTES, notUtf8, tooLong, UnreadableRecord, type SourceRecord } from "./source.ts";

/** A record's cells and the line it starts on. */
interface NumberedCells {
  line: number;
  cells: string[];
}

const LINE_BREAK = /\r\n|\r|\n/g;
const countLineBreaks = (text: string) => text.match(LINE_BREAK)?.length ?? 0;

export interface ReadCsvOptions {
  /** The delimiter; detected from the header line when not given (see chooseDelimiter). */
  delimiter?: string;
  /** How many of a header's names the import knows (fields, or columns the map names): what detection goes by. */
  scoreHeader?: (names: string[]) => number;
}

export async function* readCsv(chunks: AsyncIterable<Uint8Array>, csv: ReadCsvOptions = {}): AsyncIterable<SourceRecord> {
  const blocks = checkedBlocks(chunks)[Symbol.asyncIterator]();
  const first = await blocks.next();
  const delimiter = first.done ? "," : chooseDelimiter(first.value, csv);
  async function* again(): AsyncIterable<Uint8Array> {
    if (first.done) return;
    yield first.value;
    for (let next = await blocks.next(); !next.done; next = await blocks.next()) yield next.value;
  }
  // Counted as csv-parse meets each record, so that a parse error, which may overtake
  // records read ahead, still knows the line its record starts on.
  let nextLine = 1;
  const options: Options<NumberedCells, { record: string[]; raw: string }> = {
    bom: true,
    delimiter,
    raw: true,
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
    // With `raw`, each record comes as {record, raw}; what this returns is what is read.
    on_record: ({ record, raw }) => {
      const line = nextLine;
      nextLine += countLineBreaks(raw);
      return { line, cells: record };
    },
  };
  // csv-parse's typings take a record changed by on_record only along with `columns`.
  const parser: Parser = parse(options as unknown as Options);
  pipeline(Readable.from(again()), parser, (error) => {
    if (error) parser.destroy(error);
  });
  let header: string[] | null = null;
  try {
    for await (const { line, cells } of parser as AsyncIterable<NumberedCells>) {
      if (cells.length === 1 && cells[0] === "") continue;
      if (header === null) {
        header = readHeader(cells, line);
        yield { line, record: new CsvHeader(header) };
        continue;
      }
      if (cells.every((cell) => cell === "")) continue;
      if (cells.length !== header.length) {
        yield { line, record: new UnreadableRecord(`has ${cells.length} fields; the header has ${header.length}`) };
        continue;
      }
      // No prototype: a column named __proto__ or constructor is a cell like any other.
      const row = Object.create(null) as Record<string, string | null>;
      for (const [i, name] of header.entries()) row[name] = cells[i] === "" ? null : cells[i]!;
      yield { line, record: row };
    }
  } catch (error) {
    if (error instanceof FileProblem || !(error instanceof CsvError)) throw error;
    if (error.code === "CSV_MAX_RECORD_SIZE")
      throw new FileProblem("row: its fields come to over 1 MiB; a record may be at most 1 MiB (reading stopped at this line)", nextLine);
    throw new FileProblem(`row: is not valid CSV: ${describeCsvError(error)}; reading stopped at this line`, nextLine);
  } finally {
    // Stops the file stream too when reading ends early, on a FileProblem.
    parser.destroy();
  }
}

const BREAK_BYTES = { "\n": Uint8Array.of(0x0a), "\r\n": Uint8Array.of(0x0d, 0x0a), "\r": Uint8Array.of(0x0d), "": new Uint8Array(0) };

/** The file's bytes again, a block of whole lines at a time, each line checked (see the module comment). */
async function* checkedBlocks(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  for await (const lines of readLines(chunks, { crBreaks: true })) {
    const parts: Uint8Array[] = [];
    let length = 0;
    for (const { line, bytes, size, lineBreak } of lines) {
      if (bytes === null) throw new FileProblem(`row: ${tooLong(size, "a line")} (reading stopped at this line)`, line);
      parts.push(bytes, BREAK_BYTES[lineBreak]);
      length += bytes.length + lineBreak.length;
    }
    const block = concatBytes(parts, length);
    // A line break is never inside a UTF-8 sequence: one check of whole lines stands for each of them.
    if (!isUtf8(block)) throw notUtf8(lines.find((l) => !isUtf8(l.bytes!))!.line);
    yield block;
  }
}

/**
 * What is wrong, in words that fit after `FILE:LINE:` (the line being the record's first):
 * csv-parse's own messages name its internal line count, which is not the file's.
 */
function describeCsvError(error: CsvError): string {
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return 'a quoted field starts here and is never closed (a closing " is missing)';
    case "CSV_INVALID_CLOSING_QUOTE":
      return 'a " inside a field must be doubled ("") or the whole field quoted';
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return "text follows a closing quote before the next comma";
    default:
      return error.message.replace(/\s*(at|on) line \d+\.?$/i, "").replace(/^Invalid Record Length: /, "");
  }
}

/**
 * The delimiter of a CSV whose first block of lines is `block`: the one given, else of
 * `,` `;` tab and `|` the one whose split of the header line gives the most columns the
 * import knows, then the most columns (a file of unknown columns is still split as it
 * was written, so that its problems name real columns). A delimiter given that leaves
 * the header one column, where another splits it, is named in the problem.
 */
function chooseDelimiter(block: Uint8Array, csv: ReadCsvOptions): string {
  const lines = new TextDecoder().decode(block).split(/\r\n|\r|\n/);
  const at = Math.max(
    0,
    lines.findIndex((line) => line.trim() !== ""),
  );
  const headerLine = lines[at] ?? "";
  const score = csv.scoreHeader ?? (() => 0);
  const candidates = DELIMITERS.map((delimiter) => {
    const names = splitHeader(headerLine, delimiter);
    return { delimiter, columns: names.length, known: score(names) };
  });
  const best = [...candidates].sort((a, b) => b.known - a.known || b.columns - a.columns)[0]!;
  if (csv.delimiter === undefined) return best.columns > 1 || best.known > 0 ? best.delimiter : ",";
  const given = candidates.find((c) => c.delimiter === csv.delimiter);
  if (given !== undefined && given.columns === 1 && best.columns > 1) {
    throw new FileProblem(
      `header: is one column when split at ${describeDelimiter(csv.delimiter)}; it looks separated by ${describeDelimiter(best.delimiter)}: pass --delimiter ${best.delimiter === "\t" ? "tab" : `'${best.delimiter}'`}`,
      at + 1,
    );
  }
  return csv.delimiter;
}

const describeDelimiter = (delimiter: string) => (delimiter === "\t" ? "tabs" : `"${delimiter}"`);

/** A header line's names when split at `delimiter` (quotes honoured); unreadable as CSV, no names. */
function splitHeader(line: string, delimiter: string): string[] {
  try {
    const [names] = parseSync(line, { delimiter, bom: true, relax_quotes: true, relax_column_count: true }) as string[][];
    return (names ?? []).map((name) => name.trim());
  } catch {
    return [];
  }
}

function readHeader(cells: string[], line: number): string[] {
  return checkedHeader(cells, line, (i) => String(i + 1));
}
