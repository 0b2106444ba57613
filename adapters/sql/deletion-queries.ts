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
        // The instants asked for as the stamps stored, and the stamps read as shown (published-stamps.ts).
        const org = q.organisationId;
        const after = q.after && { deletedAt: await ctx.stamps.storedOf(org, q.after.deletedAt), id: q.after.id };
        // A position at or after deletedSince implies it (the stored bound is never later): no lookup.
        const deletedSince = after !== undefined && after.deletedAt >= q.deletedSince ? q.deletedSince : await ctx.stamps.storedSince(org, q.deletedSince);
        // One range bound only: given both, SQLite's planner seeks to deletedSince and filters
        // its way to the position, so a deep page cost grew with the tombstones before it
        // (bench/deletion-feed.ts). The position at or after deletedSince implies it, and
        // one before it is implied by it.
        const cursorBinds = after !== undefined && after.deletedAt >= deletedSince;
        const rows = await ctx.replica.rows(deletionPageQuery, {
          organisationId: org,
          resource: q.resource,
          deletedSince: cursorBinds ? undefined : deletedSince,
          afterDeletedAt: cursorBinds ? after?.deletedAt : undefined,
          afterId: cursorBinds ? after?.id : undefined,
          limit: q.limit,
        });
        const shown = await ctx.stamps.shownAll(
          org,
          rows.map((r) => instant(r.deleted_at)),
        );
        return rows.map((r) => ({ id: r.id, deleted_at: shown(instant(r.deleted_at)) }));
      }),
  };
}
