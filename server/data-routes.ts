/**
 * The data endpoints, one entry each: path, scope, the operation in lib/ it calls, and its
 * OpenAPI operation. A new endpoint is one more entry here (ARCHITECTURE.md, "How to add
 * an endpoint"); the router, openapi.json and the tests' route list follow.
 */
import type { Scope } from "../lib/scopes.ts";
import { RawJson } from "../lib/raw-json.ts";
import { getEmployee, listEmployeePage } from "../lib/employee-pages.ts";
import { listLeavePage } from "../lib/leave-pages.ts";
import { checkDeletionFeedHorizon, listDeletionPage } from "../lib/deletion-pages.ts";
import { listHolidays } from "../lib/holidays.ts";
import {
  deletionsQuerySchema,
  employeeIdPathSchema,
  employeesQuerySchema,
  holidaysQuerySchema,
  leaveQuerySchema,
  parseDeletionsQuery,
  parseEmployeeId,
  parseEmployeesQuery,
  parseHolidaysQuery,
  parseLeaveQuery,
  readQuery,
} from "../lib/request-params.ts";
import { BOOKING_EXAMPLE, EMPLOYEE_EXAMPLE, HOLIDAYS_EXAMPLE } from "./openapi-examples.ts";
import { dataOperation, json, requestId, response, type DataOperation } from "./openapi-operations.ts";
import { pathParameter, queryParameters } from "./openapi-schemas.ts";
import type { DataRoute } from "./route-types.ts";

/** A table entry: the route with its own part of the OpenAPI operation (`doc`); the rest of the operation follows from the route. */
export function dataRoute(entry: Omit<DataRoute, "kind" | "operation"> & { doc: DataOperation }): DataRoute {
  const { doc, ...route } = entry;
  return { kind: "data", ...route, operation: dataOperation(doc, route.scopes, route.needs !== undefined) };
}

/** A list's 410 for a restricted credential whose restriction changed after `updated_since` (docs/api.md, "Restricted credentials"). */
const restrictionChanged = {
  "410": {
    description: "`sync_expired`: the credential is restricted and its restriction changed after `updated_since`. Do a full read, without `updated_since`.",
    headers: requestId,
    content: json("Error", {
      error: "sync_expired",
      error_description:
        "This credential's restriction changed after 'updated_since'; do a full read (without updated_since) and replace your copy, then sync from its start.",
      param: "updated_since",
    }),
  },
};

