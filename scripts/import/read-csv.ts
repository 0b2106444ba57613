/**
 * CSV with a header row of field names (csv-parse, streamed with back-pressure). Each
 * row becomes an object of strings, an empty cell becoming `null`; its line is the
 * physical line the row starts on (the header is line 1), counted from csv-parse's raw
 * text so that quoted fields spanning lines and skipped blank lines are accounted for.
 * Rows whose cells are all empty (spreadsheet padding) are skipped.
 */
import { Readable, pipeline } from "node:stream";
import { parse, type Parser } from "csv-parse";
import { FileProblem, UnreadableRecord, type SourceRecord } from "./source.ts";

interface ParsedRow {
  record: string[];
  raw: string;
}

const LINE_BREAK = /\r\n|\r|\n/g;
const countLineBreaks = (text: string) => text.match(LINE_BREAK)?.length ?? 0;

export async function* readCsv(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SourceRecord> {
  const parser: Parser = parse({ bom: true, raw: true, relax_column_count: true, skip_empty_lines: true });
  pipeline(Readable.from(chunks), parser, (error) => {
    if (error) parser.destroy(error);
  });
  let header: string[] | null = null;
  let linesBefore = 0;
  try {
    for await (const { record, raw } of parser as AsyncIterable<ParsedRow>) {
      // Skipped blank lines are part of the raw text before the record itself.
      const line = linesBefore + 1 + countLineBreaks(/^[\r\n]*/.exec(raw)![0]);
      linesBefore += countLineBreaks(raw);
      if (header === null) {
        header = readHeader(record);
        continue;
      }
      if (record.every((cell) => cell === "")) continue;
      if (record.length !== header.length) {
        yield { line, record: new UnreadableRecord(`has ${record.length} fields; the header has ${header.length}`) };
        continue;
      }
      const row: Record<string, string | null> = {};
      header.forEach((name, i) => (row[name] = record[i] === "" ? null : record[i]!));
      yield { line, record: row };
    }
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem(`is not valid CSV: ${(error as Error).message}`);
  } finally {
    // Stops the file stream too when reading ends early, on a FileProblem.
    parser.destroy();
  }
}

function readHeader(cells: string[]): string[] {
  const names = cells.map((c) => c.trim());
  names.forEach((name, i) => {
    if (name === "") throw new FileProblem(`column ${i + 1} of the header row has no name`);
    if (names.indexOf(name) !== i) throw new FileProblem(`column "${name}" appears twice in the header row`);
  });
  return names;
}
