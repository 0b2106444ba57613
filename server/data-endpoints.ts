/**
 * The four data endpoints. Each one runs after authentication and scope have passed:
 * parse parameters (400), then read (404), then shape the exact v1 JSON.
 */
import { invalidParam, notFound } from "../lib/errors.ts";
import { decodeCursor, encodeCursor, type CursorBinding } from "../lib/cursor-codec.ts";
import { employeeJson, leaveBookingJson } from "../lib/records.ts";
import { listHolidays } from "../lib/holidays.ts";
import type { PublicHolidaySource } from "../lib/public-holidays.ts";
import {
  parseEmployeeId,
  parseEmployeesQuery,
  parseHolidaysQuery,
  parseLeaveQuery,
  readQuery,
} from "../lib/request-params.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import { json } from "./responses.ts";

export interface DataContext {
  store: Store;
  grant: AccessTokenGrant;
  url: URL;
  publicHolidays: PublicHolidaySource;
}

function badCursor(): never {
  throw invalidParam("cursor", "The cursor is not valid for this endpoint and these filters; pass next_cursor unchanged, with the same filters.");
}

/** Fetches one more record than asked so that `has_more` is exact, and signs the position of the last one returned. */
async function page<T>(
  key: Uint8Array,
  binding: CursorBinding,
  limit: number,
  fetch: (limit: number) => Promise<T[]>,
  position: (last: T) => (string | number)[],
  shape: (record: T) => unknown,
): Promise<Response> {
  const rows = await fetch(limit + 1);
  const hasMore = rows.length > limit;
  const records = hasMore ? rows.slice(0, limit) : rows;
  const next = hasMore ? encodeCursor(key, binding, position(records[records.length - 1]!)) : null;
  return json(200, { has_more: hasMore, next_cursor: next, data: records.map(shape) });
}

export async function listEmployeesEndpoint({ store, grant, url }: DataContext): Promise<Response> {
  const q = parseEmployeesQuery(url);
  const binding: CursorBinding = {
    organisationId: grant.organisation_id,
    endpoint: "employees",
    filters: { status: q.status, updated_since: q.updated_since },
  };
  const key = await store.installationKey();
  let after: { updatedAt: number; id: string } | undefined;
  if (q.cursor !== undefined) {
    const pos = decodeCursor(key, binding, q.cursor);
    if (!pos || typeof pos[0] !== "number" || typeof pos[1] !== "string") badCursor();
    after = { updatedAt: pos[0], id: pos[1] };
  }
  return page(
    key,
    binding,
    q.limit,
    (limit) =>
      store.listEmployees({
        organisationId: grant.organisation_id,
        status: q.status,
        updatedSince: q.updated_since,
        after,
        limit,
      }),
    (last) => [last.updated_at, last.id],
    employeeJson,
  );
}

export async function getEmployeeEndpoint({ store, grant, url }: DataContext, rawId: string): Promise<Response> {
  // This endpoint takes no query parameters; any is refused like a typo on the lists
  // (docs/api.md, "Query parameters").
  readQuery(url, []);
  const id = parseEmployeeId(rawId);
  const employee = await store.findEmployee(grant.organisation_id, id);
  if (!employee) throw notFound("No employee with this id.");
  return json(200, { data: employeeJson(employee) });
}

export async function listLeaveEndpoint({ store, grant, url }: DataContext): Promise<Response> {
  const q = parseLeaveQuery(url);
  const binding: CursorBinding = {
    organisationId: grant.organisation_id,
    endpoint: "leave-requests",
    filters: { from: q.from, to: q.to, status: q.status, employee_id: q.employee_id, updated_since: q.updated_since },
  };
  const key = await store.installationKey();
  let after: { startDate: string; id: string } | undefined;
  if (q.cursor !== undefined) {
    const pos = decodeCursor(key, binding, q.cursor);
    if (!pos || typeof pos[0] !== "string" || typeof pos[1] !== "string") badCursor();
    after = { startDate: pos[0], id: pos[1] };
  }
  return page(
    key,
    binding,
    q.limit,
    (limit) =>
      store.listOverlappingLeave({
        organisationId: grant.organisation_id,
        from: q.from,
        to: q.to,
        status: q.status,
        employeeId: q.employee_id,
        updatedSince: q.updated_since,
        after,
        limit,
      }),
    (last) => [last.start_date, last.id],
    leaveBookingJson,
  );
}

export async function listHolidaysEndpoint({ store, grant, url, publicHolidays }: DataContext): Promise<Response> {
  const q = parseHolidaysQuery(url);
  const data = await listHolidays(store, grant.organisation_id, q, publicHolidays);
  return json(200, { data });
}
