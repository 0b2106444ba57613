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
 * network errors, 429, 502, 503 and 504 retried (at most 3 times; after `Retry-After`, or
 * exponential backoff with full jitter); every page of a list, or one page at a time
 * (`page()`); ranges of leave longer than the API's 400 days; the sync recipe; `signal` and
 * `timeout` on every call and iteration; a `User-Agent` naming the client and its version.
 * Every failure is a `LeaveApiError` with the API's `status`, `error`, `error_description`
 * and `param`, except an abort: that is the signal's reason (an `AbortError`), and a
 * timeout a `TimeoutError`.
 *
 * Change notifications (docs/api.md, "Change notifications"): `verifyWebhook(secret,
 * headers, rawBody)` checks one as the Standard Webhooks specification says and resolves to
 * the event; on a `leaveapi.data.changed` event, answer 2xx and run `sync()` from your own
 * sync point, as you would have on a timer.
 */
import { type CallOptions, withinCall } from "./call-scope.ts";
import { errorFromResponse } from "./errors.ts";
import { eachBookingInWindows, eachRecord } from "./paging.ts";
import { createPollCopies } from "./poll-copies.ts";
import { runSync, type SyncOptions, type SyncResult } from "./sync.ts";
import { createTokenSource } from "./token-source.ts";
import { DEFAULT_RETRY_POLICY, createTransport, realSleep, type CallScope, type FetchLike, type RetryPolicy, type Sleep } from "./transport.ts";
import { CLIENT_VERSION } from "./version.ts";
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
export type { CallOptions } from "./call-scope.ts";
export type { FetchLike, RetryPolicy, Sleep } from "./transport.ts";
export { CLIENT_VERSION } from "./version.ts";
export { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "./verify-webhook.ts";

/** A call's timeout when neither the call nor the client names one: long enough for the default retries' waits. */
export const DEFAULT_TIMEOUT_MS = 120_000;
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
  /** Waits (retries, timeouts), cut short by its signal; for tests. */
  sleep?: Sleep;
  /** Uniform in [0, 1), for the backoff's jitter; for tests. */
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  /** Every call's timeout in milliseconds unless the call names its own; DEFAULT_TIMEOUT_MS by default, `0` for none. */
  timeout?: number;
  /** Your application's product token (`my-sync/1.2`), sent before the client's own in `User-Agent`. */
  userAgent?: string;
}

/** The list endpoints `page()` reads, and what each takes and returns. */
export interface PageQueries {
  employees: EmployeesQuery;
  "leave-requests": LeaveRequestsQuery;
}
export interface PageRecords {
  employees: Employee;
  "leave-requests": LeaveBooking;
}
/** A page's query: the list's filters, and the `next_cursor` of the page before (absent: the first page). */
export type PageQuery<R extends keyof PageQueries> = PageQueries[R] & { cursor?: string };

