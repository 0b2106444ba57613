/**
 * Reading leave (docs/api.md, "GET /v1/leave-requests"): a page of the annual-leave
 * bookings that overlap a date range, in ascending (start_date, id) order, in their v1
 * JSON shape.
 */
import type { LeaveBookingJson } from "./api-schemas.ts";
import type { HmacSha256 } from "./cursor-codec.ts";
import { readListPage, type KeysetPosition, type Page } from "./keyset-page.ts";
import type { RawJson } from "./raw-json.ts";
import { leaveBookingJson } from "./records.ts";
import type { LeaveParams } from "./request-params.ts";
import { checkSyncAfterRestriction, restrictedBinding, restrictedReadsOf } from "./restricted-reads.ts";
import type { CredentialRestriction } from "./restriction.ts";
import type { LeavePageQuery, Store } from "./store.ts";

/**
 * One page of the organisation's overlapping leave as its JSON body; throws 400 `cursor`
 * for a cursor made for other filters. Every filter of the request, the range included,
 * goes to the cursor's binding and to the store as it is. With a `restriction`, only the
 * bookings of the employees it selects (docs/api.md, "Restricted credentials").
 */
export async function listLeavePage(
  store: Pick<Store, "installationKey" | "listOverlappingLeave" | "listText" | "restricted">,
  organisationId: string,
  params: LeaveParams,
  mac?: HmacSha256,
  restriction?: CredentialRestriction,
): Promise<RawJson<Page<LeaveBookingJson>>> {
  const { limit, cursor, ...filters } = params;
  if (restriction) checkSyncAfterRestriction(restriction, filters.updated_since);
  const restricted = restriction && restrictedReadsOf(store);
  const query = (after: KeysetPosition<"string"> | undefined, n: number): LeavePageQuery => ({
    organisationId,
    filters,
    after: after && { startDate: after[0], id: after[1] },
    limit: n,
  });
  return readListPage(
    store,
    {
      binding: { organisationId, endpoint: "leave-requests", filters: restrictedBinding(filters, restriction) },
      cursor,
      limit,
      sortKey: "string",
      fetch: (after, n) => (restricted ? restricted.listOverlappingLeave(query(after, n), restriction) : store.listOverlappingLeave(query(after, n))),
      position: (booking) => [booking.start_date, booking.id],
      shape: leaveBookingJson,
      mac,
    },
    // Called on the store, not taken off it: a host's store may be a class. A restriction's
    // fields are an employee's, so a booking's text is the same for every credential.
    restricted
      ? restricted.listText
        ? (after, n) => restricted.listText!({ list: "leave-requests", query: query(after, n) }, restriction)
        : undefined
      : store.listText
        ? (after, n) => store.listText!({ list: "leave-requests", query: query(after, n) })
        : undefined,
  );
}
