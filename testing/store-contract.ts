/**
 * The Store contract, written once: every promise `lib/store.ts` documents, checked against
 * any implementation. Each store's test file is a few lines that call `runStoreContract`;
 * a host application proves its own Store the same way. The test framework is passed in
 * (bun:test, vitest or jest) and only common jest-style matchers are used.
 */
import { employeeJson, leaveBookingJson, type ClosureDayRecord, type EmployeeRecord, type LeaveBookingRecord } from "../lib/records.ts";
import type { ClientCredentials, DeletionPageQuery, EmployeePageQuery, LeavePageQuery, RateDecision, Store } from "../lib/store.ts";
import { QUERY_RANGE, STANDARD_IDS, T0, U, fixtureUuid, standardFixture, type ContractFixture } from "./contract-fixture.ts";

export interface ContractMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  toBeTruthy(): void;
  toHaveLength(length: number): void;
  toBeGreaterThan(n: number): void;
  toBeGreaterThanOrEqual(n: number): void;
  toBeLessThan(n: number): void;
  toBeLessThanOrEqual(n: number): void;
  toContain(item: unknown): void;
  toMatchObject(subset: object): void;
}

/** What the contract needs from a test framework: its `describe`, `test` and `expect`. */
export interface ContractFramework {
  describe: (name: string, body: () => void) => void;
  test: (name: string, body: () => Promise<void>) => void;
  expect: (actual: unknown) => ContractMatchers;
}

export interface StoreUnderTest {
  store: Store;
  /** Closes the store and frees whatever `create` made for it. */
  dispose: () => Promise<void>;
  /**
   * Switches an organisation's API access the way its administration does
   * (`AdminStore.setApiEnabled` for leaveapi's SQL stores, a host's own admin code for a
   * host's Store), so the contract can check what that does to tokens.
   */
  setApiEnabled: (organisationId: string, enabled: boolean) => Promise<unknown>;
}

export interface StoreContractOptions {
  /** Names the describe block, e.g. "SQLite in memory". */
  name: string;
  /** A store that holds exactly the fixture's data and nothing else; called once per test. */
  create: (fixture: ContractFixture) => Promise<StoreUnderTest>;
}

const I = STANDARD_IDS;
const E = I.employees;
const B = I.bookings;
const ZERO_ID = "00000000-0000-4000-8000-000000000000";
/** Live employees of the first organisation in (updated_at, id) order. */
const EMPLOYEE_ORDER = [E.ada, E.cy, E.di, E.bo, E.ed, E.fay, E.gus, E.hal];
/** Annual bookings overlapping QUERY_RANGE in (start_date, id) order. */
const LEAVE_ORDER = [B.long, B.endsOnFrom, B.sameStart, B.inside, B.halfDay, B.endHalf, B.startsOnTo];

const idsOf = (records: { id: string }[]) => records.map((r) => r.id);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function expectedEmployee(fixture: ContractFixture, id: string): EmployeeRecord {
  const { organisation_id: _o, deleted: _d, ...record } = fixture.employees.find((e) => e.id === id)!;
  return record;
}

function expectedBooking(fixture: ContractFixture, id: string): LeaveBookingRecord {
  const { organisation_id: _o, deleted: _d, leave_type_id, ...record } = fixture.bookings.find((b) => b.id === id)!;
  const { organisation_id: _t, ...leave_type } = fixture.leaveTypes.find((t) => t.id === leave_type_id)!;
  return { ...record, leave_type };
}

function expectedClosure(fixture: ContractFixture, id: string): ClosureDayRecord {
  const { organisation_id: _o, deleted: _d, id: _i, updated_at: _u, ...record } = fixture.closureDays.find((c) => c.id === id)!;
  return record;
}

const byDateAndName = (records: ClosureDayRecord[]) => [...records].sort((a, b) => compare(a.date, b.date) || compare(a.name, b.name));

/**
 * Follows the keyset from the start, `limit` at a time, and returns every page. Stops after
 * `maxPages`, so a store whose keyset does not move fails the test instead of hanging it.
 */
async function pagesOf<R extends { id: string }>(fetch: (after: R | undefined) => Promise<R[]>, limit: number, maxPages: number): Promise<R[][]> {
  const pages: R[][] = [];
  let after: R | undefined;
  while (pages.length < maxPages) {
    const page = await fetch(after);
    if (page.length === 0) return pages;
    pages.push(page);
    if (page.length < limit) return pages;
    after = page[page.length - 1];
  }
  return pages;
}

