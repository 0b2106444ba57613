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
  deletedSince: number;
  afterDeletedAt: number | undefined;
  afterId: string | undefined;
  limit: number;
}

const deletionPageQuery = defineQuery<DeletionPageValues>()((s, db) => {
  let query = db
    .selectFrom("deletions")
    .select(["id", "deleted_at"])
    .where("organisation_id", "=", s.organisationId)
    .where("resource", "=", s.resource)
    .where("deleted_at", ">=", s.deletedSince);
  const { afterDeletedAt, afterId } = s;
  if (afterDeletedAt && afterId) query = query.where((eb) => eb(eb.refTuple("deleted_at", "id"), ">", eb.tuple(afterDeletedAt, afterId)));
  return query.orderBy("deleted_at").orderBy("id").limit(s.limit);
});

export function deletionQueries(ctx: SqlContext): Pick<Store, "listDeletions"> {
  return {
    listDeletions: (q) =>
      ctx.guard(async (): Promise<DeletionRecord[]> => {
        const rows = await ctx.replica.rows(deletionPageQuery, {
          organisationId: q.organisationId,
          resource: q.resource,
          deletedSince: q.deletedSince,
          afterDeletedAt: q.after?.deletedAt,
          afterId: q.after?.id,
          limit: q.limit,
        });
        return rows.map((r) => ({ id: r.id, deleted_at: instant(r.deleted_at) }));
      }),
  };
}
