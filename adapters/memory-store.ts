/**
 * The in-memory Store (`leaveapi/memory`): the reference implementation of every promise
 * `lib/store.ts` makes, written to be read. A host implementing Store over its own tables
 * can follow it method by method: each one filters, sorts and slices plain arrays the way
 * the SQL store's `where`, `order by` and `limit` do.
 *
 * Use it for tests, demos and prototypes. It keeps everything in one process, so data,
 * tokens and rate limits vanish on restart and are not shared between instances.
 * Runtime-neutral: it imports only lib/ and testing/ types, and runs on Bun, Node and Deno.
 */
import { StoreUnavailableError } from "../lib/errors.ts";
import type { ClosureDayRecord, EmployeeRecord, LeaveBookingRecord } from "../lib/records.ts";
import type {
  AccessTokenGrant,
  ClientCredentials,
  EmployeePageQuery,
  ImportedPublicHoliday,
  LeavePageQuery,
  Organisation,
  RateDecision,
  Store,
} from "../lib/store.ts";
import type {
  ContractFixture,
  FixtureBooking,
  FixtureClient,
  FixtureClosureDay,
  FixtureEmployee,
  FixtureLeaveType,
  FixturePublicHoliday,
} from "../testing/contract-fixture.ts";

export interface MemoryStore extends Store {
  /**
   * Adds the records of `data` (the shape `runStoreContract` uses), replacing any with the
   * same key. Deleted records are kept as deleted, and never come back from a read. An
   * organisation loaded with API access off has been switched off (`setApiEnabled`), so
   * its tokens are dropped, and tokens are kept as `saveToken` would keep them.
   */
  load(data: ContractFixture): void;
  /**
   * Switches an organisation's API access, as `AdminStore.setApiEnabled` does: switching
   * it off drops its tokens for good. `false` when the organisation is unknown.
   */
  setApiEnabled(organisationId: string, enabled: boolean): Promise<boolean>;
}

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Whether (a1, a2) comes strictly after (b1, b2): SQL's row comparison `(a1, a2) > (b1, b2)`. */
const isAfter = (a1: string | number, a2: string, b1: string | number, b2: string) =>
  a1 > b1 || (a1 === b1 && a2 > b2);

/** Replaces the entries of `list` whose key matches an incoming one, then appends the rest. */
function upsert<R>(list: R[], incoming: R[], key: (r: R) => string): R[] {
  const replaced = new Set(incoming.map(key));
  return [...list.filter((r) => !replaced.has(key(r))), ...incoming.map((r) => structuredClone(r))];
}

