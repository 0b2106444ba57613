/**
 * Reading the deletions feed (docs/api.md, "GET /v1/deletions"): a page of the tombstones
 * of one resource, records its list endpoint no longer returns, in ascending
 * (deleted_at, id) order, so that an incremental sync learns what disappeared as it
 * learns what changed.
 */
import type { DeletionJson } from "./api-schemas.ts";
import { syncExpired } from "./errors.ts";
import { formatInstant } from "./dates.ts";
import { readKeysetPage, type Page } from "./keyset-page.ts";
import type { DeletionsParams } from "./request-params.ts";
import type { DeletedResource, DeletionRecord, Store } from "./store.ts";

/** How long a tombstone is kept, and so how far back the feed answers, unless the server is told otherwise. */
export const DEFAULT_DELETION_RETENTION_DAYS = 90;

const DAY_MS = 86_400_000;

export interface DeletionFeedOptions {
  /** The request's instant, epoch milliseconds. */
  now: number;
  /** Whole days tombstones are kept; an `updated_since` before now − this is 410 `sync_expired`. */
  retentionDays: number;
}

const deletionJson =
  (resource: DeletedResource) =>
  (d: DeletionRecord): DeletionJson => ({ resource, id: d.id, deleted_at: formatInstant(d.deleted_at) });

/**
 * One page of the organisation's tombstones of `params.resource`. Throws 410 `sync_expired`
 * for an `updated_since` older than the tombstones kept, and 400 `cursor` for a cursor made
 * for other filters.
 */
export function listDeletionPage(
  store: Pick<Store, "installationKey" | "listDeletions">,
  organisationId: string,
  params: DeletionsParams,
  options: DeletionFeedOptions,
): Promise<Page<DeletionJson>> {
  const { resource, updated_since } = params;
  if (updated_since < options.now - options.retentionDays * DAY_MS) throw syncExpired(options.retentionDays);
  return readKeysetPage(store, {
    binding: { organisationId, endpoint: "deletions", filters: { resource, updated_since } },
    cursor: params.cursor,
    limit: params.limit,
    sortKey: "number",
    fetch: (after, limit) =>
      store.listDeletions({ organisationId, resource, deletedSince: updated_since, after: after && { deletedAt: after[0], id: after[1] }, limit }),
    position: (d) => [d.deleted_at, d.id],
    shape: deletionJson(resource),
  });
}
