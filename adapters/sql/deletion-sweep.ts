/**
 * Sweeping the deletions feed's tombstones once they are older than any `updated_since`
 * the feed still answers (lib/store.ts, `sweepDeletions`).
 */
import type { Store } from "../../lib/store.ts";
import type { SqlContext } from "./sql-context.ts";

export function deletionSweep(ctx: SqlContext): Pick<Store, "sweepDeletions"> {
  return {
    sweepDeletions: (before) =>
      ctx.guard(async () => {
        // Every organisation at once, so no index serves it (deletions_page leads with the
        // organisation): one scan an hour costs less than a second index that every
        // tombstone written by an import would also have to update.
        const result = await ctx.db.deleteFrom("deletions").where("deleted_at", "<", before).executeTakeFirst();
        // A restricted client's feed reads the exits as far back as the tombstones, and no further.
        await ctx.db.deleteFrom("selection_exits").where("until", "<", before).execute();
        return Number(result.numDeletedRows);
      }),
  };
}
