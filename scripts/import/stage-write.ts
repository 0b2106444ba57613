/**
 * Stage 5, write: valid rows into the store, inside the import's one transaction
 * (`runImport`; a dry run's is rolled back whatever it found). Rows are checked against
 * the store and written in batches (apply-rows.ts); with `--prune`, the live records the
 * file left out are deleted last (prune.ts), only when no row had a problem. The first
 * rows are kept as they would be stored, for the dry run's report.
 */
import { createApplier } from "./apply-rows.ts";
import type { ImportContext, PendingRow } from "./import-context.ts";
import type { ImportPlan } from "./import-plan.ts";
import type { ImportRow } from "./normalise-records.ts";
import { createPruner, type PruneResult } from "./prune.ts";

export const BATCH_SIZE = 500;

/** How many rows the dry run shows as they would be stored. */
const SAMPLE_ROWS = 3;

export interface WriteStage {
  /** Before the first row: what a prune counts the file against. */
  start(): Promise<void>;
  add(line: number, row: ImportRow): Promise<void>;
  /** After the last row: the last batch, what the writers finish, and the prune unless some row had a problem (`failed`). */
  finish(rows: number, failed: boolean): Promise<PruneResult | null>;
  /** The first rows as they would be stored (with `describe`). */
  readonly sample: object[];
}

export function createWriteStage(plan: Pick<ImportPlan, "kind" | "prune" | "describe">, ctx: ImportContext): WriteStage {
  const applier = createApplier(plan.kind, ctx);
  const pruner = plan.prune ? createPruner(plan.kind, plan.prune, ctx) : null;
  const sample: object[] = [];
  let batch: PendingRow[] = [];
  return {
    sample,
    start: async () => pruner?.start(),
    async add(line, row) {
      pruner?.note(row);
      if (plan.describe && sample.length < SAMPLE_ROWS) sample.push(storedForm(row));
      batch.push({ line, row });
      if (batch.length < BATCH_SIZE) return;
      await applier.applyBatch(batch);
      batch = [];
    },
    async finish(rows, failed) {
      await applier.applyBatch(batch);
      batch = [];
      await applier.finish();
      return pruner !== null && !failed && !ctx.failed() ? pruner.finish(rows) : null;
    },
  };
}

/** A valid row as the import would store it: what `--dry-run` shows of the first rows. */
export function storedForm(row: ImportRow): object {
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
