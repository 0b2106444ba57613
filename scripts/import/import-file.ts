/**
 * `leaveapi import`: one file (or stdin) of one kind into one organisation, whole or not
 * at all (docs/cli.md, "Errors and transactions").
 *
 * Records stream from the file and are validated one by one, then checked against the
 * store and written in batches of BATCH_SIZE, all inside one transaction. Every invalid
 * row is reported as `FILE:LINE: field: what is wrong` (reading goes on after the first
 * error so that all are found); when there is any, the transaction is rolled back and
 * nothing is written. A file that cannot be read as a whole gives one `FILE: problem`.
 * The problems listed are the first thousand by line; the rest are counted (problem-list.ts).
 * Memory stays flat for JSONL, CSV and JSON arrays alike; what is held for the whole file
 * is small or bounded: the leave types seen, public-holiday rows, the error lines, and
 * per employee the derived id and calendar facts. (The SQLite store also keeps a 16-byte
 * fingerprint per new booking it holds back for one sorted insert, a million at most:
 * adapters/sql/staged-inserts.ts.)
 */
import type { AdminStore, RecordLabel, WriteCounts } from "../../lib/admin-store.ts";
import { createRecordNormaliser, importColumns, type ImportKind, type ImportRow } from "./normalise-records.ts";
import type { ImportProblem } from "./field-rules.ts";
import { mapsRows, NO_MAP, type ImportMap } from "./import-map.ts";
import { createPruner, type PruneOptions, type Pruner } from "./prune.ts";
import { createRecordShaper, type MappingReport } from "./shape-records.ts";
import { toUtf8 } from "./text-encodings.ts";
import type { EncodingGuess } from "./encoding-guess.ts";
import { createApplier } from "./apply-rows.ts";
import { noCounts, type ImportContext, type PendingRow, type PublicHolidayReplacement } from "./import-context.ts";
import { ProblemReport } from "./problem-report.ts";
import type { ProblemCode } from "./problem-codes.ts";
import { createProgressLine } from "./progress.ts";
import { readCsv } from "./read-csv.ts";
import { readJsonArray } from "./read-json-array.ts";
import { readJsonl } from "./read-jsonl.ts";
import {
  chooseFormat,
  countingBytes,
  CsvHeader,
  FileProblem,
  openFile,
  sourceLabel,
  UnreadableRecord,
  type ImportFormat,
  type SourceRecord,
} from "./source.ts";

export type { ImportKind } from "./normalise-records.ts";
export type { ImportFormat } from "./source.ts";
export type { PublicHolidayReplacement } from "./import-context.ts";
export const IMPORT_KINDS: readonly ImportKind[] = ["employees", "leave", "holidays"];

/**
 * On success, `dryRun` is there when nothing was written on purpose, and `publicHolidays`
 * when the file set any public-holiday calendar-year. On failure `errors` holds every
 * problem, one line each; `invalidRows` counts the rows with at least one (file-level and
 * header problems aside).
 */
export type ImportOutcome =
  | {
      ok: true;
      rows: number;
      counts: WriteCounts;
      dryRun?: true;
      publicHolidays?: PublicHolidayReplacement[];
      /** With `--prune`: the live records the file left out, deleted. */
      pruned?: number;
      /** With `--prune`: the first PRUNE_LISTED of them, as a person recognises them. */
      prunedList?: RecordLabel[];
      /** The stored fields the file did not carry, kept as they were on the records it updated (DECISIONS §11, "Absent is not empty"). */
      kept?: string[];
      /** With `describe`: the map as applied to the header, and the first rows as they would be stored. */
      mapping?: MappingReport | null;
      sample?: object[];
    }
  /** `problemCount`, every problem found, is there when `errors` could not list them all (problem-list.ts). */
  | {
      ok: false;
      errors: string[];
      invalidRows: number;
      /** Problems of the header (columns, not rows): counted apart in the summary. */
      headerProblems?: number;
      /** The kinds of problem found (problem-codes.ts; `file` for a file that cannot be read), which the command's hints are chosen by. */
      codes?: (ProblemCode | "file")[];
      problemCount?: number;
    };

export const BATCH_SIZE = 500;

