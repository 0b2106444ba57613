/**
 * Reading leave (docs/api.md, "GET /v1/leave-requests"): a page of the annual-leave
 * bookings that overlap a date range, in ascending (start_date, id) order, in their v1
 * JSON shape.
 */
import type { LeaveBookingJson } from "./api-schemas.ts";
import type { HmacSha256 } from "./cursor-codec.ts";
import { readListPage, type KeysetPosition, type Page } from "./keyset-page.ts";
import type { PageText } from "./record-text.ts";
import { leaveBookingJson } from "./records.ts";
import type { LeaveParams } from "./request-params.ts";
import type { LeavePageQuery, Store } from "./store.ts";

/**
 * One page of the organisation's overlapping leave; throws 400 `cursor` for a cursor made
 * for other filters. A store that keeps records as JSON text answers it as text (the same
 * bytes once serialized).
 */
export async function listLeavePage(
  store: Pick<Store, "installationKey" | "listOverlappingLeave" | "listOverlappingLeaveText">,
  organisationId: string,
  params: LeaveParams,
  mac?: HmacSha256,
): Promise<Page<LeaveBookingJson> | PageText> {
  const { from, to, status, employee_id, updated_since, cursor, limit } = params;
  const binding = { organisationId, endpoint: "leave-requests", filters: { from, to, status, employee_id, updated_since } };
  const query = (after: KeysetPosition<"string"> | undefined, n: number): LeavePageQuery => ({
    organisationId,
    from,
    to,
    status,
    employeeId: employee_id,
    updatedSince: updated_since,
    after: after && { startDate: after[0], id: after[1] },
    limit: n,
  });
  return readListPage(
    store,
    {
      binding,
      cursor,
      limit,
      sortKey: "string",
      fetch: (after, n) => store.listOverlappingLeave(query(after, n)),
      position: (booking) => [booking.start_date, booking.id],
      shape: leaveBookingJson,
      mac,
    },
    // Called on the store, not taken off it: a host's store may be a class.
    store.listOverlappingLeaveText && ((after, n) => store.listOverlappingLeaveText!(query(after, n))),
  );
}