export function runStoreContract(options: StoreContractOptions, framework: ContractFramework): void {
  const { describe, test, expect } = framework;

  /** Runs `body` on a fresh store holding the standard fixture, and disposes of it whatever happens. */
  const withStore = (body: (store: Store, fixture: ContractFixture, under: StoreUnderTest) => Promise<void>) => withFixture(standardFixture(), body);

  /** Runs `body` on a fresh store holding `fixture`, and disposes of it whatever happens. */
  const withFixture = (fixture: ContractFixture, body: (store: Store, fixture: ContractFixture, under: StoreUnderTest) => Promise<void>) => async () => {
    const under = await options.create(fixture);
    try {
      await body(under.store, fixture, under);
    } finally {
      await under.dispose();
    }
  };

  // Every read of a page also asks the store's text form of it, where it has one
  // (lib/record-text.ts), which must be the records' JSON to the byte.
  const employees = async (store: Store, q: Partial<EmployeePageQuery> = {}) => {
    const query = { organisationId: I.orgA, limit: 100, ...q };
    const records = await store.listEmployees(query);
    if (store.listEmployeesText) {
      expect(await store.listEmployeesText(query)).toEqual(records.map((e) => ({ key: e.updated_at, id: e.id, json: JSON.stringify(employeeJson(e)) })));
    }
    return records;
  };
  const deletions = (store: Store, q: Partial<DeletionPageQuery> = {}) =>
    store.listDeletions({ organisationId: I.orgA, resource: "leave-requests", deletedSince: T0, limit: 100, ...q });
  const leave = async (store: Store, q: Partial<LeavePageQuery> = {}) => {
    const query = { organisationId: I.orgA, ...QUERY_RANGE, limit: 100, ...q };
    const records = await store.listOverlappingLeave(query);
    if (store.listOverlappingLeaveText) {
      expect(await store.listOverlappingLeaveText(query)).toEqual(
        records.map((b) => ({ key: b.start_date, id: b.id, json: JSON.stringify(leaveBookingJson(b)) })),
      );
    }
    return records;
  };

  describe(`Store contract: ${options.name}`, () => {
    describe("installationKey", () => {
      test(
        "is at least 32 bytes and the same on every call, concurrent ones included",
        withStore(async (store) => {
          const keys = await Promise.all([store.installationKey(), store.installationKey(), store.installationKey()]);
          const again = await store.installationKey();
          expect(again instanceof Uint8Array).toBe(true);
          expect(again.length).toBeGreaterThanOrEqual(32);
          for (const key of keys) expect([...key]).toEqual([...again]);
        }),
      );
    });

    describe("findClient", () => {
      const credentials = (fixture: ContractFixture, clientId: string, api_enabled: boolean): ClientCredentials => ({
        ...fixture.clients.find((c) => c.client_id === clientId)!,
        api_enabled,
      });

      test(
        "returns a live client with its secret digest and its organisation's switch",
        withStore(async (store, fixture) => {
          expect(await store.findClient(I.clients.live)).toEqual(credentials(fixture, I.clients.live, true));
        }),
      );

      test(
        "returns a revoked client, with revoked_at",
        withStore(async (store, fixture) => {
          const client = await store.findClient(I.clients.revoked);
          expect(client).toEqual(credentials(fixture, I.clients.revoked, true));
          expect(client?.revoked_at).toBe(T0 + 86_400_000);
        }),
      );

      test(
        "says when the organisation's API access is off",
        withStore(async (store, fixture) => {
          expect(await store.findClient(I.clients.apiOff)).toEqual(credentials(fixture, I.clients.apiOff, false));
        }),
      );

      test(
        "returns null for an unknown client",
        withStore(async (store) => {
          expect(await store.findClient("svcc_ffffffffffffffffffffffff")).toBeNull();
          expect(await store.findClient("")).toBeNull();
        }),
      );
    });

    describe("saveToken and findToken", () => {
      const grantOf = (fixture: ContractFixture, digest: string) => fixture.tokens.find((t) => t.digest === digest)!.grant;

      test(
        "finds a live token's grant",
        withStore(async (store, fixture) => {
          expect(await store.findToken(I.tokens.live)).toEqual(grantOf(fixture, I.tokens.live));
        }),
      );

      test(
        "leaves expiry to the caller: an expired token of a live client comes back with its expires_at",
        withStore(async (store) => {
          expect(await store.findToken(I.tokens.expired)).toMatchObject({ client_id: I.clients.live, expires_at: T0 - 1 });
        }),
      );

      test(
        "returns null for an unknown token, a revoked client's and one whose organisation's API is off",
        withStore(async (store) => {
          expect(await store.findToken("f".repeat(64))).toBeNull();
          expect(await store.findToken(I.tokens.revoked)).toBeNull();
          expect(await store.findToken(I.tokens.apiOff)).toBeNull();
        }),
      );

      test(
        "finds a newly saved token, and the others still",
        withStore(async (store, fixture) => {
          const grant = { organisation_id: I.orgA, client_id: I.clients.live, scopes: ["holidays:read" as const], expires_at: T0 + 3_600_000 };
          await store.saveToken("e".repeat(64), grant);
          expect(await store.findToken("e".repeat(64))).toEqual(grant);
          expect(await store.findToken(I.tokens.live)).toEqual(grantOf(fixture, I.tokens.live));
        }),
      );
    });

    describe("switching API access off", () => {
      const grant = (expires_at = T0 + 3_600_000) => ({
        organisation_id: I.orgA,
        client_id: I.clients.live,
        scopes: ["leave:read" as const],
        expires_at,
      });

      test(
        "forgets the organisation's tokens for good: switching it on again brings none back",
        withStore(async (store, fixture, under) => {
          await store.saveToken("e".repeat(64), grant());
          expect(await store.findToken(I.tokens.live)).toEqual(fixture.tokens.find((t) => t.digest === I.tokens.live)!.grant);
          await under.setApiEnabled(I.orgA, false);
          await under.setApiEnabled(I.orgA, true);
          for (const digest of [I.tokens.live, I.tokens.expired, "e".repeat(64)]) expect(await store.findToken(digest)).toBeNull();
          // New tokens work again.
          await store.saveToken("f".repeat(64), grant());
          expect(await store.findToken("f".repeat(64))).toEqual(grant());
        }),
      );

      test(
        "saveToken keeps nothing while access is off, so a token that raced the switch stays dead",
        withStore(async (store, _fixture, under) => {
          await under.setApiEnabled(I.orgA, false);
          await store.saveToken("e".repeat(64), grant());
          await store.saveToken("f".repeat(64), { ...grant(), organisation_id: I.orgB, client_id: I.clients.apiOff });
          await under.setApiEnabled(I.orgA, true);
          await under.setApiEnabled(I.orgB, true);
          for (const digest of ["e".repeat(64), "f".repeat(64), I.tokens.apiOff]) expect(await store.findToken(digest)).toBeNull();
        }),
      );

      test(
        "leaves other organisations' tokens alone",
        withStore(async (store, _fixture, under) => {
          await under.setApiEnabled(I.orgB, true);
          const orgB = { ...grant(), organisation_id: I.orgB, client_id: I.clients.apiOff };
          await store.saveToken("f".repeat(64), orgB);
          await under.setApiEnabled(I.orgA, false);
          expect(await store.findToken("f".repeat(64))).toEqual(orgB);
        }),
      );
    });

    describe("takeRateSlot and checkRateLimit", () => {
      const allowed: RateDecision = { allowed: true };
      const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });

      test(
        "allows exactly `limit` events, then refuses until the oldest leaves the window",
        withStore(async (store) => {
          for (const t of [100, 200, 300]) expect(await store.takeRateSlot("k", T0 + t, 3, 1000)).toEqual(allowed);
          expect(await store.takeRateSlot("k", T0 + 400, 3, 1000)).toEqual(refused(700));
          expect(await store.takeRateSlot("k", T0 + 1099, 3, 1000)).toEqual(refused(1));
          // The window is (now − windowMs, now]: at 1100 the event at 100 has left it.
          expect(await store.takeRateSlot("k", T0 + 1100, 3, 1000)).toEqual(allowed);
          expect(await store.takeRateSlot("k", T0 + 1150, 3, 1000)).toEqual(refused(50));
        }),
      );

      test(
        "records nothing when it refuses",
        withStore(async (store) => {
          for (const t of [0, 10]) expect(await store.takeRateSlot("k", T0 + t, 2, 1000)).toEqual(allowed);
          for (const t of [20, 30, 40]) expect(await store.takeRateSlot("k", T0 + t, 2, 1000)).toEqual(refused(1000 - t));
          // Had the refusals counted, the window (0, 1000] would still be full.
          expect(await store.takeRateSlot("k", T0 + 1000, 2, 1000)).toEqual(allowed);
        }),
      );

      test(
        "keeps keys apart",
        withStore(async (store) => {
          expect(await store.takeRateSlot("a", T0, 1, 1000)).toEqual(allowed);
          expect(await store.takeRateSlot("a", T0, 1, 1000)).toEqual(refused(1000));
          expect(await store.takeRateSlot("b", T0, 1, 1000)).toEqual(allowed);
          expect(await store.checkRateLimit("c", T0, 1, 1000)).toEqual(allowed);
        }),
      );

      test(
        "never lets concurrent callers exceed the limit",
        withStore(async (store) => {
          const decisions = await Promise.all(Array.from({ length: 20 }, () => store.takeRateSlot("burst", T0, 10, 60_000)));
          expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
          expect(decisions.filter((d) => !d.allowed)).toEqual(Array.from({ length: 10 }, () => refused(60_000)));
        }),
      );

      test(
        "checkRateLimit looks without recording, and answers as takeRateSlot would",
        withStore(async (store) => {
          for (let i = 0; i < 5; i++) expect(await store.checkRateLimit("k", T0, 2, 1000)).toEqual(allowed);
          expect(await store.takeRateSlot("k", T0, 2, 1000)).toEqual(allowed);
          expect(await store.takeRateSlot("k", T0 + 100, 2, 1000)).toEqual(allowed);
          expect(await store.checkRateLimit("k", T0 + 300, 2, 1000)).toEqual(refused(700));
          expect(await store.takeRateSlot("k", T0 + 300, 2, 1000)).toEqual(refused(700));
          expect(await store.checkRateLimit("k", T0 + 1000, 2, 1000)).toEqual(allowed);
        }),
      );
    });

    describe("takeRateSlotAndSaveToken", () => {
      const allowed: RateDecision = { allowed: true };
      const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });
      const grant = { organisation_id: I.orgA, client_id: I.clients.live, scopes: ["leave:read" as const], expires_at: T0 + 3_600_000 };
      const slot = (at: number, limit: number) => ({ key: "token-requests:k", now: T0 + at, limit, windowMs: 1000 });
      const digest = (n: number) => n.toString(16).padStart(64, "d");

      test(
        "takes the slot and saves the token; refused, it records nothing and saves nothing",
        withStore(async (store) => {
          expect(await store.takeRateSlotAndSaveToken(slot(0, 2), digest(1), grant)).toEqual(allowed);
          expect(await store.takeRateSlotAndSaveToken(slot(100, 2), digest(2), grant)).toEqual(allowed);
          expect(await store.takeRateSlotAndSaveToken(slot(300, 2), digest(3), grant)).toEqual(refused(700));
          expect(await store.findToken(digest(1))).toEqual(grant);
          expect(await store.findToken(digest(2))).toEqual(grant);
          expect(await store.findToken(digest(3))).toBeNull();
          // Had the refusal counted, the window (0, 1000] would still be full.
          expect(await store.takeRateSlotAndSaveToken(slot(1000, 2), digest(4), grant)).toEqual(allowed);
          expect(await store.findToken(digest(4))).toEqual(grant);
        }),
      );

      test(
        "counts under the same key as takeRateSlot and checkRateLimit",
        withStore(async (store) => {
          const { key, windowMs } = slot(0, 2);
          expect(await store.takeRateSlot(key, T0, 2, windowMs)).toEqual(allowed);
          expect(await store.takeRateSlotAndSaveToken(slot(10, 2), digest(1), grant)).toEqual(allowed);
          expect(await store.checkRateLimit(key, T0 + 20, 2, windowMs)).toEqual(refused(980));
          expect(await store.takeRateSlotAndSaveToken(slot(20, 2), digest(2), grant)).toEqual(refused(980));
          expect(await store.takeRateSlot(key, T0 + 20, 2, windowMs)).toEqual(refused(980));
        }),
      );

      test(
        "takes the slot but keeps no token while the organisation's API access is off",
        withStore(async (store, _fixture, under) => {
          await under.setApiEnabled(I.orgA, false);
          expect(await store.takeRateSlotAndSaveToken(slot(0, 1), digest(1), grant)).toEqual(allowed);
          expect(await store.checkRateLimit(slot(0, 1).key, T0, 1, 1000)).toEqual(refused(1000));
          await under.setApiEnabled(I.orgA, true);
          expect(await store.findToken(digest(1))).toBeNull();
        }),
      );

      test(
        "never lets concurrent callers exceed the limit, and saves exactly the tokens of the slots taken",
        withStore(async (store) => {
          const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => store.takeRateSlotAndSaveToken(slot(0, 10), digest(i), grant)));
          expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
          const found = await Promise.all(decisions.map((_, i) => store.findToken(digest(i))));
          expect(found.map((g) => g !== null)).toEqual(decisions.map((d) => d.allowed));
        }),
      );
    });

    describe("sweepRateEvents", () => {
      const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });

      test(
        "deletes every key's events at or before now − windowMs, and keeps the later ones",
        withStore(async (store) => {
          await store.takeRateSlot("auth-failures:one-off", T0, 10, 1000);
          await store.takeRateSlot("auth-failures:one-off", T0 + 100, 10, 1000);
          await store.takeRateSlot("other", T0 + 50, 10, 1000);
          expect(await store.sweepRateEvents(T0 + 1000, 1000)).toBe(1);
          expect(await store.sweepRateEvents(T0 + 1000, 1000)).toBe(0);
          // A longer window sees what is left: of one-off's events only the one at 100, so
          // exactly one more fits under a limit of 2, and then the wait is for that one.
          expect(await store.takeRateSlot("auth-failures:one-off", T0 + 1000, 2, 60_000)).toEqual({ allowed: true });
          expect(await store.takeRateSlot("auth-failures:one-off", T0 + 1000, 2, 60_000)).toEqual(refused(59_100));
          expect(await store.checkRateLimit("other", T0 + 1000, 1, 60_000)).toEqual(refused(59_050));
        }),
      );
    });

    describe("listEmployees", () => {
      test(
        "lists the organisation's live employees in (updated_at, id) order, ties broken by id",
        withStore(async (store, fixture) => {
          const list = await employees(store);
          expect(idsOf(list)).toEqual(EMPLOYEE_ORDER);
          expect(list).toEqual(EMPLOYEE_ORDER.map((id) => expectedEmployee(fixture, id)));
        }),
      );

      test(
        "leaves out deleted employees and other organisations'",
        withStore(async (store, fixture) => {
          expect(idsOf(await employees(store))).toEqual(EMPLOYEE_ORDER.filter((id) => id !== E.ivy));
          expect(await employees(store, { organisationId: I.orgB })).toEqual([expectedEmployee(fixture, E.zed)]);
        }),
      );

      test(
        "returns what lies strictly after the keyset position, held by a record or not",
        withStore(async (store) => {
          expect(idsOf(await employees(store, { after: { updatedAt: U[2], id: E.cy } }))).toEqual(EMPLOYEE_ORDER.slice(2));
          expect(idsOf(await employees(store, { after: { updatedAt: U[2], id: ZERO_ID } }))).toEqual(EMPLOYEE_ORDER.slice(1));
          expect(idsOf(await employees(store, { after: { updatedAt: U[1], id: E.ada } }))).toEqual(EMPLOYEE_ORDER.slice(1));
          expect(await employees(store, { after: { updatedAt: U[5], id: E.hal } })).toEqual([]);
        }),
      );

      test(
        "returns at most `limit`, and pages join up to the whole list",
        withStore(async (store) => {
          expect(idsOf(await employees(store, { limit: 1 }))).toEqual([E.ada]);
          for (const limit of [1, 2, 3]) {
            const next = (last: EmployeeRecord | undefined) =>
              employees(store, { limit, ...(last ? { after: { updatedAt: last.updated_at, id: last.id } } : {}) });
            const pages = await pagesOf(next, limit, EMPLOYEE_ORDER.length + 1);
            for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
            expect(idsOf(pages.flat())).toEqual(EMPLOYEE_ORDER);
          }
        }),
      );

      test(
        "filters by exact status",
        withStore(async (store) => {
          expect(idsOf(await employees(store, { status: "terminated" }))).toEqual([E.ed, E.fay]);
          expect(await employees(store, { status: "Terminated" })).toEqual([]);
          expect(await employees(store, { status: "termin" })).toEqual([]);
        }),
      );

      test(
        "filters by updated_at ≥ updatedSince",
        withStore(async (store) => {
          expect(idsOf(await employees(store, { updatedSince: U[2] }))).toEqual(EMPLOYEE_ORDER.slice(1));
          expect(idsOf(await employees(store, { updatedSince: U[2] + 1 }))).toEqual([E.ed, E.fay, E.gus, E.hal]);
        }),
      );

      test(
        "combines filters with the keyset and the limit",
        withStore(async (store) => {
          const q = { status: "active", updatedSince: U[2], after: { updatedAt: U[2], id: E.cy } };
          expect(idsOf(await employees(store, q))).toEqual([E.di, E.bo, E.gus, E.hal]);
          expect(idsOf(await employees(store, { ...q, limit: 3 }))).toEqual([E.di, E.bo, E.gus]);
        }),
      );
    });

    describe("findEmployee", () => {
      test(
        "returns one live employee of the organisation",
        withStore(async (store, fixture) => {
          expect(await store.findEmployee(I.orgA, E.cy)).toEqual(expectedEmployee(fixture, E.cy));
          expect(await store.findEmployee(I.orgB, E.zed)).toEqual(expectedEmployee(fixture, E.zed));
        }),
      );

      test(
        "returns null for a deleted, unknown or other organisation's employee",
        withStore(async (store) => {
          expect(await store.findEmployee(I.orgA, E.ivy)).toBeNull();
          expect(await store.findEmployee(I.orgA, ZERO_ID)).toBeNull();
          expect(await store.findEmployee(I.orgA, E.zed)).toBeNull();
          expect(await store.findEmployee(I.orgB, E.ada)).toBeNull();
        }),
      );
    });

    describe("listOverlappingLeave", () => {
      test(
        "lists annual bookings overlapping [from, to] in (start_date, id) order",
        withStore(async (store, fixture) => {
          const list = await leave(store);
          expect(idsOf(list)).toEqual(LEAVE_ORDER);
          expect(list).toEqual(LEAVE_ORDER.map((id) => expectedBooking(fixture, id)));
        }),
      );

      test(
        "counts touching either end as overlap, and the day beyond as not",
        withStore(async (store) => {
          expect(idsOf(await leave(store, { from: "2026-03-01", to: "2026-03-01" }))).toEqual([B.long, B.endsOnFrom]);
          expect(idsOf(await leave(store, { from: "2026-03-31", to: "2026-03-31" }))).toEqual([B.long, B.startsOnTo]);
          expect(idsOf(await leave(store, { from: "2026-02-28", to: "2026-02-28" }))).toEqual([B.long, B.endsOnFrom, B.endsDayBefore]);
          expect(idsOf(await leave(store, { from: "2026-04-01", to: "2026-04-30" }))).toEqual([B.startsOnTo, B.startsDayAfter]);
        }),
      );

      test(
        "finds a long booking that started months before `from`",
        withStore(async (store) => {
          expect(idsOf(await leave(store, { from: "2026-01-10", to: "2026-01-20" }))).toEqual([B.long]);
          expect(idsOf(await leave(store, { from: "2025-10-01", to: "2025-10-01" }))).toEqual([B.long]);
          expect(await leave(store, { from: "2025-09-30", to: "2025-09-30" })).toEqual([]);
        }),
      );

      test(
        "leaves out other categories, deleted bookings, deleted employees' and other organisations'",
        withStore(async (store, fixture) => {
          const all = [B.long, B.endsOnFrom, B.endsDayBefore, B.sameStart, B.inside, B.halfDay, B.endHalf, B.startsOnTo, B.startsDayAfter];
          expect(idsOf(await leave(store, { from: "0001-01-01", to: "9999-12-31" }))).toEqual(all);
          expect(await leave(store, { employeeId: E.ivy })).toEqual([]);
          expect(await leave(store, { organisationId: I.orgB })).toEqual([expectedBooking(fixture, B.orgB)]);
        }),
      );

      test(
        "returns what lies strictly after the keyset position, held by a record or not",
        withStore(async (store) => {
          expect(idsOf(await leave(store, { after: { startDate: "2026-03-02", id: B.sameStart } }))).toEqual(LEAVE_ORDER.slice(3));
          expect(idsOf(await leave(store, { after: { startDate: "2026-03-02", id: ZERO_ID } }))).toEqual(LEAVE_ORDER.slice(2));
          expect(idsOf(await leave(store, { after: { startDate: "2025-10-01", id: B.long } }))).toEqual(LEAVE_ORDER.slice(1));
          expect(await leave(store, { after: { startDate: "2026-03-31", id: B.startsOnTo } })).toEqual([]);
        }),
      );

      test(
        "returns at most `limit`, and pages join up to the whole list",
        withStore(async (store) => {
          expect(idsOf(await leave(store, { limit: 2 }))).toEqual(LEAVE_ORDER.slice(0, 2));
          for (const limit of [1, 2, 3]) {
            const next = (last: LeaveBookingRecord | undefined) =>
              leave(store, { limit, ...(last ? { after: { startDate: last.start_date, id: last.id } } : {}) });
            const pages = await pagesOf(next, limit, LEAVE_ORDER.length + 1);
            for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
            expect(idsOf(pages.flat())).toEqual(LEAVE_ORDER);
          }
        }),
      );

      test(
        "filters by status, employee and updated_at ≥ updatedSince",
        withStore(async (store) => {
          expect(idsOf(await leave(store, { status: "approved" }))).toEqual([B.long, B.inside, B.endHalf]);
          expect(idsOf(await leave(store, { status: "pending" }))).toEqual([B.endsOnFrom]);
          expect(idsOf(await leave(store, { status: "rejected" }))).toEqual([B.startsOnTo]);
          expect(idsOf(await leave(store, { status: "cancelled" }))).toEqual([B.sameStart]);
          expect(idsOf(await leave(store, { status: "cancellation_requested" }))).toEqual([B.halfDay]);
          expect(idsOf(await leave(store, { employeeId: E.ada }))).toEqual([B.long, B.inside]);
          expect(idsOf(await leave(store, { employeeId: E.bo }))).toEqual([B.endsOnFrom, B.endHalf]);
          expect(idsOf(await leave(store, { updatedSince: U[5] }))).toEqual([B.long, B.sameStart, B.halfDay, B.endHalf]);
          expect(idsOf(await leave(store, { updatedSince: U[5] + 1 }))).toEqual([B.long, B.endHalf]);
        }),
      );

      test(
        "combines filters with the keyset and the limit",
        withStore(async (store) => {
          const q = { status: "approved" as const, updatedSince: U[2], after: { startDate: "2026-03-01", id: ZERO_ID } };
          expect(idsOf(await leave(store, q))).toEqual([B.inside, B.endHalf]);
          expect(idsOf(await leave(store, { ...q, employeeId: E.ada, limit: 1 }))).toEqual([B.inside]);
        }),
      );
    });

    describe("listDeletions", () => {
      // The fixture's deleted records were deleted at their updated_at: Ivy at U[6], which
      // hid her booking then too, and the deleted booking at U[3]. The sick booking was
      // never listed, so it has no tombstone.
      test(
        "lists the tombstones of one resource in (deleted_at, id) order, with the instant each record stopped being listed",
        withStore(async (store) => {
          expect(await deletions(store, { resource: "employees" })).toEqual([{ id: E.ivy, deleted_at: U[6] }]);
          expect(await deletions(store)).toEqual([
            { id: B.deleted, deleted_at: U[3] },
            { id: B.ofDeletedEmployee, deleted_at: U[6] },
          ]);
        }),
      );

      test(
        "filters by deleted_at ≥ deletedSince",
        withStore(async (store) => {
          expect(idsOf(await deletions(store, { deletedSince: U[3] }))).toEqual([B.deleted, B.ofDeletedEmployee]);
          expect(idsOf(await deletions(store, { deletedSince: U[3] + 1 }))).toEqual([B.ofDeletedEmployee]);
          expect(idsOf(await deletions(store, { resource: "employees", deletedSince: U[6] }))).toEqual([E.ivy]);
          expect(await deletions(store, { resource: "employees", deletedSince: U[6] + 1 })).toEqual([]);
        }),
      );

      test(
        "returns what lies strictly after the keyset position, at most `limit`",
        withStore(async (store) => {
          expect(idsOf(await deletions(store, { limit: 1 }))).toEqual([B.deleted]);
          expect(idsOf(await deletions(store, { after: { deletedAt: U[3], id: B.deleted } }))).toEqual([B.ofDeletedEmployee]);
          expect(idsOf(await deletions(store, { after: { deletedAt: U[3], id: ZERO_ID } }))).toEqual([B.deleted, B.ofDeletedEmployee]);
          expect(await deletions(store, { after: { deletedAt: U[6], id: B.ofDeletedEmployee } })).toEqual([]);
        }),
      );

      test(
        "keeps organisations apart, and lists no live record",
        withStore(async (store) => {
          expect(await deletions(store, { organisationId: I.orgB })).toEqual([]);
          expect(await deletions(store, { organisationId: I.orgB, resource: "employees" })).toEqual([]);
          const listed = new Set([...idsOf(await employees(store)), ...idsOf(await leave(store, { from: "0001-01-01", to: "9999-12-31" }))]);
          for (const resource of ["employees", "leave-requests"] as const) {
            for (const d of await deletions(store, { resource })) expect(listed.has(d.id)).toBe(false);
          }
        }),
      );
    });

    describe("sweepDeletions", () => {
      // The fixture's tombstones: the deleted booking at U[3]; Ivy and her booking at U[6].
      test(
        "takes only tombstones older than `before`, of every organisation, says how many, and keeps the rest listed (or keeps them all)",
        withStore(async (store) => {
          const swept = await store.sweepDeletions(U[6]);
          // A store may keep tombstones it derives from rows it must keep; one that sweeps takes exactly the older ones.
          expect(swept === 0 || swept === 1).toBe(true);
          const older = swept === 0 ? [{ id: B.deleted, deleted_at: U[3] }] : [];
          expect(await deletions(store, { deletedSince: 0 })).toEqual([...older, { id: B.ofDeletedEmployee, deleted_at: U[6] }]);
          expect(await deletions(store, { resource: "employees", deletedSince: 0 })).toEqual([{ id: E.ivy, deleted_at: U[6] }]);
          expect(await store.sweepDeletions(U[6])).toBe(0);
          // Listing from a later instant, as the feed does once the horizon has passed them, is unchanged.
          expect(await deletions(store, { deletedSince: U[6] })).toEqual([{ id: B.ofDeletedEmployee, deleted_at: U[6] }]);
        }),
      );
    });

    describe("listClosureDays", () => {
      test(
        "lists live closure days within [from, to], both ends included",
        withStore(async (store, fixture) => {
          const expected = [I.closures.onFrom, I.closures.inside, I.closures.onTo].map((id) => expectedClosure(fixture, id));
          expect(byDateAndName(await store.listClosureDays(I.orgA, QUERY_RANGE.from, QUERY_RANGE.to))).toEqual(expected);
          expect(await store.listClosureDays(I.orgA, "2026-03-16", "2026-03-16")).toEqual([expectedClosure(fixture, I.closures.inside)]);
        }),
      );

      test(
        "leaves out deleted days and other organisations'",
        withStore(async (store, fixture) => {
          expect(await store.listClosureDays(I.orgA, "2026-03-15", "2026-03-15")).toEqual([]);
          expect(await store.listClosureDays(I.orgA, "2026-03-10", "2026-03-10")).toEqual([]);
          expect(await store.listClosureDays(I.orgB, QUERY_RANGE.from, QUERY_RANGE.to)).toEqual([expectedClosure(fixture, I.closures.orgB)]);
        }),
      );
    });

    describe("observedCalendars", () => {
      test(
        "lists the distinct calendars of live employees employed in the range, sorted",
        withStore(async (store) => {
          // Leaving on `from` and starting on `to` both count; null calendars and the deleted employee's do not.
          expect(await store.observedCalendars(I.orgA, "2026-01-01", "2026-12-31")).toEqual(["gb-eng", "gb-nir", "gb-sct", "nl"]);
          expect(await store.observedCalendars(I.orgA, "2025-06-01", "2025-12-31")).toEqual(["gb-eng", "gb-nir", "gb-sct", "gb-wls"]);
        }),
      );

      test(
        "counts a null start or leaving date as open-ended",
        withStore(async (store) => {
          expect(await store.observedCalendars(I.orgA, "1990-01-01", "1990-12-31")).toEqual(["gb-eng"]);
          expect(await store.observedCalendars(I.orgA, "2030-01-01", "2030-12-31")).toEqual(["fr", "gb-eng", "gb-sct", "nl"]);
        }),
      );

      test(
        "keeps organisations apart",
        withStore(async (store) => {
          expect(await store.observedCalendars(I.orgB, "2026-01-01", "2026-12-31")).toEqual(["de"]);
        }),
      );

      // A store may answer from the latest hire before the range's end (the SQL store does):
      // here the latest hires of "se" left before the range, and an earlier one is still there.
      const leavers = standardFixture();
      const leaver = (n: number, fields: Partial<ContractFixture["employees"][number]>) => ({
        ...leavers.employees.find((e) => e.id === I.employees.ada)!,
        id: fixtureUuid("e9000000", n),
        ...fields,
      });
      leavers.employees.push(
        leaver(1, { holiday_calendar: "aa", deleted: true }),
        leaver(2, { holiday_calendar: "se", start_date: "2010-01-01" }),
        leaver(3, { holiday_calendar: "se", start_date: "2015-01-01", leaving_date: "2016-06-30" }),
        leaver(4, { holiday_calendar: "se", start_date: "2016-01-01", leaving_date: "2016-12-31" }),
        leaver(5, { holiday_calendar: "pt", start_date: "2010-01-01", leaving_date: "2012-12-31" }),
        leaver(6, { holiday_calendar: "no", start_date: null, leaving_date: "1999-12-31" }),
      );
      test(
        "looks past leavers to anyone employed in the range, whatever their hire order",
        withFixture(leavers, async (store) => {
          expect(await store.observedCalendars(I.orgA, "2020-01-01", "2020-12-31")).toEqual(["gb-eng", "gb-nir", "gb-wls", "se"]);
          expect(await store.observedCalendars(I.orgA, "2012-12-31", "2012-12-31")).toEqual(["gb-eng", "pt", "se"]);
          expect(await store.observedCalendars(I.orgA, "1999-12-31", "2009-12-31")).toEqual(["gb-eng", "no"]);
          expect(await store.observedCalendars(I.orgA, "2000-01-01", "2009-12-31")).toEqual(["gb-eng"]);
        }),
      );
    });

    describe("listImportedPublicHolidays", () => {
      const holidays = async (store: Store, orgId: string, calendars: string[], fromYear: number, toYear: number) =>
        (await store.listImportedPublicHolidays(orgId, calendars, fromYear, toYear)).sort((a, b) => compare(a.calendar, b.calendar) || compare(a.date, b.date));

      test(
        "filters by calendar and by year",
        withStore(async (store) => {
          expect(await holidays(store, I.orgA, ["gb-eng"], 2026, 2026)).toEqual([
            { calendar: "gb-eng", date: "2026-01-01", name: "New Year's Day" },
            { calendar: "gb-eng", date: "2026-12-25", name: "Christmas Day" },
          ]);
          expect(await holidays(store, I.orgA, ["gb-eng"], 2027, 2027)).toEqual([{ calendar: "gb-eng", date: "2027-01-01", name: "New Year's Day" }]);
          expect(await holidays(store, I.orgA, ["gb-sct", "gb-eng"], 2026, 2027)).toHaveLength(4);
          expect(await holidays(store, I.orgA, ["gb-sct"], 2026, 2027)).toEqual([{ calendar: "gb-sct", date: "2026-01-02", name: "2nd January" }]);
          expect(await holidays(store, I.orgA, ["gb-eng"], 2028, 2030)).toEqual([]);
        }),
      );

      test(
        "returns nothing for no calendars, unknown ones or another organisation's",
        withStore(async (store) => {
          expect(await holidays(store, I.orgA, [], 2026, 2027)).toEqual([]);
          expect(await holidays(store, I.orgA, ["fr"], 2026, 2027)).toEqual([]);
          expect(await holidays(store, I.orgB, ["gb-eng"], 2026, 2026)).toEqual([
            { calendar: "gb-eng", date: "2026-05-04", name: "Another organisation's holiday" },
          ]);
        }),
      );
    });

    describe("ping", () => {
      test(
        "resolves when the database answers",
        withStore(async (store) => {
          expect(await store.ping().then(() => "answered")).toBe("answered");
        }),
      );
    });
  });
}