export interface LeaveApiClient {
  /** One employee; a LeaveApiError with status 404 when unknown or deleted. */
  getEmployee(id: string, options?: CallOptions): Promise<Employee>;
  /**
   * Every employee (or those of a status, or changed since), page after page, oldest change
   * first. `options.signal` ends the iteration; `options.timeout` bounds each page's request.
   */
  employees(query?: EmployeesQuery, options?: CallOptions): AsyncIterable<Employee>;
  /** Every annual-leave booking that overlaps `[from, to]`, in (`start_date`, `id`) order. */
  leaveRequests(query: LeaveRequestsQuery, options?: CallOptions): AsyncIterable<LeaveBooking>;
  /**
   * One page of a list, for a caller that keeps its own place (a job that stores
   * `next_cursor` between runs): pass the previous page's `next_cursor` as `cursor`. The
   * leave range is the API's, at most 400 days; the iterators split longer ones.
   */
  page<R extends keyof PageQueries>(resource: R, query?: PageQuery<R>, options?: CallOptions): Promise<Page<PageRecords[R]>>;
  /** Public holidays of the calendars the organisation observes and its closure days, in date order. */
  holidays(query: HolidaysQuery, options?: CallOptions): Promise<HolidayEntry[]>;
  /** The records of a resource no longer listed since `updatedSince`, in (`deleted_at`, `id`) order. */
  deletions(query: DeletionsQuery, options?: CallOptions): AsyncIterable<Deletion>;
  /**
   * Incremental sync (docs/api.md, "Incremental sync"); see client/sync.ts for how to keep
   * a mirror exact.
   */
  sync(options?: SyncOptions, call?: CallOptions): Promise<SyncResult>;
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
  const sleep = options.sleep ?? realSleep;
  const clock = { sleep, now, timeout: options.timeout ?? DEFAULT_TIMEOUT_MS };
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    sleep,
    now,
    random: options.random ?? Math.random,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    // A browser keeps its own User-Agent and ignores this header; Node, Bun and Deno send it.
    userAgent: `${options.userAgent ? `${options.userAgent} ` : ""}leaveapi-client/${CLIENT_VERSION}`,
  });
  const tokens = createTokenSource({
    tokenUrl: `${root}/v1/oauth/token`,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope,
    transport,
    now,
    // The shared token request has the client's timeout, never one caller's signal.
    within: (work) => withinCall({}, clock, work),
  });

  // The first pages of syncs, kept with their ETags: an unchanged one is answered 304 (poll-copies.ts).
  const polls = createPollCopies(now);

  /**
   * GET with the shared token; after a 401, one new token and one retry, never more. The
   * first page of an `updated_since` list is asked with If-None-Match when a copy is kept,
   * and a 304 answered from the copy.
   */
  function get<T>(path: string, params: Record<string, string> = {}, callOptions: CallOptions = {}): Promise<T> {
    const url = new URL(root + path);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    let request = polls.plan(url);
    return withinCall(callOptions, clock, async (call: CallScope) => {
      const ask = async () => {
        const headers: Record<string, string> = { Accept: "application/json" };
        if (request.etag !== undefined) headers["If-None-Match"] = request.etag;
        const send = (token: string) => transport.send(request.url, { method: "GET", headers: { ...headers, Authorization: `Bearer ${token}` } }, call);
        const token = await tokens.token(call.signal);
        const first = await send(token);
        if (first.status !== 401) return first;
        await first.body?.cancel();
        return send(await tokens.renew(token, call.signal));
      };
      let res = await ask();
      const kept = res.status === 304 ? polls.copy(request) : undefined;
      if (kept !== undefined) return JSON.parse(kept) as T;
      if (!res.ok) throw await errorFromResponse(res);
      let text = await res.text();
      if (request.url !== url.href && (JSON.parse(text) as { has_more?: unknown }).has_more === true) {
        // Asked as an earlier copy's URL, something changed, and more pages follow: their
        // cursor is bound to the URL it came from (updated_since included), while the next
        // request names the sync's own, so this page is asked again as the sync's own.
        request = { url: url.href, key: request.key };
        res = await ask();
        if (!res.ok) throw await errorFromResponse(res);
        text = await res.text();
      }
      polls.keep(request, res.headers.get("etag"), text);
      return JSON.parse(text) as T;
    });
  }

  const employeesPage = (q: PageQuery<"employees">, callOptions?: CallOptions) =>
    get<Page<Employee>>(
      "/v1/employees",
      query({ status: q.status, updated_since: instantText(q.updatedSince), limit: q.limit, cursor: q.cursor }),
      callOptions,
    );

  const leavePage = (q: PageQuery<"leave-requests">, callOptions?: CallOptions) =>
    get<Page<LeaveBooking>>(
      "/v1/leave-requests",
      query({
        from: q.from,
        to: q.to,
        status: q.status,
        employee_id: q.employeeId,
        updated_since: instantText(q.updatedSince),
        limit: q.limit,
        cursor: q.cursor,
      }),
      callOptions,
    );

  const employees = (q: EmployeesQuery = {}, callOptions?: CallOptions) =>
    eachRecord((cursor) => employeesPage({ ...q, cursor }, callOptions), callOptions?.signal);

  const leaveRequests = (q: LeaveRequestsQuery, callOptions?: CallOptions) =>
    eachBookingInWindows(q.from, q.to, (window) => eachRecord((cursor) => leavePage({ ...q, ...window, cursor }, callOptions), callOptions?.signal));

  /** One page of either list; `resource` picks the endpoint, and with it the record type. */
  function page<R extends keyof PageQueries>(resource: R, q?: PageQuery<R>, callOptions?: CallOptions): Promise<Page<PageRecords[R]>> {
    if (resource === "employees") return employeesPage((q ?? {}) as PageQuery<"employees">, callOptions) as Promise<Page<PageRecords[R]>>;
    if (resource === "leave-requests") return leavePage((q ?? {}) as PageQuery<"leave-requests">, callOptions) as Promise<Page<PageRecords[R]>>;
    throw new TypeError(`page() reads "employees" or "leave-requests", not ${JSON.stringify(resource)}`);
  }

  const deletions = (q: DeletionsQuery, callOptions?: CallOptions) =>
    eachRecord(
      (cursor) =>
        get<Page<Deletion>>("/v1/deletions", query({ resource: q.resource, updated_since: instantText(q.updatedSince), limit: q.limit, cursor }), callOptions),
      callOptions?.signal,
    );

  return {
    getEmployee: async (id, callOptions) => (await get<{ data: Employee }>(`/v1/employees/${encodeURIComponent(id)}`, {}, callOptions)).data,
    employees,
    leaveRequests,
    page,
    holidays: async (q, callOptions) =>
      (await get<{ data: HolidayEntry[] }>("/v1/holidays", query({ from: q.from, to: q.to, calendar: q.calendar, type: q.type }), callOptions)).data,
    deletions,
    // `call` reaches every request of the sync: its signal stops the whole sync, its timeout bounds each page.
    sync: (syncOptions, call) =>
      runSync({ employees: (q) => employees(q, call), leaveRequests: (q) => leaveRequests(q, call), deletions: (q) => deletions(q, call) }, now, syncOptions),
  };
}
