/**
 * `leaveapi import`: one file (or stdin) of one kind into one organisation, whole or not
 * at all (docs/cli.md, "Errors and transactions"), as one plan (import-plan.ts) run
 * through typed stages over rows-or-problems (README.md): read → decode → map →
 * validate → write. No stage throws to say what it found; a problem is a value, put into
 * words at the edge (problem-report.ts). The write stage runs in the store's one
 * transaction, which `keep` keeps only when no problem was found; a dry run is the same
 * pipeline in a transaction that is always rolled back.
 *
 * Memory stays flat for JSONL, CSV and JSON arrays alike; what is held for the whole file
 * is small or bounded: the leave types seen, public-holiday rows, the error lines, and
 * per employee the derived id and calendar facts. (The SQLite store also keeps a 16-byte
 * fingerprint per new booking it holds back for one sorted insert, a million at most:
 * adapters/sql/staged-inserts.ts.)
 */
import type { AdminStore } from "../../lib/admin-store.ts";
import { noCounts, type ImportContext, type PublicHolidayReplacement } from "./import-context.ts";
import { mapsRows, type ImportMap } from "./import-map.ts";
import { failure, fileFailure, success, type ImportOutcome } from "./import-outcome.ts";
import { planImport, type ImportPlan } from "./import-plan.ts";
import { importColumns, type ImportKind } from "./normalise-records.ts";
import { ProblemReport } from "./problem-report.ts";
import { createProgressLine } from "./progress.ts";
import type { PruneOptions } from "./prune.ts";
import type { ImportFormat, SourceRecord } from "./source.ts";
import { decodeRecords, decodeSource, type Decoded } from "./stage-decode.ts";
import { columnsRead, createMapStage, type MapStage } from "./stage-map.ts";
import { readSource } from "./stage-read.ts";
import { createValidateStage } from "./stage-validate.ts";
import { createWriteStage } from "./stage-write.ts";

export type { ImportKind } from "./normalise-records.ts";
export type { ImportFormat } from "./source.ts";
export type { PublicHolidayReplacement } from "./import-context.ts";
export type { ImportOutcome } from "./import-outcome.ts";
export { BATCH_SIZE } from "./stage-write.ts";
export const IMPORT_KINDS: readonly ImportKind[] = ["employees", "leave", "holidays"];

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

/** What the pipeline tells the person running it, beside its outcome. */
export interface ImportIo {
  /** Stdin's bytes, for the file `-`. */
  stdin?: () => AsyncIterable<Uint8Array>;
  /** Receives the progress line's raw text (with `\r`); pass it only when stderr is a terminal. */
  progress?: (text: string) => void;
  /** Told once when the import waits for another writer (AdminStore's `runImport`). */
  onWait?: (reason: string) => void;
}

/** Runs a plan: reads its file and imports it; all or nothing. */
export async function runPlannedImport(store: AdminStore, plan: ImportPlan, io: ImportIo = {}): Promise<ImportOutcome> {
  const read = await readSource(plan, io.stdin);
  if (!read.ok) return fileFailure(describeStop(plan.label, read.problem));
  const size = read.source.kind === "bytes" ? read.source.size : undefined;
  const progress = io.progress ? createProgressLine(io.progress, undefined, undefined, size) : null;
  let bytesRead = 0;
  const items = decodeSource(plan, read.source, {
    columnsRead: (names) => columnsRead(plan, names),
    knownColumns: new Set([...importColumns(plan.kind, true), ...Object.keys(plan.map.columns)]),
    onBytes: progress
      ? (n) => {
          bytesRead += n;
        }
      : undefined,
  });
  const outcome = await runPipeline(store, plan, items, { onWait: io.onWait, onProgress: progress ? (rows) => progress.update(rows, bytesRead) : undefined });
  progress?.done();
  return outcome;
}

interface PipelineIo {
  onWait?: (reason: string) => void;
  onProgress?: (rows: number) => void;
}

