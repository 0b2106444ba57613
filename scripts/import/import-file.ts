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
import type { AdminStore, WriteCounts } from "../../lib/admin-store.ts";
import { createRecordNormaliser, unknownColumns, type ImportKind } from "./normalise-records.ts";
import { createApplier } from "./apply-rows.ts";
import { noCounts, type ImportContext, type PendingRow, type PublicHolidayReplacement } from "./import-context.ts";
import { ProblemList } from "./problem-list.ts";
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
  | { ok: true; rows: number; counts: WriteCounts; dryRun?: true; publicHolidays?: PublicHolidayReplacement[] }
  /** `problemCount`, every problem found, is there when `errors` could not list them all (problem-list.ts). */
  | { ok: false; errors: string[]; invalidRows: number; problemCount?: number };

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

class ImportRejected extends Error {}
/** Thrown to roll a dry run back once everything was checked and counted. */
class DryRunDone extends Error {}

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
}

/** Imports already-read records (each with its line); all or nothing. */
export async function importRecords(store: AdminStore, options: ImportRecordsOptions): Promise<ImportOutcome> {
  const { organisationId, kind, label } = options;
  const now = options.now ?? Date.now();
  const counts = noCounts();
  const failures = new ProblemList();
  let fileProblem: FileProblem | null = null;
  let rows = 0;
  const publicHolidays: PublicHolidayReplacement[] = [];
  /** A CSV header's unknown columns: reported once, at its line, and left out of every row. */
  let dropped: readonly string[] = [];
  let headerLine: number | null = null;
  const fail = (line: number, field: string, problem: string) => failures.add(line, `${label}:${line}: ${field}: ${problem}`, line !== headerLine);
  try {
    await store.runImport(async (writer) => {
      const ctx: ImportContext = { writer, organisationId, now, counts, publicHolidays, fail, failed: () => failures.count > 0 };
      const applier = createApplier(kind, ctx);
      const normalise = createRecordNormaliser(kind, { organisationId, text: options.format === "csv" });
      let batch: PendingRow[] = [];
      try {
        for await (const { line, record } of options.records) {
          if (record instanceof CsvHeader) {
            headerLine = line;
            const problems = unknownColumns(kind, record.names);
            for (const p of problems) fail(line, p.field, p.problem);
            dropped = problems.map((p) => p.field);
            continue;
          }
          rows++;
          options.onProgress?.(rows);
          if (rows % COLLECT_EVERY_ROWS === 0) collectGarbage();
          if (record instanceof UnreadableRecord) {
            fail(line, "row", record.problem);
            continue;
          }
          if (dropped.length > 0) for (const column of dropped) delete (record as Record<string, unknown>)[column];
          const result = normalise(record);
          if (!result.ok) {
            for (const p of result.problems) fail(line, p.field, p.problem);
            continue;
          }
          batch.push({ line, row: result.row });
          if (batch.length >= BATCH_SIZE) {
            await applier.applyBatch(batch);
            batch = [];
          }
        }
        await applier.applyBatch(batch);
        await applier.finish();
        if (rows >= COLLECT_EVERY_ROWS) collectGarbage();
      } catch (error) {
        if (!(error instanceof FileProblem)) throw error;
        fileProblem = error;
      }
      // Throwing is what rolls the transaction back.
      if (failures.count > 0 || fileProblem !== null) throw new ImportRejected();
      if (options.dryRun) throw new DryRunDone();
    });
  } catch (error) {
    if (error instanceof DryRunDone) return succeeded(rows, counts, publicHolidays, true);
    if (!(error instanceof ImportRejected)) throw error;
    const errors = failures.listed();
    const unlisted = failures.count - errors.length;
    if (unlisted > 0)
      errors.push(
        `${label}: ${unlisted} more ${unlisted === 1 ? "problem" : "problems"} not listed (${failures.count} in all, in ${failures.invalidRows} rows)`,
      );
    // Reading stopped there, so it comes after every row error found before it.
    if (fileProblem !== null) errors.push(describeFileProblem(label, fileProblem));
    const problemCount = failures.count + (fileProblem === null ? 0 : 1);
    return { ok: false, errors, invalidRows: failures.invalidRows, ...(unlisted > 0 ? { problemCount } : {}) };
  }
  return succeeded(rows, counts, publicHolidays, false);
}

function succeeded(rows: number, counts: WriteCounts, publicHolidays: PublicHolidayReplacement[], dryRun: boolean): ImportOutcome {
  return { ok: true, rows, counts, ...(dryRun ? { dryRun: true as const } : {}), ...(publicHolidays.length > 0 ? { publicHolidays } : {}) };
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
}

/** Reads a file (or stdin) in its format and imports it; all or nothing. */
export async function importFile(store: AdminStore, options: ImportFileOptions): Promise<ImportOutcome> {
  const label = sourceLabel(options.file);
  let format: ImportFormat;
  let chunks: AsyncIterable<Uint8Array>;
  let size: number | undefined;
  try {
    format = chooseFormat(options.file, options.format);
    if (options.file !== "-") ({ chunks, size } = await openFile(options.file));
    else if (options.stdin) chunks = options.stdin();
    else throw new FileProblem("reading stdin is not available here");
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    return { ok: false, errors: [describeFileProblem(label, error)], invalidRows: 0 };
  }
  const read = format === "csv" ? readCsv : format === "json" ? readJsonArray : readJsonl;
  const progress = options.progress ? createProgressLine(options.progress, undefined, undefined, size) : null;
  let bytesRead = 0;
  try {
    return await importRecords(store, {
      organisationId: options.organisationId,
      kind: options.kind,
      label,
      records: read(
        progress
          ? countingBytes(chunks, (n) => {
              bytesRead += n;
            })
          : chunks,
      ),
      format,
      now: options.now,
      onProgress: progress ? (rows) => progress.update(rows, bytesRead) : undefined,
      dryRun: options.dryRun,
    });
  } finally {
    progress?.done();
  }
}
