/**
 * `import --prune` (docs/cli.md, "Full exports: --prune"): the file is the
 * complete set of its kind, so the organisation's live records it leaves out are
 * deleted, in the same transaction as the rest of the import. For leave the set is the
 * bookings starting within `--range FROM,TO`; bookings outside it are imported as usual
 * and prune nothing.
 *
 * Two guards, since a wrong file would otherwise empty the organisation: a file with no
 * rows is never a complete set, and deleting more than `maxPercent` of the records that
 * were live before the import (25% unless `--prune-max` says) is refused, saying how many
 * it would have deleted: those it leaves out and those its rows mark `deleted: true`
 * alike (for leave, every booking a row deletes counts, within the range or not). Either
 * refusal fails the import as a whole.
 *
 * The ids the file names are remembered in a UuidSet (16 bytes each); the store's live
 * ids are then read in pages, in id order, twice: once to count what is absent, and once,
 * when that is allowed, to delete it page by page.
 */
import type { PruneScope, RecordLabel } from "../../lib/admin-store.ts";
import type { ImportContext } from "./import-context.ts";
import type { ImportKind, ImportRow } from "./normalise-records.ts";
import { UuidSet } from "./uuid-set.ts";

export const DEFAULT_PRUNE_MAX_PERCENT = 25;
/** How many of the records a prune deletes it names (docs/cli.md: a dry run lists who would go). */
export const PRUNE_LISTED = 100;
const PAGE = 1000;

export interface PruneOptions {
  /** The most, in percent of the live records, a prune may delete. */
  maxPercent: number;
  /** Leave only: the bookings whose start date is within from..to (inclusive) are the set. */
  range?: { from: string; to: string };
}

export type PruneResult = { ok: true; pruned: number; listed: RecordLabel[] } | { ok: false; problem: string };

export interface Pruner {
  /** Counts the live records before anything is written. */
  start(): Promise<void>;
  /** A valid row of the file: the record it names is in the set. */
  note(row: ImportRow): void;
  /**
   * Deletes the live records the file left out, after its last row was written; returns
   * how many, and the first PRUNE_LISTED of them as a person recognises them, or why it
   * refuses (nothing deleted: the import then keeps nothing).
   */
  finish(rows: number): Promise<PruneResult>;
}

export function createPruner(kind: ImportKind, options: PruneOptions, ctx: ImportContext): Pruner {
  if (kind === "holidays") throw new Error("--prune takes employees or leave");
  if (kind === "leave" && options.range === undefined) throw new Error("--prune of leave needs a range");
  const scope: PruneScope = kind === "employees" ? { record: "employee" } : { record: "booking", ...options.range! };
  const range = kind === "leave" ? options.range! : null;
  const { writer, organisationId: org } = ctx;
  const seen = new UuidSet();
  let before = 0;

  /** Each page of live ids the file left out, read in id order; `act` may delete them. */
  const eachAbsentPage = async (act: (ids: string[]) => Promise<void>) => {
    let after: string | null = null;
    for (;;) {
      const page = await writer.liveIds(org, scope, after, PAGE);
      if (page.length === 0) return;
      await act(page.filter((id) => !seen.has(id)));
      after = page[page.length - 1]!;
    }
  };

  return {
    async start() {
      before = await writer.countLive(org, scope);
    },
    note(row) {
      if (row.type === "employee") seen.add(row.employee.id);
      else if (row.type === "booking" && range !== null && row.booking.start_date >= range.from && row.booking.start_date <= range.to) seen.add(row.booking.id);
    },
    async finish(rows) {
      const what = range === null ? "employees" : `bookings starting ${range.from} to ${range.to}`;
      if (rows === 0) return { ok: false, problem: "--prune: the file has no rows, and an empty file is never taken for the complete set" };
      let absent = 0;
      const first: string[] = [];
      await eachAbsentPage(async (ids) => {
        absent += ids.length;
        for (const id of ids) if (first.length < PRUNE_LISTED) first.push(id);
      });
      // Rows marked "deleted": true count as much as records left out: a file of one live
      // row and seven deletions empties the organisation just the same. Their deletes
      // were written already (the transaction rolls them back on a refusal).
      const marked = ctx.counts.deleted;
      const deleting = absent + marked;
      // Out of `before`; a file may delete what it created itself, so never past 100%.
      if (deleting * 100 > options.maxPercent * Math.max(before, deleting)) {
        const percent = Math.ceil((deleting * 100) / Math.max(before, deleting));
        const n = (count: number) => count.toLocaleString("en");
        const which =
          marked === 0
            ? "those the file leaves out"
            : absent === 0
              ? 'those the file marks "deleted": true'
              : `${n(absent)} the file leaves out and ${n(marked)} it marks "deleted": true`;
        return {
          ok: false,
          problem:
            `--prune would delete ${n(deleting)} of the ${n(before)} live ${what} (${percent}%), ${which}; ` +
            `it deletes at most ${options.maxPercent}% unless --prune-max allows more (--prune-max ${percent})`,
        };
      }
      // Named before they go: once deleted, nothing of them is left to name.
      const listed = await writer.describeRecords(org, kind === "employees" ? "employee" : "booking", first);
      let pruned = 0;
      await eachAbsentPage(async (ids) => {
        if (ids.length === 0) return;
        const counts = kind === "employees" ? await writer.deleteEmployees(org, ids, ctx.now) : await writer.deleteLeaveBookings(org, ids, ctx.now);
        pruned += counts.deleted;
      });
      return { ok: true, pruned, listed };
    },
  };
}
