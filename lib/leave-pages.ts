/**
 * Reading leave (docs/api.md, "GET /v1/leave-requests"): a page of the annual-leave
 * bookings that overlap a date range, in ascending (start_date, id) order, in their v1
 * JSON shape.
 */
import type { LeaveBookingJson } from "./api-schemas.ts";
import { readKeysetPage, type Page } from "./keyset-page.ts";
import { leaveBookingJson } from "./records.ts";
import type { LeaveParams } from "./request-params.ts";
import type { Store } from "./store.ts";

/** One page of the organisation's overlapping leave; throws 400 `cursor` for a cursor made for other filters. */
export function listLeavePage(
  store: Pick<Store, "installationKey" | "listOverlappingLeave">,
  organisationId: string,
  params: LeaveParams,
): Promise<Page<LeaveBookingJson>> {
  const { from, to, status, employee_id, updated_since } = params;
  return readKeysetPage(store, {
    binding: { organisationId, endpoint: "leave-requests", filters: { from, to, status, employee_id, updated_since } },
    cursor: params.cursor,
    limit: params.limit,
    sortKey: "string",
    fetch: (after, limit) =>
      store.listOverlappingLeave({
        organisationId,
        from,
        to,
        status,
        employeeId: employee_id,
        updatedSince: updated_since,
        after: after && { startDate: after[0], id: after[1] },
        limit,
      }),
    position: (booking) => [booking.start_date, booking.id],
    shape: leaveBookingJson,
  });
}
