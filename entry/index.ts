/**
 * `leaveapi`: the public API for a host application. `createHandler` gives the one
 * `(Request) => Promise<Response>` handler; pair it with a Store (`leaveapi/postgres`,
 * `leaveapi/sqlite`, `leaveapi/memory`, or your own, proved with
 * `leaveapi/testing`) and, on Node, with `leaveapi/node`. Runtime-neutral: Bun, Node, Deno.
 *
 * Everything not exported from an entry/ file is internal and may change without notice.
 */
export { createHandler } from "../server/handler.ts";
export type { Handler, HandlerOptions, RequestInfo, RequestLogEntry } from "../server/handler.ts";
export { DEFAULT_TOKEN_LIMITS, type TokenLimits } from "../lib/issue-token.ts";
/** How long tombstones are kept by default, and what a host's sweep may take (docs/embedding.md, `sweepDeletions`). */
export { DEFAULT_DELETION_RETENTION_DAYS, deletionSweepBefore } from "../lib/deletion-pages.ts";
/** Shipped public holidays worked out in a worker thread, for `createHandler`'s `publicHolidays` (docs/embedding.md). */
export { createHolidayWorker, HOLIDAY_TIMEOUT_MS, type HolidayWorker, type HolidayWorkerOptions } from "../adapters/holiday-worker.ts";
export type { PublicHoliday, PublicHolidaySource } from "../lib/public-holidays.ts";

export { ApiError, SqliteUnsupportedError, StoreUnavailableError, ERROR_CODES, type ErrorBody, type ErrorCode } from "../lib/errors.ts";
export { ALL_SCOPES, type Scope } from "../lib/scopes.ts";
/** For the admin side: a new client's stored record and its one-time secret; the digest a Store keeps. */
export { digestSecret, mintClient, type RandomBytes } from "../lib/credentials.ts";

export type {
  AccessTokenGrant,
  ApiClient,
  ClientCredentials,
  DeletedResource,
  DeletionPageQuery,
  DeletionRecord,
  EmployeePageQuery,
  ImportedPublicHoliday,
  LeavePageQuery,
  ListText,
  ListTextQuery,
  Organisation,
  RateDecision,
  RateSlot,
  Store,
} from "../lib/store.ts";
/** A Store's employee record from a source that may lack nullable fields a later version adds: those are null. */
export { employeeRecord } from "../lib/records.ts";
/** What each list filter keeps, as a store must honour it (docs/embedding.md, "The Store interface, method by method"). */
export { EMPLOYEE_FILTER_RULES, LEAVE_FILTER_RULES, type EmployeeFilters, type LeaveFilters } from "../lib/list-filters.ts";
/** Seeding a store from plain records (a demo, a fixture file): `writeStoreContents(store, contents, now)`. */
export { writeStoreContents, type StoreContents } from "../lib/store-contents.ts";
export type {
  AdminStore,
  ClosureDayInput,
  EmployeeCalendarFacts,
  EmployeeInput,
  ImportRunOptions,
  ImportWriter,
  LeaveBookingInput,
  NewClient,
  WriteCounts,
} from "../lib/admin-store.ts";
export type {
  ClosureAppliesTo,
  ClosureDayRecord,
  EmployeeRecord,
  HalfPeriod,
  HolidayEntry,
  LeaveBookingRecord,
  LeaveStatus,
  LeaveTypeRecord,
} from "../lib/records.ts";
