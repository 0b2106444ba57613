/**
 * The client's conditional polls (client/poll-copies.ts; docs/api.md, "Conditional
 * reads"), with the real client against a real server over a socket: a sync of an
 * unchanged organisation, after one whose pages were empty, is four 304s with no page
 * read, and still sees the next change and the next deletion at once. On the test store
 * (SQLite; Postgres through test/postgres-suites.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { listen } from "../adapters/bun/serve.ts";
import { createClient, type LeaveApiClient } from "../client/index.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { createHandler, type RequestLogEntry } from "../server/handler.ts";
import { ANNUAL, SICK, booking, employee } from "./support.ts";
import { closeTestStores, openTestStore } from "./test-stores.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";

let store: SqlAdminStore;
let server: Server<undefined>;
let api: LeaveApiClient;
const organisationId = crypto.randomUUID();
/** The status of each data request the server answered, in order. */
const answered: number[] = [];
const ada = employee({ first_name: "Ada" });
const grace = employee({ first_name: "Grace" });
const RANGE = { from: "2026-01-01", to: "2026-12-31" };

beforeAll(async () => {
  store = await openTestStore();
  await store.createOrganisation({ id: organisationId, name: "Poll Ltd", api_enabled: true, created_at: Date.now() });
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "poller", Date.now());
  await store.createClient(client);
  // A minute ago: the syncs below start after it, past their skew.
  const then = Date.now() - 60_000;
  await store.runImport(async (w) => {
    await w.upsertEmployees(organisationId, [ada, grace], then);
    await w.upsertLeaveTypes(organisationId, [ANNUAL, SICK], then);
    await w.upsertLeaveBookings(organisationId, [booking(ada.id, { start_date: "2026-04-06", end_date: "2026-04-10" })], then);
  });
  const log = (entry: RequestLogEntry) => {
    if (entry.route !== "/v1/oauth/token") answered.push(entry.status);
  };
  const handler = createHandler({ store, log });
  server = listen({ hostname: "127.0.0.1", port: 0, reusePort: false, fetch: (req) => handler(req) });
  api = createClient({ baseUrl: `http://127.0.0.1:${server.port}`, clientId: client.client_id, clientSecret: secret });
});

afterAll(async () => {
  server?.stop(true);
  await closeTestStores();
});

/** The statuses of the data requests `work` made. */
async function statusesOf<T>(work: () => Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const from = answered.length;
  const result = await work();
  return { result, statuses: answered.slice(from) };
}

// One test: the store is closed after each (test/preload.ts).
test("an unchanged organisation is polled with 304s; a change and a deletion still reach the next sync; a raw 304", async () => {
  const full = await api.sync(RANGE);
  expect(full.full).toBe(true);
  expect(full.employees.map((e) => e.first_name).sort()).toEqual(["Ada", "Grace"]);
  // Nothing changed: empty pages, each kept with its ETag.
  const first = await statusesOf(() => api.sync({ ...RANGE, since: full.since }));
  expect(first.statuses).toEqual([200, 200, 200, 200]);
  expect(first.result).toMatchObject({ employees: [], leaveRequests: [], deletedEmployees: [], deletedLeaveRequests: [], full: false });
  // Still nothing: every page asked again is 304, and the sync's own `since` moves on as ever.
  for (let i = 0; i < 3; i++) {
    const poll = await statusesOf(() => api.sync({ ...RANGE, since: first.result.since }));
    expect(poll.statuses).toEqual([304, 304, 304, 304]);
    expect(poll.result).toMatchObject({ employees: [], leaveRequests: [], deletedEmployees: [], deletedLeaveRequests: [], full: false });
    expect(Date.parse(poll.result.since)).toBeGreaterThanOrEqual(Date.parse(first.result.since));
  }
  const since = (await api.sync({ ...RANGE, since: first.result.since })).since;
  await store.runImport((w) => w.upsertEmployees(organisationId, [{ ...grace, job_title: "Admiral" }], Date.now()));
  const changed = await statusesOf(() => api.sync({ ...RANGE, since }));
  expect(changed.statuses).toEqual([200, 200, 200, 200]);
  expect(changed.result.employees.map((e) => [e.first_name, e.job_title])).toEqual([["Grace", "Admiral"]]);
  await store.runImport((w) => w.deleteEmployees(organisationId, [ada.id], Date.now()));
  const deleted = await api.sync({ ...RANGE, since: changed.result.since });
  expect(deleted.deletedEmployees).toEqual([ada.id]);
  expect(deleted.deletedLeaveRequests.length).toBe(1);

  const { client: pager, secret: pagerSecret } = mintClient(organisationId, [...ALL_SCOPES], "pager", Date.now());
  await store.createClient(pager);
  // A change of more than a page after empty polls: the first page asked as the copy's
  // (earlier) URL has a cursor bound to that URL, so the client asks it again as its own
  // and pages on (a cursor from the copy's URL was refused: 400 invalid_request).
  // A clock of its own, a minute on (past the changes above, so the first pages are empty)
  // and a millisecond more at each reading: each sync's `since` differs, as between syncs a
  // second apart, even when they run within one millisecond here.
  let tick = Date.now() + 60_000;
  const paging = createClient({ baseUrl: `http://127.0.0.1:${server.port}`, clientId: pager.client_id, clientSecret: pagerSecret, now: () => ++tick });
  const quiet = await paging.sync({ ...RANGE, since: deleted.since, limit: 1 });
  const later = await paging.sync({ ...RANGE, since: quiet.since, limit: 1 });
  expect(later.since).not.toBe(quiet.since);
  const newcomers = [employee({ first_name: "Hedy" }), employee({ first_name: "Joan" })];
  await store.runImport((w) => w.upsertEmployees(organisationId, newcomers, tick));
  const paged = await paging.sync({ ...RANGE, since: later.since, limit: 1 });
  // (An earlier updated_since may bring a record or two the sync had: a superset.)
  expect(paged.employees.map((e) => e.first_name)).toEqual(expect.arrayContaining(["Hedy", "Joan"]));

  // Over the socket, as any client sees it: a 304 carries its ETag and no body.
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "raw", Date.now());
  await store.createClient(client);
  const base = `http://127.0.0.1:${server.port}`;
  const tokenRes = await fetch(`${base}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` },
    body: "grant_type=client_credentials",
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const get = (headers: Record<string, string> = {}) => fetch(`${base}/v1/employees`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
  const plain = await get();
  await plain.arrayBuffer();
  const tag = plain.headers.get("etag")!;
  expect(tag).toMatch(/^W\//);
  const again = await get({ "If-None-Match": tag });
  expect(again.status).toBe(304);
  expect(again.headers.get("etag")).toBe(tag);
  expect(again.headers.get("cache-control")).toBe("no-store");
  expect(await again.text()).toBe("");
});