/** The stages after decoding, over `items`, inside the store's one transaction. */
async function runPipeline(store: AdminStore, plan: ImportPlan, items: AsyncIterable<Decoded>, io: PipelineIo): Promise<ImportOutcome> {
  const map = createMapStage(plan);
  const validate = createValidateStage(plan);
  const report = new ProblemReport({
    label: plan.label,
    mapped: mapsRows(plan.map),
    defaults: Object.keys(plan.map.defaults),
    describeField: map.describeField,
    columnOf: map.columnOf,
  });
  return store.runImport(
    async (writer) => {
      const publicHolidays: PublicHolidayReplacement[] = [];
      const keptFields = new Set<string>();
      const ctx: ImportContext = {
        writer,
        organisationId: plan.organisationId,
        now: plan.now,
        counts: noCounts(),
        publicHolidays,
        keptFields,
        // What the appliers find against the store (an unknown employee, a leave type that disagrees).
        fail: (line, field, problem) => report.add(line, { field, problem, code: "conflict" }),
        failed: () => report.count > 0,
      };
      const write = createWriteStage(plan, ctx);
      await write.start();
      const { rows, stop } = await eachRow(items, { label: plan.label, report, map, io }, async (line, record) => {
        const validated = validate(map.row(record));
        if (!validated.ok) for (const p of validated.problems) report.add(line, p);
        else await write.add(line, validated.row);
      });
      // Reading stopped at `stop`: what was read is not the file, so nothing is written or pruned.
      const pruned = stop === null ? await write.finish(rows, report.count > 0) : null;
      if (rows >= COLLECT_EVERY_ROWS) collectGarbage();
      const refused = pruned !== null && !pruned.ok ? `${plan.label}: ${pruned.problem}` : null;
      if (report.count > 0 || stop !== null || refused !== null) return failure(plan.label, report, stop ?? refused);
      return success({
        ok: true,
        rows,
        counts: ctx.counts,
        dryRun: plan.mode === "dry-run" ? true : undefined,
        publicHolidays,
        ...(pruned?.ok ? { pruned: pruned.pruned, prunedList: pruned.listed } : {}),
        kept: [...keptFields],
        ...(plan.describe ? { mapping: map.report(), sample: write.sample } : {}),
      });
    },
    // Any problem and the transaction is rolled back, by value: nothing of a file with a problem is kept.
    { dryRun: plan.mode === "dry-run", onWait: io.onWait, keep: (outcome) => outcome.ok },
  );
}

/**
 * Each decoded record to `onRecord`, a header to the map stage, a problem to the report;
 * returns how many rows were read and what stopped the reading, if anything did.
 */
async function eachRow(
  items: AsyncIterable<Decoded>,
  { label, report, map, io }: { label: string; report: ProblemReport; map: MapStage; io: PipelineIo },
  onRecord: (line: number, record: unknown) => Promise<void>,
): Promise<{ rows: number; stop: string | null }> {
  let rows = 0;
  for await (const item of items) {
    if (item.kind === "stop") return { rows, stop: describeStop(label, item.problem) };
    if (item.kind === "header") {
      const header = map.header(item.names);
      report.header(item.line, header.fields, header.problems, header.unread);
      continue;
    }
    if (item.kind === "problem" && item.of === "file") {
      report.addOfFile(item.line, item.problem);
      continue;
    }
    rows++;
    io.onProgress?.(rows);
    if (rows % COLLECT_EVERY_ROWS === 0) collectGarbage();
    if (item.kind === "problem") report.add(item.line, item.problem);
    else await onRecord(item.line, item.record);
  }
  return { rows, stop: null };
}

/** `FILE: problem`, or `FILE:LINE: problem` when the problem is at one line. */
function describeStop(label: string, problem: { message: string; line: number | null }): string {
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

/** Plans and runs the import of a file (or stdin); all or nothing. */
export async function importFile(store: AdminStore, options: ImportFileOptions): Promise<ImportOutcome> {
  const planned = planImport(options);
  if (!planned.ok) return fileFailure(planned.problem);
  return runPlannedImport(store, planned.plan, options);
}

export interface ImportRecordsOptions {
  organisationId: string;
  kind: ImportKind;
  /** How errors name the source. */
  label: string;
  records: AsyncIterable<SourceRecord> | Iterable<SourceRecord>;
  /** The records are CSV rows (cells are text): booleans and numbers are read from text. */
  format?: ImportFormat;
  now?: number;
  onProgress?: (rows: number) => void;
  dryRun?: boolean;
  map?: ImportMap;
  prune?: PruneOptions;
  describe?: boolean;
  onWait?: (reason: string) => void;
}

/** Imports already-read records (each with its line), from the decode stage on; all or nothing. */
export async function importRecords(store: AdminStore, options: ImportRecordsOptions): Promise<ImportOutcome> {
  const planned = planImport({ ...options, file: options.label, format: options.format ?? "jsonl" });
  if (!planned.ok) return fileFailure(planned.problem);
  const plan = { ...planned.plan, label: options.label };
  return runPipeline(store, plan, decodeRecords(options.records), options);
}
