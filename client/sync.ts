/**
 * Incremental sync, the recipe of docs/api.md, "Incremental sync": note the time before the
 * first request; ask for `updated_since` = the previous sync's start minus a few seconds of
 * clock skew; page through to the end. Any change committed after the previous sync read
 * past it has an `updated_at` at or after that start (less the skew, which also covers a
 * write that began just before the start and committed after), so it is never missed, even
 * when a booking's `start_date` moves while a pass is paging (docs/api.md, "Paging,
 * ordering and cursors").
 *
 * Deletions: the API never returns a deleted record, not even to `updated_since` (nor the
 * bookings of a deleted employee, nor one whose leave type stops being annual); it lists
 * them in its deletions feed (docs/api.md, "GET /v1/deletions") instead, from the same
 * `updated_since`. Each resource's records are read first and its deletions after, so an
 * id in both was hidden after it was read: the deletion wins. Apply a sync to a mirror by
 * upserting its records by `id` and dropping the ids it reports deleted; after a full read
 * (`full` is true: the first sync, or one whose `since` is older than the deletions the
 * server keeps, which the API answers with 410 `sync_expired`), replace the mirror. Leave
 * is synced for a range of dates: a booking whose dates move out of it is neither returned
 * nor deleted, so drop bookings that no longer overlap your range yourself.
 */
import { formatInstant, parseInstantCeil } from "../lib/dates.ts";
import { LeaveApiError } from "./errors.ts";
import type { Deletion, DeletionsQuery, Employee, EmployeesQuery, LeaveBooking, LeaveRequestsQuery } from "./types.ts";

/** How far before the previous sync's start the next one asks from. */
export const DEFAULT_SYNC_SKEW_MS = 5000;

export type SyncResource = "employees" | "leaveRequests";

export interface SyncOptions {
  /** The `since` a previous sync returned; absent: a full read. */
  since?: string;
  /** The range of leave bookings to sync (`YYYY-MM-DD`, inclusive; longer than 400 days is fine). */
  from?: string;
  to?: string;
  /** What to sync; both by default. Leave needs `from` and `to` and the `leave:read` scope. */
  resources?: readonly SyncResource[];
  skewMs?: number;
  /** Page size, 1–500. */
  limit?: number;
}

export interface SyncResult {
  /** Employees changed since `since` (each once, its newest version), or all of them. */
  employees: Employee[];
  /** Bookings of the range changed since `since`, or all of them. */
  leaveRequests: LeaveBooking[];
  /** Ids of employees no longer listed since `since`: drop them. Empty on a full read. */
  deletedEmployees: string[];
  /** Ids of bookings no longer listed since `since`: drop them. Empty on a full read. */
  deletedLeaveRequests: string[];
  /** Store this and pass it to the next sync. */
  since: string;
  /**
   * True when this was a full read (no `since`, or one older than the deletions the server
   * keeps): replace the mirror with these records; what it holds and this lacks is gone.
   */
  full: boolean;
}

/**
 * Where a sync starting at `now` reads from, and the `since` it hands on: `updatedSince`
 * is `since` minus the skew (absent for a full read); the next `since` is `now`.
 */
export function syncPoint(now: number, since: string | undefined, skewMs = DEFAULT_SYNC_SKEW_MS): { updatedSince: string | undefined; since: string } {
  if (since === undefined) return { updatedSince: undefined, since: formatInstant(now) };
  const previous = parseInstantCeil(since);
  if (previous === null) throw new TypeError(`since must be an RFC 3339 date-time with an offset, as a previous sync returned it; got '${since}'`);
  return { updatedSince: formatInstant(previous - skewMs), since: formatInstant(now) };
}

export interface SyncReaders {
  employees(query: EmployeesQuery): AsyncIterable<Employee>;
  leaveRequests(query: LeaveRequestsQuery): AsyncIterable<LeaveBooking>;
  deletions(query: DeletionsQuery): AsyncIterable<Deletion>;
}

/** Keeps one version per id: the newest `updated_at` (a record changed mid-pass shows up twice). */
async function newestById<T extends { id: string; updated_at: string }>(records: AsyncIterable<T>): Promise<T[]> {
  const byId = new Map<string, T>();
  for await (const record of records) {
    const seen = byId.get(record.id);
    if (!seen || Date.parse(record.updated_at) >= Date.parse(seen.updated_at)) byId.set(record.id, record);
  }
  return [...byId.values()];
}

/**
 * The records changed since the sync point and then the ids of those hidden since it: an id
 * in both was hidden after its record was read, so it counts as deleted.
 */
async function changesOf<T extends { id: string; updated_at: string }>(
  records: AsyncIterable<T>,
  deletions: () => AsyncIterable<Deletion> | undefined,
): Promise<{ records: T[]; deleted: string[] }> {
  const changed = await newestById(records);
  const feed = deletions();
  if (!feed) return { records: changed, deleted: [] };
  const deleted = new Set<string>();
  for await (const d of feed) deleted.add(d.id);
  return { records: changed.filter((r) => !deleted.has(r.id)), deleted: [...deleted] };
}

export async function runSync(readers: SyncReaders, now: () => number, options: SyncOptions = {}): Promise<SyncResult> {
  const resources = options.resources ?? ["employees", "leaveRequests"];
  const { from, to, limit } = options;
  const withLeave = resources.includes("leaveRequests");
  if (withLeave && (from === undefined || to === undefined)) {
    throw new TypeError('sync needs from and to to sync leave requests (or resources: ["employees"])');
  }
  // Noted before the first request: anything committed later is at or after it.
  const point = syncPoint(now(), options.since, options.skewMs);
  const updatedSince = point.updatedSince;
  const deletions = (resource: DeletionsQuery["resource"]) => () =>
    updatedSince === undefined ? undefined : readers.deletions({ resource, updatedSince, limit });
  try {
    const employees = resources.includes("employees")
      ? await changesOf(readers.employees({ updatedSince, limit }), deletions("employees"))
      : { records: [], deleted: [] };
    const leave = withLeave
      ? await changesOf(readers.leaveRequests({ from: from!, to: to!, updatedSince, limit }), deletions("leave-requests"))
      : { records: [], deleted: [] };
    return {
      employees: employees.records,
      leaveRequests: leave.records,
      deletedEmployees: employees.deleted,
      deletedLeaveRequests: leave.deleted,
      since: point.since,
      full: updatedSince === undefined,
    };
  } catch (error) {
    // The deletions since `since` are no longer known: read everything instead.
    if (updatedSince !== undefined && error instanceof LeaveApiError && error.error === "sync_expired") {
      return runSync(readers, now, { ...options, since: undefined });
    }
    throw error;
  }
}