export const DATA_ROUTES: readonly DataRoute[] = [
  dataRoute({
    path: "/v1/employees",
    scopes: ["employees:read"],
    prepare: (call, { store, mac }) => {
      const params = parseEmployeesQuery(call.url);
      return () => listEmployeePage(store, call.organisationId, params, mac, call.restriction);
    },
    doc: {
      operationId: "listEmployees",
      tags: ["Employees"],
      summary: "List current and former employees",
      description:
        "Ordered by `updated_at`, then `id`. Deleted employees are never returned. A restricted credential lists only the employees it selects, " +
        "with the fields it may not read as null.",
      parameters: queryParameters(employeesQuerySchema, "GET /v1/employees"),
      ok: { description: "A page of employees.", content: json("EmployeePage", { has_more: false, next_cursor: null, data: [EMPLOYEE_EXAMPLE] }) },
      errors: restrictionChanged,
    },
  }),
  dataRoute({
    path: "/v1/employees/{id}",
    scopes: ["employees:read"],
    prepare: (call, { store }) => {
      // No query parameters here; any is refused like a typo on the lists (docs/api.md, "Query parameters").
      readQuery(call.url, []);
      const id = parseEmployeeId(call.params.id ?? "");
      return async () => RawJson.of({ data: await getEmployee(store, call.organisationId, id, call.restriction) }, 1);
    },
    doc: {
      operationId: "getEmployee",
      tags: ["Employees"],
      summary: "Get one employee",
      description: "An employee outside a restricted credential's selection is 404, as an unknown one is.",
      parameters: [pathParameter("id", employeeIdPathSchema)],
      ok: { description: "The employee.", content: json("EmployeeResponse", { data: EMPLOYEE_EXAMPLE }) },
      errors: { "404": response("NotFound") },
    },
  }),
  dataRoute({
    path: "/v1/leave-requests",
    scopes: ["leave:read"],
    prepare: (call, { store, mac }) => {
      const params = parseLeaveQuery(call.url);
      return () => listLeavePage(store, call.organisationId, params, mac, call.restriction);
    },
    doc: {
      operationId: "listLeaveRequests",
      tags: ["Leave"],
      summary: "List annual leave bookings that overlap a date range",
      description:
        "A booking overlaps when `start_date` ≤ `to` and `end_date` ≥ `from`. Annual leave only. Ordered by `start_date`, then `id`. " +
        "An unknown `employee_id` gives an empty list. A restricted credential lists only the bookings of the employees it selects.",
      parameters: queryParameters(leaveQuerySchema, "GET /v1/leave-requests"),
      ok: { description: "A page of leave bookings.", content: json("LeaveBookingPage", { has_more: false, next_cursor: null, data: [BOOKING_EXAMPLE] }) },
      errors: restrictionChanged,
    },
  }),
  dataRoute({
    path: "/v1/deletions",
    scopes: ["employees:read", "leave:read"],
    // The scope depends on the resource asked about, so it is read first; a bad one is
    // still answered only after authentication (docs/api.md, "Order of checks").
    scopeOf: (url): Scope => (url.searchParams.get("resource") === "employees" ? "employees:read" : "leave:read"),
    prepare: (call, { store, mac, retentionDays }) => {
      const params = parseDeletionsQuery(call.url);
      return () => listDeletionPage(store, call.organisationId, params, { now: call.now, retentionDays, mac, restriction: call.restriction });
    },
    // The one check that time alone changes: a 304 must never stand for a 410.
    stillCurrent: (call, { retentionDays }) => checkDeletionFeedHorizon(parseDeletionsQuery(call.url).updated_since, call.now, retentionDays),
    doc: {
      operationId: "listDeletions",
      tags: ["Employees", "Leave"],
      summary: "List the records of a resource that stopped being listed",
      description:
        "Every employee (`resource=employees`) or annual leave booking (`resource=leave-requests`) that its list endpoint no longer returns " +
        "and that stopped being returned at or after `updated_since`: deleted, a booking whose employee was deleted, or whose leave type " +
        "is no longer annual. Ordered by `deleted_at`, then `id`. A record listed again leaves this feed. Needs `employees:read` for " +
        "employees and `leave:read` for leave requests (also when `resource` is missing or unknown).",
      parameters: queryParameters(deletionsQuerySchema, "GET /v1/deletions"),
      ok: {
        description: "A page of deletions.",
        content: json("DeletionPage", {
          has_more: false,
          next_cursor: null,
          data: [{ resource: "leave-requests", id: BOOKING_EXAMPLE.id, deleted_at: "2026-03-02T08:15:00.000Z" }],
        }),
      },
      errors: {
        "410": {
          description:
            "`sync_expired`: `updated_since` is older than the deletions kept (90 days by default), or the credential's restriction changed after it, " +
            'or the credential is restricted to some departments or calendars (docs/api.md, "Restricted credentials"). Do a full read, without `updated_since`.',
          headers: requestId,
          content: json("Error", {
            error: "sync_expired",
            error_description:
              "Deletions are kept for 90 days and 'updated_since' is older than that; do a full read (without updated_since) and replace your copy, then sync from its start.",
            param: "updated_since",
          }),
        },
      },
    },
  }),
  dataRoute({
    path: "/v1/holidays",
    scopes: ["holidays:read"],
    prepare: (call, { store, publicHolidays }) => {
      const params = parseHolidaysQuery(call.url);
      return async () => {
        const holidays = await listHolidays(store, call.organisationId, params, publicHolidays, call.restriction);
        return RawJson.of({ data: holidays }, holidays.length);
      };
    },
    doc: {
      operationId: "listHolidays",
      tags: ["Holidays"],
      summary: "List public holidays and company closure days in a date range",
      description: "Public holidays of every calendar observed by an employee employed during the range, plus the organisation's closure days. Not paged.",
      parameters: queryParameters(holidaysQuerySchema, "GET /v1/holidays"),
      ok: { description: "The holidays in the range, in date order.", content: json("HolidayList", HOLIDAYS_EXAMPLE) },
    },
  }),
];
