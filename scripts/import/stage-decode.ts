/**
 * Stage 2, decode: the source's bytes (or workbook) as records, each at the physical line
 * it starts on, in the plan's format and encoding. What comes out is a value of one of
 * four kinds, never an exception: a header (a table's column names, checked once), a
 * record, a problem of one row (unreadable) or of the file (the encoding a dry run read
 * it in, encoding-guess.ts), and a stop (the file cannot be read past some point).
 * The readers signal a stop by throwing a FileProblem from inside their generators;
 * this is the one place that turns it into a value.
 */
import type { EncodingGuess } from "./encoding-guess.ts";
import type { ImportPlan } from "./import-plan.ts";
import type { ImportProblem } from "./problem-codes.ts";
import { readCsv } from "./read-csv.ts";
import { readJsonArray } from "./read-json-array.ts";
import { readJsonl } from "./read-jsonl.ts";
import { countingBytes, CsvHeader, FileProblem, UnreadableRecord, type SourceRecord } from "./source.ts";
import type { Source } from "./stage-read.ts";
import { toUtf8 } from "./text-encodings.ts";

export type Decoded =
  | { kind: "header"; line: number; names: readonly string[] }
  | { kind: "record"; line: number; record: unknown }
  | { kind: "problem"; line: number; problem: ImportProblem; of: "row" | "file" }
  | { kind: "stop"; problem: FileProblem };

export interface DecodeOptions {
  /** The columns of a header that the map will read: a workbook keeps the shared strings of those only. */
  columnsRead: (names: readonly string[]) => ReadonlySet<string>;
  /** The names a table's columns may have: which line is the header, and its delimiter, is told by them. */
  knownColumns: ReadonlySet<string>;
  /** Told the length of each chunk of bytes as it is read (the progress line). */
  onBytes?: (n: number) => void;
}

/** The plan's source as decoded records. */
export async function* decodeSource(plan: Pick<ImportPlan, "format" | "map" | "mode">, source: Source, options: DecodeOptions): AsyncIterable<Decoded> {
  const guesses: EncodingGuess[] = [];
  yield* decodeRecords(openRecords(plan, source, options, guesses), guesses);
}

function openRecords(
  plan: Pick<ImportPlan, "format" | "map" | "mode">,
  source: Source,
  options: DecodeOptions,
  guesses: EncodingGuess[],
): AsyncIterable<SourceRecord> {
  const { map } = plan;
  if (source.kind === "workbook") return workbookRecords(source.path, map.sheet, options.columnsRead);
  const bytes = options.onBytes ? countingBytes(source.chunks, options.onBytes) : source.chunks;
  // Only a dry run reads on in a guessed encoding: its guess is a problem, so nothing is written from it.
  const guess = plan.mode === "dry-run" && map.encoding === undefined ? (g: EncodingGuess) => void guesses.push(g) : undefined;
  const text = toUtf8(bytes, map.encoding, guess);
  if (plan.format === "csv")
    return readCsv(text, { delimiter: map.delimiter, scoreHeader: (names) => names.filter((n) => options.knownColumns.has(n)).length });
  return plan.format === "json" ? readJsonArray(text) : readJsonl(text);
}

/** The workbook reader and its library load only when a workbook is read. */
async function* workbookRecords(path: string, sheet: string | undefined, columnsRead: DecodeOptions["columnsRead"]): AsyncIterable<SourceRecord> {
  const { readXlsx } = await import("./read-xlsx.ts");
  yield* readXlsx(path, { sheet, columnsRead: (names) => new Set(columnsRead(names)) });
}

/**
 * Records as the readers give them (with `CsvHeader` and `UnreadableRecord` among them)
 * as decoded values; `guesses` is filled as the bytes are converted, and each is told
 * before the next record.
 */
export async function* decodeRecords(records: AsyncIterable<SourceRecord> | Iterable<SourceRecord>, guesses: EncodingGuess[] = []): AsyncIterable<Decoded> {
  const iterator = (Symbol.asyncIterator in records ? records : fromSync(records))[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<SourceRecord>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (!(error instanceof FileProblem)) throw error;
        yield* told(guesses);
        yield { kind: "stop", problem: error };
        return;
      }
      yield* told(guesses);
      if (next.done) return;
      const { line, record } = next.value;
      if (record instanceof CsvHeader) yield { kind: "header", line, names: record.names };
      else if (record instanceof UnreadableRecord)
        yield { kind: "problem", line, of: "row", problem: { field: "row", problem: record.problem, code: "unreadable" } };
      else yield { kind: "record", line, record };
    }
  } finally {
    // Reading may end early (a store that fails under the writes): the file is closed all the same.
    await iterator.return?.();
  }
}

async function* fromSync<T>(items: Iterable<T>): AsyncIterable<T> {
  yield* items;
}

function* told(guesses: EncodingGuess[]): Iterable<Decoded> {
  for (const guess of guesses.splice(0)) yield { kind: "problem", line: guess.line, of: "file", problem: encodingProblem(guess) };
}

/** A dry run read on as Windows-1252: said as a problem (so nothing is kept), with the key that names the encoding (problem-codes.ts). */
function encodingProblem(guess: EncodingGuess): ImportProblem {
  return {
    field: "row",
    problem: `is not valid UTF-8, and reads as Windows-1252 (${JSON.stringify(guess.word)}); this dry run read it so, to find the other problems`,
    code: "encoding",
    value: guess.word,
  };
}
