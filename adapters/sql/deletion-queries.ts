/**
 * The deletions feed in the SQL store: a keyset page of the tombstones the import writer
 * keeps (sql-import-writer.ts, deletion-writes.ts), one ordered scan of the
 * `deletions_page` index (migration 0004), on the reader like the other data reads.
 */
import type { DeletionRecord, Store } from "../../lib/store.ts";
import { defineQuery } from "./compiled-queries.ts";
import { instant } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";

interface DeletionPageValues {
  organisationId: string;
  resource: string;
  deletedSince: number | undefined;
  afterDeletedAt: number | undefined;
  afterId: string | undefined;
  limit: number;
}

const deletionPageQuery = defineQuery<DeletionPageValues>()((s, db) => {
  let query = db.selectFrom("deletions").select(["id", "deleted_at"]).where("organisation_id", "=", s.organisationId).where("resource", "=", s.resource);
  if (s.deletedSince) query = query.where("deleted_at", ">=", s.deletedSince);
  const { afterDeletedAt, afterId } = s;
  if (afterDeletedAt && afterId) query = query.where((eb) => eb(eb.refTuple("deleted_at", "id"), ">", eb.tuple(afterDeletedAt, afterId)));
  return query.orderBy("deleted_at").orderBy("id").limit(s.limit);
});

export function deletionQueries(ctx: SqlContext): Pick<Store, "listDeletions"> {
  return {
    listDeletions: (q) =>
      ctx.guard(async (): Promise<DeletionRecord[]> => {
        // One range bound only: given both, SQLite's planner seeks to deletedSince and filters
        // its way to the position, so a deep page cost grew with the tombstones before it
        // (bench/deletion-feed.ts). The position at or after deletedSince implies it, and
        // one before it is implied by it.
        const cursorBinds = q.after !== undefined && q.after.deletedAt >= q.deletedSince;
        const rows = await ctx.replica.rows(deletionPageQuery, {
          organisationId: q.organisationId,
          resource: q.resource,
          deletedSince: cursorBinds ? undefined : q.deletedSince,
          afterDeletedAt: cursorBinds ? q.after?.deletedAt : undefined,
          afterId: cursorBinds ? q.after?.id : undefined,
          limit: q.limit,
        });
        return rows.map((r) => ({ id: r.id, deleted_at: instant(r.deleted_at) }));
      }),
  };
}
