/**
 * Reading the deletions feed (docs/api.md, "GET /v1/deletions"): a page of the tombstones
 * of one resource, records its list endpoint no longer returns, in ascending
 * (deleted_at, id) order, so that an incremental sync learns what disappeared as it
 * learns what changed.
 */
import type { DeletionJson } from "./api-schemas.ts";
import { syncExpired } from "./errors.ts";
import { formatInstant } from "./dates.ts";
import type { HmacSha256 } from "./cursor-codec.ts";
import { readListPage, type Page } from "./keyset-page.ts";
import type { RawJson } from "./raw-json.ts";
import type { DeletionsParams } from "./request-params.ts";
import type { DeletedResource, DeletionRecord, Store } from "./store.ts";
import { checkSyncAfterRestriction, restrictedBinding, restrictedReadsOf } from "./restricted-reads.ts";
import { selectsSome, type CredentialRestriction } from "./restriction.ts";

/** How long a tombstone is kept, and so how far back the feed answers, unless the server is told otherwise. */
export const DEFAULT_DELETION_RETENTION_DAYS = 90;

const DAY_MS = 86_400_000;

/**
 * How much older than the feed's horizon a tombstone must be before it is swept: longer
 * than any request between its 410 check and its read, and than the clocks of the
 * instances sharing a database differ.
 */
const SWEEP_GRACE_MS = DAY_MS;

/** The oldest `updated_since` the feed answers at `now`; an older one is 410 `sync_expired`. */
export function deletionFeedHorizon(now: number, retentionDays: number): number {
  return now - retentionDays * DAY_MS;
}

/**
 * What `Store.sweepDeletions` may take at `now`: tombstones older than this, a day before
 * the feed's horizon, which no request the feed accepts at `now` or later can ask for.
 */
export function deletionSweepBefore(now: number, retentionDays: number): number {
  return deletionFeedHorizon(now, retentionDays) - SWEEP_GRACE_MS;
}

/** Throws 410 `sync_expired` for an `updated_since` older than the feed answers at `now`. */
export function checkDeletionFeedHorizon(updatedSince: number, now: number, retentionDays: number): void {
  if (updatedSince < deletionFeedHorizon(now, retentionDays)) throw syncExpired(retentionDays);
}

export interface DeletionFeedOptions {
  /** The request's instant, epoch milliseconds. */
  now: number;
  /** Whole days tombstones are kept; an `updated_since` before now − this is 410 `sync_expired`. */
  retentionDays: number;
  /** How cursors are signed (createHandler's `hmacSha256`); pure JavaScript by default. */
  mac?: HmacSha256;
  /** The client's restriction, when it has one (docs/api.md, "Restricted credentials"). */
  restriction?: CredentialRestriction;
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
  store: Pick<Store, "installationKey" | "listDeletions" | "restricted">,
  organisationId: string,
  params: DeletionsParams,
  options: DeletionFeedOptions,
): Promise<RawJson<Page<DeletionJson>>> {
  const { limit, cursor, ...filters } = params;
  const { resource, updated_since } = filters;
  checkDeletionFeedHorizon(updated_since, options.now, options.retentionDays);
  const { restriction } = options;
  if (restriction) checkSyncAfterRestriction(restriction, updated_since);
  // A restriction of fields alone reads everyone: the organisation's feed is its own.
  const restricted = restriction && selectsSome(restriction) ? restrictedReadsOf(store) : undefined;
  return readListPage(
    store,
    {
      binding: { organisationId, endpoint: "deletions", filters: restrictedBinding(filters, restriction) },
      cursor,
      limit,
      sortKey: "number",
      fetch: (after, limit) => {
        const query = { organisationId, resource, deletedSince: updated_since, after: after && { deletedAt: after[0], id: after[1] }, limit };
        return restricted ? restricted.listDeletions(query, restriction!) : store.listDeletions(query);
      },
      position: (d) => [d.deleted_at, d.id],
      shape: deletionJson(resource),
      mac: options.mac,
    },
    undefined,
  );
}
