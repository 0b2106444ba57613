/**
 * `leaveapi/client`: the official client of the leaveapi HTTP API, for Node 20+, Bun and
 * Deno. It uses only fetch, URL, Headers and setTimeout, so it runs unchanged on each.
 *
 * ```ts
 * const api = createClient({ baseUrl: "https://leave.example.com", clientId, clientSecret });
 * for await (const e of api.employees({ status: "active" })) console.log(e.first_name);
 * let { employees, leaveRequests, since } = await api.sync({ from: "2026-01-01", to: "2026-12-31" });
 * // later: ({ employees, leaveRequests, since } = await api.sync({ since, from, to }));
 * ```
 *
 * What it does for you: one token reused until a minute before it expires, one token
 * request at a time however many calls wait; after a 401, one new token and one retry;
 * 429 and 503 retried after `Retry-After` (at most 3 times, 60 s each by default); every
 * page of a list; ranges of leave longer than the API's 400 days; the sync recipe. Every
 * failure is a `LeaveApiError` with the API's `status`, `error`, `error_description` and
 * `param`.
 */
import { errorFromResponse } from "./errors.ts";
import { eachBookingInWindows, eachRecord } from "./paging.ts";
import { runSync, type SyncOptions, type SyncResult } from "./sync.ts";
import { createTokenSource } from "./token-source.ts";
import { DEFAULT_RETRY_POLICY, createTransport, type FetchLike, type RetryPolicy } from "./transport.ts";
import type {
  Deletion,
  DeletionsQuery,
  Employee,
  EmployeesQuery,
  HolidayEntry,
  HolidaysQuery,
  Instant,
  LeaveBooking,
  LeaveRequestsQuery,
  Page,
} from "./types.ts";

export { LeaveApiError } from "./errors.ts";
export { DEFAULT_SYNC_SKEW_MS, syncPoint, type SyncOptions, type SyncResource, type SyncResult } from "./sync.ts";
export type { FetchLike, RetryPolicy } from "./transport.ts";
export type * from "./types.ts";

export interface ClientOptions {
  /** Where the API is served, such as `https://leave.example.com` (paths start with `/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for; all of the credentials' scopes by default. */
  scope?: string;
  /** Another fetch (a proxy-aware one, or a handler in tests). */
  fetch?: FetchLike;
  /** Milliseconds since the epoch; for tests. */
  now?: () => number;
  /** Waits out a Retry-After; for tests. */
  sleep?: (ms: number) => Promise<void>;
  retry?: Partial<RetryPolicy>;
}

export interface LeaveApiClient {
  /** One employee; a LeaveApiError with status 404 when unknown or deleted. */
  getEmployee(id: string): Promise<Employee>;
  /** Every employee (or those of a status, or changed since), page after page, oldest change first. */
  employees(query?: EmployeesQuery): AsyncIterable<Employee>;
  /** Every annual-leave booking that overlaps `[from, to]`, in (`start_date`, `id`) order. */
  leaveRequests(query: LeaveRequestsQuery): AsyncIterable<LeaveBooking>;
  /** Public holidays of the calendars the organisation observes and its closure days, in date order. */
  holidays(query: HolidaysQuery): Promise<HolidayEntry[]>;
  /** The records of a resource no longer listed since `updatedSince`, in (`deleted_at`, `id`) order. */
  deletions(query: DeletionsQuery): AsyncIterable<Deletion>;
  /**
   * Incremental sync (docs/api.md, "Incremental sync"); see client/sync.ts for how to keep
   * a mirror exact.
   */
  sync(options?: SyncOptions): Promise<SyncResult>;
}

const instantText = (value: Instant | undefined) => (value instanceof Date ? value.toISOString() : value);

/** Query parameters without the absent ones. */
function query(params: Record<string, string | number | undefined>): Record<string, string> {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) if (value !== undefined) present[name] = String(value);
  return present;
}

export function createClient(options: ClientOptions): LeaveApiClient {
  const base = new URL(options.baseUrl);
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new TypeError(`baseUrl must be an http(s) URL, not '${options.baseUrl}'`);
  const root = base.href.replace(/\/+$/, "");
  const now = options.now ?? (() => Date.now());
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    now,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  });
  const tokens = createTokenSource({
    tokenUrl: `${root}/v1/oauth/token`,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope,
    transport,
    now,
  });

  /** GET with the shared token; after a 401, one new token and one retry, never more. */
  async function get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    const url = new URL(root + path);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const send = (token: string) => transport.send(url.href, { method: "GET", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" } });
    const token = await tokens.token();
    let res = await send(token);
    if (res.status === 401) {
      await res.body?.cancel();
      res = await send(await tokens.renew(token));
    }
    if (!res.ok) throw await errorFromResponse(res);
    return (await res.json()) as T;
  }

  const employees = (q: EmployeesQuery = {}) =>
    eachRecord((cursor) =>
      get<Page<Employee>>("/v1/employees", query({ status: q.status, updated_since: instantText(q.updatedSince), limit: q.limit, cursor })),
    );

  const leaveRequests = (q: LeaveRequestsQuery) =>
    eachBookingInWindows(q.from, q.to, (window) =>
      eachRecord((cursor) =>
        get<Page<LeaveBooking>>(
          "/v1/leave-requests",
          query({ ...window, status: q.status, employee_id: q.employeeId, updated_since: instantText(q.updatedSince), limit: q.limit, cursor }),
        ),
      ),
    );

  const deletions = (q: DeletionsQuery) =>
    eachRecord((cursor) =>
      get<Page<Deletion>>("/v1/deletions", query({ resource: q.resource, updated_since: instantText(q.updatedSince), limit: q.limit, cursor })),
    );

  return {
    getEmployee: async (id) => (await get<{ data: Employee }>(`/v1/employees/${encodeURIComponent(id)}`)).data,
    employees,
    leaveRequests,
    holidays: async (q) => (await get<{ data: HolidayEntry[] }>("/v1/holidays", query({ from: q.from, to: q.to, calendar: q.calendar, type: q.type }))).data,
    deletions,
    sync: (syncOptions) => runSync({ employees, leaveRequests, deletions }, now, syncOptions),
  };
}
