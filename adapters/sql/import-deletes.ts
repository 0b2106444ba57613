/**
 * The deletions of an import, and what `--prune` compares the file with
 * (scripts/import/prune.ts), for the SQL import writer (sql-import-writer.ts), inside its
 * transaction.
 * An employee or booking is deleted outright, an employee's bookings with them (docs/api.md,
 * "Personal data": a deleted record keeps only its id, organisation and deletion instant, which its
 * tombstone holds); the tombstones are written first, while what was listed can still be
 * seen (deletion-writes.ts). A closure day, no one's personal data, is marked deleted.
 */
import type { Kysely } from "kysely";
import type { PruneScope, WriteCounts } from "../../lib/admin-store.ts";
import { DeletionWrites } from "./deletion-writes.ts";
import type { Tables } from "./tables.ts";

const BATCH = 400;

function batchesOf(ids: string[]): string[][] {
  const unique = [...new Set(ids)];
  const out: string[][] = [];
  for (let i = 0; i < unique.length; i += BATCH) out.push(unique.slice(i, i + BATCH));
  return out;
}

/** Counts of one batch: `n` of `size` were there to delete, the rest were not. */
function counted(total: WriteCounts, n: number, size: number): void {
  total.deleted += n;
  total.unchanged += size - n;
}

const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

export async function deleteEmployeesOutright(db: Kysely<Tables>, organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
  const deletions = new DeletionWrites(db, organisationId);
  const counts = noCounts();
  for (const batch of batchesOf(ids)) {
    await deletions.hidingEmployees(batch, now);
    await db.deleteFrom("leave_bookings").where("organisation_id", "=", organisationId).where("employee_id", "in", batch).execute();
    counted(counts, await deleteRows(db, "employees", organisationId, batch), batch.length);
  }
  return counts;
}

export async function deleteBookingsOutright(db: Kysely<Tables>, organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
  const deletions = new DeletionWrites(db, organisationId);
  const counts = noCounts();
  for (const batch of batchesOf(ids)) {
    await deletions.hidingBookings(batch, now);
    counted(counts, await deleteRows(db, "leave_bookings", organisationId, batch), batch.length);
  }
  return counts;
}

/** Deletes the rows `ids` of `table` outright; returns how many there were. */
async function deleteRows(db: Kysely<Tables>, table: "employees" | "leave_bookings", organisationId: string, ids: string[]): Promise<number> {
  const result = await db.deleteFrom(table).where("organisation_id", "=", organisationId).where("id", "in", ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Marks closure days `ids` deleted; unknown and already deleted ones count as unchanged. */
export async function softDeleteClosures(db: Kysely<Tables>, organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
  const counts = noCounts();
  for (const batch of batchesOf(ids)) {
    const result = await db
      .updateTable("closure_days")
      .set({ deleted_at: now, updated_at: now })
      .where("organisation_id", "=", organisationId)
      .where("id", "in", batch)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    counted(counts, Number(result.numUpdatedRows), batch.length);
  }
  return counts;
}

/** How many live records `scope` holds. */
export async function countLiveRecords(db: Kysely<Tables>, organisationId: string, scope: PruneScope): Promise<number> {
  const row = await liveQuery(db, organisationId, scope)
    .select((eb) => eb.fn.countAll<number | string | bigint>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids of `scope`'s live records after `after`, in ascending order, at most `limit`. */
export async function liveRecordIds(db: Kysely<Tables>, organisationId: string, scope: PruneScope, after: string | null, limit: number): Promise<string[]> {
  let query = liveQuery(db, organisationId, scope).select("id").orderBy("id").limit(limit);
  if (after !== null) query = query.where("id", ">", after);
  return (await query.execute()).map((r) => r.id);
}

function liveQuery(db: Kysely<Tables>, organisationId: string, scope: PruneScope) {
  // Both tables have the columns used here; one builder keeps one type.
  const table = (scope.record === "employee" ? "employees" : "leave_bookings") as "leave_bookings";
  let query = db.selectFrom(table).where("organisation_id", "=", organisationId).where("deleted_at", "is", null);
  if (scope.record === "booking") query = query.where("start_date", ">=", scope.from).where("start_date", "<=", scope.to);
  return query;
}