/**
 * Every this many rows, and once more before the store's last writes, what reading them
 * left on the heap is collected (docs/cli.md, "import": memory does not grow with the
 * file). Left to itself the heap grows in steps well past what it holds, and the last
 * writes (on SQLite: sorting the staged rows, building indexes) take tens of MB of their
 * own, so the peak would be both at once. A full collection costs tens of ms, a small
 * part of the time its rows take; an import of fewer rows never pays it.
 */
const COLLECT_EVERY_ROWS = 100_000;

/** A full garbage collection where the runtime offers one (Bun); elsewhere nothing. */
function collectGarbage(): void {
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

/** Thrown to roll the transaction back when a problem was found: the one exception the store's contract asks for. */
class ImportRejected extends Error {}

export interface ImportRecordsOptions {
  organisationId: string;
  kind: ImportKind;
  /** How errors name the source: the path as given, or `stdin`. */
  label: string;
  records: AsyncIterable<SourceRecord> | Iterable<SourceRecord>;
  /** The records are CSV rows (cells are text): booleans and numbers are read from text. */
  format?: ImportFormat;
  now?: number;
  onProgress?: (rows: number) => void;
  /** Check and count everything, then roll back: what `--dry-run` reports. */
  dryRun?: boolean;
  /** How another system's columns and values are read (`--map`); our own format when absent. */
  map?: ImportMap;
  /** The file is the complete set: live records it leaves out are deleted (`--prune`). */
  prune?: PruneOptions;
  /** Report the map as applied and the first rows as they would be stored (what `--dry-run` prints). */
  describe?: boolean;
  /** Told once when the import waits for another writer (AdminStore's `runImport`). */
  onWait?: (reason: string) => void;
  /** Filled while the records are read: where a dry run read on as Windows-1252 (encoding-guess.ts). */
  encodingGuesses?: EncodingGuess[];
}

/** How many rows `describe` shows. */
const SAMPLE_ROWS = 3;

/** Imports already-read records (each with its line); all or nothing. */
export async function importRecords(store: AdminStore, options: ImportRecordsOptions): Promise<ImportOutcome> {
  const { organisationId, kind, label } = options;
  const now = options.now ?? Date.now();
  const counts = noCounts();
  const shaper = createRecordShaper(kind, options.map ?? NO_MAP, options.format === "csv" || options.format === "xlsx");
  const failures = new ProblemReport({
    label,
    mapped: options.map !== undefined && mapsRows(options.map),
    defaults: Object.keys((options.map ?? NO_MAP).defaults),
    describeField: (field) => shaper.describeField(field),
    columnOf: (field) => shaper.columnOf(field),
  });
  let fileProblem: FileProblem | null = null;
  let rows = 0;
  const publicHolidays: PublicHolidayReplacement[] = [];
  const keptFields = new Set<string>();
  const tabular = options.format === "csv" || options.format === "xlsx";
  const sample: object[] = [];
  let pruned: number | undefined;
  let prunedList: RecordLabel[] | undefined;
  // What the appliers find against the store (an unknown employee, a leave type that disagrees).
  const fail = (line: number, field: string, problem: string) => failures.add(line, { field, problem, code: "conflict" });
  const tellGuesses = () => {
    for (const guess of options.encodingGuesses?.splice(0) ?? []) failures.addOfFile(guess.line, encodingProblem(guess));
  };
  try {
    await store.runImport(
      async (writer) => {
        const ctx: ImportContext = { writer, organisationId, now, counts, publicHolidays, keptFields, fail, failed: () => failures.count > 0 };
        const applier = createApplier(kind, ctx);
        const pruner: Pruner | null = options.prune ? createPruner(kind, options.prune, ctx) : null;
        await pruner?.start();
        const normalise = createRecordNormaliser(kind, { organisationId, text: tabular });
        const rowProblems: ImportProblem[] = [];
        let batch: PendingRow[] = [];
        try {
          for await (const { line, record } of options.records) {
            tellGuesses();
            if (record instanceof CsvHeader) {
              const problems = shaper.header(record.names);
              const read = shaper.report()?.read ?? [];
              const readColumns = new Set(read.map((r) => r.column));
              failures.header(
                line,
                read.map((r) => r.field),
                problems,
                record.names.filter((name) => !readColumns.has(name)),
              );
              continue;
            }
            rows++;
            options.onProgress?.(rows);
            if (rows % COLLECT_EVERY_ROWS === 0) collectGarbage();
            if (record instanceof UnreadableRecord) {
              failures.add(line, { field: "row", problem: record.problem, code: "unreadable" });
              continue;
            }
            rowProblems.length = 0;
            const result = normalise(shaper.row(record, rowProblems));
            if (!result.ok || rowProblems.length > 0) {
              // A date the map could not read is left out of the record: its "is required" would say the same again.
              const told = new Set(rowProblems.map((p) => p.field));
              const problems = [...rowProblems, ...(result.ok ? [] : result.problems.filter((p) => !told.has(p.field)))];
              for (const p of problems) failures.add(line, p);
              continue;
            }
            pruner?.note(result.row);
            if (options.describe && sample.length < SAMPLE_ROWS) sample.push(storedForm(result.row));
            batch.push({ line, row: result.row });
            if (batch.length >= BATCH_SIZE) {
              await applier.applyBatch(batch);
              batch = [];
            }
          }
          tellGuesses();
          await applier.applyBatch(batch);
          await applier.finish();
          if (pruner !== null && failures.count === 0) ({ pruned, listed: prunedList } = await pruner.finish(rows));
          if (rows >= COLLECT_EVERY_ROWS) collectGarbage();
        } catch (error) {
          if (!(error instanceof FileProblem)) throw error;
          fileProblem = error;
        }
        // Throwing is what rolls the transaction back (a dry run keeps nothing either way).
        if (failures.count > 0 || fileProblem !== null) throw new ImportRejected();
      },
      { dryRun: options.dryRun, onWait: options.onWait },
    );
  } catch (error) {
    if (!(error instanceof ImportRejected)) throw error;
    const errors = failures.list.listed();
    const unlisted = failures.count - errors.length;
    if (unlisted > 0)
      errors.push(
        `${label}: ${unlisted} more ${unlisted === 1 ? "problem" : "problems"} not listed (${failures.count} in all, in ${failures.list.invalidRows} rows)`,
      );
    // Reading stopped there, so it comes after every row error found before it.
    if (fileProblem !== null) errors.push(describeFileProblem(label, fileProblem));
    const problemCount = failures.count + (fileProblem === null ? 0 : 1);
    return {
      ok: false,
      errors,
      invalidRows: failures.list.invalidRows,
      headerProblems: failures.headerProblems,
      codes: [...failures.codes, ...(fileProblem === null ? [] : ["file" as const])],
      ...(unlisted > 0 ? { problemCount } : {}),
    };
  }
  return succeeded(rows, counts, publicHolidays, options.dryRun === true, {
    pruned,
    prunedList,
    kept: [...keptFields],
    ...(options.describe ? { mapping: shaper.report(), sample } : {}),
  });
}

/** A dry run read on as Windows-1252: said as a problem (so nothing is kept) with the key that names the encoding. */
function encodingProblem(guess: EncodingGuess): ImportProblem {
  return {
    field: "row",
    problem: `is not valid UTF-8, and reads as Windows-1252 (${JSON.stringify(guess.word)}); this dry run read it so, to find the other problems`,
    code: "encoding",
    value: guess.word,
  };
}

type Extras = Pick<Extract<ImportOutcome, { ok: true }>, "pruned" | "prunedList" | "kept" | "mapping" | "sample">;

function succeeded(rows: number, counts: WriteCounts, publicHolidays: PublicHolidayReplacement[], dryRun: boolean, extra: Extras): ImportOutcome {
  return {
    ok: true,
    rows,
    counts,
    ...(dryRun ? { dryRun: true as const } : {}),
    ...(publicHolidays.length > 0 ? { publicHolidays } : {}),
    ...(extra.pruned !== undefined ? { pruned: extra.pruned, prunedList: extra.prunedList ?? [] } : {}),
    ...(extra.kept !== undefined && extra.kept.length > 0 ? { kept: extra.kept } : {}),
    ...(extra.mapping !== undefined ? { mapping: extra.mapping, sample: extra.sample } : {}),
  };
}

/** A valid row as the import would store it: what `--dry-run` shows of the first rows. */
function storedForm(row: ImportRow): object {
  switch (row.type) {
    case "employee":
      return row.employee;
    case "booking": {
      const { leave_type_id: _, ...booking } = row.booking;
      return { ...booking, leave_type: row.leaveType };
    }
    case "closure":
      return row.closure;
    case "public_holiday":
      return { type: "public", calendar: row.calendar, date: row.date, name: row.name, ...(row.deleted ? { deleted: true } : {}) };
    case "delete":
      return { id: row.id, deleted: true };
  }
}

/** `FILE: problem`, or `FILE:LINE: problem` when the problem is at one line. */
function describeFileProblem(label: string, problem: FileProblem): string {
  return problem.line === null ? `${label}: ${problem.message}` : `${label}:${problem.line}: ${problem.message}`;
}

export interface ImportFileOptions {
  organisationId: string;
  kind: ImportKind;
  /** A path, or `-` for stdin. */
  file: string;
  /** Overrides the file extension; stdin is JSONL unless this says otherwise. */
  format?: ImportFormat;
  stdin?: () => AsyncIterable<Uint8Array>;
  /** Receives the progress line's raw text (with `\r`); pass it only when stderr is a terminal. */
  progress?: (text: string) => void;
  now?: number;
  /** Check and count everything, write nothing. */
  dryRun?: boolean;
  /** How the file is read: its columns, values, dates, delimiter, encoding and sheet (`--map` with the flags over it). */
  map?: ImportMap;
  prune?: PruneOptions;
  /** Report the map as applied and the first rows as they would be stored. */
  describe?: boolean;
  onWait?: (reason: string) => void;
}

/** Reads a file (or stdin) in its format and imports it; all or nothing. */
export async function importFile(store: AdminStore, options: ImportFileOptions): Promise<ImportOutcome> {
  const label = sourceLabel(options.file);
  const map = options.map ?? NO_MAP;
  let format: ImportFormat;
  let chunks: AsyncIterable<Uint8Array> | null = null;
  let size: number | undefined;
  try {
    format = chooseFormat(options.file, options.format);
    if (format === "xlsx") {
      if (options.file === "-") throw new FileProblem("an .xlsx workbook is read from a file, not from stdin: give its path");
    } else if (options.file !== "-") ({ chunks, size } = await openFile(options.file));
    else if (options.stdin) chunks = options.stdin();
    else throw new FileProblem("reading stdin is not available here");
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    return { ok: false, errors: [describeFileProblem(label, error)], invalidRows: 0 };
  }
  const progress = options.progress ? createProgressLine(options.progress, undefined, undefined, size) : null;
  let bytesRead = 0;
  let records: AsyncIterable<SourceRecord>;
  const encodingGuesses: EncodingGuess[] = [];
  // The workbook reader and its library load only when a workbook is read.
  if (format === "xlsx" || chunks === null) {
    // Only the shared strings of the columns the map reads are kept (read-xlsx.ts): the header decides which.
    const columnsRead = (names: readonly string[]) => {
      const probe = createRecordShaper(options.kind, map, true);
      probe.header(names);
      return new Set(probe.report()?.read.map((r) => r.column));
    };
    records = (await import("./read-xlsx.ts")).readXlsx(options.file, { sheet: map.sheet, columnsRead });
  } else {
    const text = toUtf8(
      progress
        ? countingBytes(chunks, (n) => {
            bytesRead += n;
          })
        : chunks,
      map.encoding,
      options.dryRun && map.encoding === undefined ? (guess) => encodingGuesses.push(guess) : undefined,
    );
    if (format === "csv") {
      const known = new Set([...importColumns(options.kind, true), ...Object.keys(map.columns)]);
      records = readCsv(text, { delimiter: map.delimiter, scoreHeader: (names) => names.filter((n) => known.has(n)).length });
    } else records = format === "json" ? readJsonArray(text) : readJsonl(text);
  }
  try {
    return await importRecords(store, {
      organisationId: options.organisationId,
      kind: options.kind,
      label,
      records,
      format,
      now: options.now,
      onProgress: progress ? (rows) => progress.update(rows, bytesRead) : undefined,
      dryRun: options.dryRun,
      map,
      prune: options.prune,
      describe: options.describe,
      onWait: options.onWait,
      encodingGuesses,
    });
  } finally {
    progress?.done();
  }
}