/** A Store held in memory, optionally filled with `data` (see `MemoryStore.load`). */
export function createMemoryStore(data?: ContractFixture): MemoryStore {
  let organisations: Organisation[] = [];
  let clients: FixtureClient[] = [];
  let employees: FixtureEmployee[] = [];
  let leaveTypes: FixtureLeaveType[] = [];
  let bookings: FixtureBooking[] = [];
  let closureDays: FixtureClosureDay[] = [];
  let publicHolidays: FixturePublicHoliday[] = [];
  const tokens = new Map<string, AccessTokenGrant>();
  /** Per rate key, the instants of the events recorded and not yet pruned. */
  const rateEvents = new Map<string, number[]>();
  // One key per process: cursors die with the data on restart, so nothing is lost.
  const installationKey = crypto.getRandomValues(new Uint8Array(32));
  let closed = false;

  /**
   * Every method starts here. A closed store answers as a database that cannot be reached
   * would, so the handler turns it into a 503 rather than a 500.
   */
  const open = () => {
    if (closed) throw new StoreUnavailableError("The memory store has been closed.");
  };

  const organisation = (id: string) => organisations.find((o) => o.id === id);
  const liveEmployee = (organisationId: string, id: string) =>
    employees.find((e) => e.organisation_id === organisationId && e.id === id && !e.deleted);

  const toEmployee = ({ organisation_id: _o, deleted: _d, ...record }: FixtureEmployee): EmployeeRecord => record;

  /**
   * Access off revokes the organisation's tokens for good, so they are dropped rather
   * than refused while off: switching it on again must not revive them.
   */
  const switchApi = (org: Organisation, enabled: boolean) => {
    org.api_enabled = enabled;
    if (enabled) return;
    for (const [digest, grant] of tokens) if (grant.organisation_id === org.id) tokens.delete(digest);
  };

  /** Keeps a token only while its organisation's API access is on (see `switchApi`). */
  const keepToken = (digest: string, grant: AccessTokenGrant) => {
    if (organisation(grant.organisation_id)?.api_enabled) tokens.set(digest, structuredClone(grant));
  };

  /** Rate events of `key` inside the window (now − windowMs, now], oldest first. */
  const eventsInWindow = (key: string, now: number, windowMs: number) =>
    (rateEvents.get(key) ?? []).filter((at) => at > now - windowMs).sort((a, b) => a - b);

  /**
   * The decision for one more event: allowed while fewer than `limit` are in the window;
   * otherwise wait until the `limit`-th newest event leaves it, so exactly one fits again.
   */
  const decide = (inWindow: number[], now: number, limit: number, windowMs: number): RateDecision => {
    if (inWindow.length < limit) return { allowed: true };
    const mustLeave = inWindow[inWindow.length - limit] ?? now;
    return { allowed: false, retryAfterMs: Math.max(1, mustLeave + windowMs - now) };
  };

  const store: MemoryStore = {
    load(fixture) {
      organisations = upsert(organisations, fixture.organisations, (o) => o.id);
      clients = upsert(clients, fixture.clients, (c) => c.client_id);
      employees = upsert(employees, fixture.employees, (e) => `${e.organisation_id}/${e.id}`);
      leaveTypes = upsert(leaveTypes, fixture.leaveTypes, (t) => `${t.organisation_id}/${t.id}`);
      bookings = upsert(bookings, fixture.bookings, (b) => `${b.organisation_id}/${b.id}`);
      closureDays = upsert(closureDays, fixture.closureDays, (c) => `${c.organisation_id}/${c.id}`);
      publicHolidays = upsert(publicHolidays, fixture.publicHolidays, (h) => `${h.organisation_id}/${h.calendar}/${h.date}`);
      for (const org of fixture.organisations) switchApi(organisation(org.id)!, org.api_enabled);
      for (const { digest, grant } of fixture.tokens) keepToken(digest, grant);
    },

    async setApiEnabled(organisationId, enabled) {
      open();
      const org = organisation(organisationId);
      if (org) switchApi(org, enabled);
      return org !== undefined;
    },

    async installationKey() {
      open();
      return installationKey.slice();
    },

    async findClient(clientId) {
      open();
      const client = clients.find((c) => c.client_id === clientId);
      const org = client && organisation(client.organisation_id);
      if (!client || !org) return null;
      const credentials: ClientCredentials = { ...structuredClone(client), api_enabled: org.api_enabled };
      return credentials;
    },

    async saveToken(digest, grant) {
      open();
      keepToken(digest, grant);
    },

    async findToken(digest) {
      open();
      const grant = tokens.get(digest);
      if (!grant) return null;
      // A token is only as good as its client and its organisation's switch, checked now.
      const client = clients.find((c) => c.client_id === grant.client_id);
      if (!client || client.revoked_at !== null) return null;
      if (!organisation(grant.organisation_id)?.api_enabled) return null;
      return structuredClone(grant);
    },

    // No `await` between the count and the push: in one JavaScript thread nothing else can
    // run in between, which is what makes this atomic. A shared database needs a
    // transaction (or a single conditional insert) to promise the same.
    async takeRateSlot(key, now, limit, windowMs) {
      open();
      const inWindow = eventsInWindow(key, now, windowMs);
      const decision = decide(inWindow, now, limit, windowMs);
      if (decision.allowed) inWindow.push(now);
      // Events older than the window can never count again: keep only the window.
      rateEvents.set(key, inWindow);
      return decision;
    },

    async checkRateLimit(key, now, limit, windowMs) {
      open();
      return decide(eventsInWindow(key, now, windowMs), now, limit, windowMs);
    },

    async sweepRateEvents(now, windowMs) {
      open();
      let swept = 0;
      for (const [key, events] of rateEvents) {
        const kept = events.filter((at) => at > now - windowMs);
        swept += events.length - kept.length;
        // A key with nothing left goes too: keys seen once are what the sweep is for.
        if (kept.length === 0) rateEvents.delete(key);
        else rateEvents.set(key, kept);
      }
      return swept;
    },

    async listEmployees(q: EmployeePageQuery) {
      open();
      const { after } = q;
      return employees
        .filter((e) => e.organisation_id === q.organisationId && !e.deleted)
        .filter((e) => q.status === undefined || e.status === q.status)
        .filter((e) => q.updatedSince === undefined || e.updated_at >= q.updatedSince)
        .filter((e) => !after || isAfter(e.updated_at, e.id, after.updatedAt, after.id))
        .sort((a, b) => compare(a.updated_at, b.updated_at) || compare(a.id, b.id))
        .slice(0, q.limit)
        .map(toEmployee);
    },

    async findEmployee(organisationId, id) {
      open();
      const employee = liveEmployee(organisationId, id);
      return employee ? toEmployee(employee) : null;
    },

    async listOverlappingLeave(q: LeavePageQuery) {
      open();
      const { after } = q;
      const typeOf = (b: FixtureBooking) =>
        leaveTypes.find((t) => t.organisation_id === b.organisation_id && t.id === b.leave_type_id);
      const records: LeaveBookingRecord[] = [];
      for (const b of bookings) {
        if (b.organisation_id !== q.organisationId || b.deleted) continue;
        if (b.start_date > q.to || b.end_date < q.from) continue;
        const type = typeOf(b);
        if (type?.category !== "annual" || !liveEmployee(b.organisation_id, b.employee_id)) continue;
        if (q.status !== undefined && b.status !== q.status) continue;
        if (q.employeeId !== undefined && b.employee_id !== q.employeeId) continue;
        if (q.updatedSince !== undefined && b.updated_at < q.updatedSince) continue;
        if (after && !isAfter(b.start_date, b.id, after.startDate, after.id)) continue;
        const { organisation_id: _o, deleted: _d, leave_type_id: _t, ...booking } = b;
        const { organisation_id: _to, ...leave_type } = type;
        records.push({ ...booking, leave_type });
      }
      return records.sort((a, b) => compare(a.start_date, b.start_date) || compare(a.id, b.id)).slice(0, q.limit);
    },

    async listClosureDays(organisationId, from, to) {
      open();
      return closureDays
        .filter((c) => c.organisation_id === organisationId && !c.deleted && c.date >= from && c.date <= to)
        .map(({ organisation_id: _o, id: _i, updated_at: _u, deleted: _d, ...day }): ClosureDayRecord => day);
    },

    async observedCalendars(organisationId, from, to) {
      open();
      const calendars = new Set<string>();
      for (const e of employees) {
        if (e.organisation_id !== organisationId || e.deleted || e.holiday_calendar === null) continue;
        // Employed at some point in [from, to]: a null start or leaving date is open-ended.
        if ((e.start_date === null || e.start_date <= to) && (e.leaving_date === null || e.leaving_date >= from)) {
          calendars.add(e.holiday_calendar);
        }
      }
      return [...calendars].sort(compare);
    },

    async listImportedPublicHolidays(organisationId, calendars, fromYear, toYear) {
      open();
      return publicHolidays
        .filter((h) => h.organisation_id === organisationId && calendars.includes(h.calendar))
        .filter((h) => h.year >= fromYear && h.year <= toYear)
        .map(({ calendar, date, name }): ImportedPublicHoliday => ({ calendar, date, name }));
    },

    async ping() {
      open();
    },

    async close() {
      closed = true;
    },
  };

  if (data) store.load(data);
  return store;
}
