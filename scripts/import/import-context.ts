/**
 * What the per-kind appliers share while one import runs inside its transaction: the
 * writer, the running counts, and how a row error is recorded. Once any error is
 * recorded, appliers keep checking rows (every bad row is reported) but write nothing
 * more, since the transaction will be rolled back anyway.
 */
import type { ImportWriter, WriteCounts } from "../../lib/admin-store.ts";
import type { ImportRow } from "./normalise-records.ts";

export interface PendingRow {
  line: number;
  row: ImportRow;
}

/** A public-holiday calendar-year the import set (docs/cli.md, "Holidays files"), for the summary. */
export interface PublicHolidayReplacement {
  calendar: string;
  year: number;
  /** The organisation's holidays for that calendar-year now: the file's; 0 when it went back to the shipped set. */
  holidays: number;
  /** How many the shipped set has for that calendar-year. */
  shipped: number;
  /** Shipped holidays whose date is no holiday of this organisation's set any more. */
  shipped_hidden: number;
}

export interface ImportContext {
  writer: ImportWriter;
  organisationId: string;
  now: number;
  counts: WriteCounts;
  /** Every public-holiday calendar-year the file sets, in the order first met. */
  publicHolidays: PublicHolidayReplacement[];
  /** The fields some updated record did not carry and kept as stored (DECISIONS §11, "Absent is not empty"), for the summary. */
  keptFields: Set<string>;
  fail: (line: number, field: string, problem: string) => void;
  /** Whether any row error was recorded so far. */
  failed: () => boolean;
}

/** Takes a batch of valid rows in file order; `finish` runs once after the last batch. */
export interface RowApplier {
  applyBatch(rows: PendingRow[]): Promise<void>;
  finish(): Promise<void>;
}

export const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

export function addCounts(total: WriteCounts, more: WriteCounts): void {
  total.created += more.created;
  total.updated += more.updated;
  total.unchanged += more.unchanged;
  total.deleted += more.deleted;
}

export type Op<T> = { upsert: T } | { delete: string };

/**
 * Writes upserts and deletes in runs of the same operation, in file order, so a record
 * deleted and then imported again (or the reverse) ends as the file's last row says.
 */
export async function writeRuns<T>(
  ops: Op<T>[],
  upsert: (rows: T[]) => Promise<WriteCounts>,
  remove: (ids: string[]) => Promise<WriteCounts>,
  counts: WriteCounts,
): Promise<void> {
  let i = 0;
  while (i < ops.length) {
    const deleting = "delete" in ops[i]!;
    let j = i;
    while (j < ops.length && "delete" in ops[j]! === deleting) j++;
    const run = ops.slice(i, j);
    if (deleting) addCounts(counts, await remove(run.map((op) => ("delete" in op ? op.delete : ""))));
    else addCounts(counts, await upsert(run.flatMap((op) => ("upsert" in op ? [op.upsert] : []))));
    i = j;
  }
}

/**
 * The record (an employee, a booking) as the import writes it: a field it did not carry takes the stored
 * value when the employee is stored (DECISIONS §11, "Absent is not empty"), and stays null
 * for a new one; each field so kept is noted in `kept` for the summary.
 */
export function keepingAbsent<R extends S, S extends object, K extends keyof S & keyof R>(
  record: R,
  absent: readonly K[],
  stored: S | undefined,
  kept: Set<string>,
): R {
  if (stored === undefined || absent.length === 0) return record;
  const merged = { ...record };
  for (const field of absent) {
    merged[field] = stored[field] as R[K];
    kept.add(String(field));
  }
  return merged;
}
