/**
 * What every part of the Store contract shares: the framework it runs on, a fresh store
 * per test (`withStore`, `withFixture`), the page reads that also check the store's text
 * form of each page, and the standard fixture's ids and orders.
 */
import { employeeJson, leaveBookingJson, type ClosureDayRecord, type EmployeeRecord, type LeaveBookingRecord } from "../lib/records.ts";
import type { EmployeeFilters, LeaveFilters } from "../lib/list-filters.ts";
import type { DeletionPageQuery, EmployeePageQuery, LeavePageQuery, ListText, Store } from "../lib/store.ts";
import { QUERY_RANGE, STANDARD_IDS, T0, standardFixture, type ContractFixture } from "./contract-fixture.ts";

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

export const I = STANDARD_IDS;
export const E = I.employees;
export const B = I.bookings;
export const ZERO_ID = "00000000-0000-4000-8000-000000000000";
/** Live employees of the first organisation in (updated_at, id) order. */
export const EMPLOYEE_ORDER = [E.ada, E.cy, E.di, E.bo, E.ed, E.fay, E.gus, E.hal];
/** Annual bookings overlapping QUERY_RANGE in (start_date, id) order. */
export const LEAVE_ORDER = [B.long, B.endsOnFrom, B.sameStart, B.inside, B.halfDay, B.endHalf, B.startsOnTo];

export const idsOf = (records: { id: string }[]) => records.map((r) => r.id);
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function expectedEmployee(fixture: ContractFixture, id: string): EmployeeRecord {
  const { organisation_id: _o, deleted: _d, ...record } = fixture.employees.find((e) => e.id === id)!;
  return record;
}

export function expectedBooking(fixture: ContractFixture, id: string): LeaveBookingRecord {
  const { organisation_id: _o, deleted: _d, leave_type_id, ...record } = fixture.bookings.find((b) => b.id === id)!;
  const { organisation_id: _t, ...leave_type } = fixture.leaveTypes.find((t) => t.id === leave_type_id)!;
  return { ...record, leave_type };
}

export function expectedClosure(fixture: ContractFixture, id: string): ClosureDayRecord {
  const { organisation_id: _o, deleted: _d, id: _i, updated_at: _u, ...record } = fixture.closureDays.find((c) => c.id === id)!;
  return record;
}

export const byDateAndName = (records: ClosureDayRecord[]) => [...records].sort((a, b) => compare(a.date, b.date) || compare(a.name, b.name));

/**
 * Follows the keyset from the start, `limit` at a time, and returns every page. Stops after
 * `maxPages`, so a store whose keyset does not move fails the test instead of hanging it.
 */
export async function pagesOf<R extends { id: string }>(fetch: (after: R | undefined) => Promise<R[]>, limit: number, maxPages: number): Promise<R[][]> {
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

type Body = (store: Store, fixture: ContractFixture, under: StoreUnderTest) => Promise<void>;

/** An employees page query as the contract writes one: the filters beside the rest, anything left out at its default. */
export type EmployeesAsked = Partial<Omit<EmployeePageQuery, "filters">> & EmployeeFilters;
/** A leave page query as the contract writes one: the range defaults to QUERY_RANGE. */
export type LeaveAsked = Partial<Omit<EmployeePageQuery, "filters" | "after">> & Partial<LeaveFilters> & Pick<Partial<LeavePageQuery>, "after">;

/** What each part of the contract is given. */
export interface ContractKit extends ContractFramework {
  /** A test body run on a fresh store holding the standard fixture, disposed of whatever happens. */
  withStore: (body: Body) => () => Promise<void>;
  /** The same on a store holding `fixture`. */
  withFixture: (fixture: ContractFixture, body: Body) => () => Promise<void>;
  /** `listEmployees`, and `listText` where the store has it, which must be the same records to the byte. */
  employees: (store: Store, asked?: EmployeesAsked) => Promise<EmployeeRecord[]>;
  /** `listOverlappingLeave`, and `listText` where the store has it. */
  leave: (store: Store, asked?: LeaveAsked) => Promise<LeaveBookingRecord[]>;
  deletions: (store: Store, q?: Partial<DeletionPageQuery>) => ReturnType<Store["listDeletions"]>;
}

export function employeeQuery(asked: EmployeesAsked = {}): EmployeePageQuery {
  const { organisationId = I.orgA, limit = 100, after, ...filters } = asked;
  return { organisationId, filters, after, limit };
}

export function leaveQuery(asked: LeaveAsked = {}): LeavePageQuery {
  const { organisationId = I.orgA, limit = 100, after, ...filters } = asked;
  return { organisationId, filters: { ...QUERY_RANGE, ...filters }, after, limit };
}

/**
 * The text a store must answer for `records` asked `limit` at a time: `records` is what
 * the record method answers for `limit + 1`, so one more than the page says the list goes on.
 */
export function expectedText<R extends { id: string }>(records: R[], limit: number, json: (r: R) => unknown, key: (r: R) => number | string): ListText {
  const page = records.slice(0, limit);
  const last = page[page.length - 1];
  return { json: JSON.stringify(page.map(json)), count: page.length, hasMore: records.length > limit, last: last ? [key(last), last.id] : null };
}

export function contractKit(options: StoreContractOptions, framework: ContractFramework): ContractKit {
  const { expect } = framework;
  const withFixture = (fixture: ContractFixture, body: Body) => async () => {
    const under = await options.create(fixture);
    try {
      await body(under.store, fixture, under);
    } finally {
      await under.dispose();
    }
  };
  return {
    ...framework,
    withFixture,
    withStore: (body) => withFixture(standardFixture(), body),
    // Every read of a page also asks the store's text form of it, where it has one, which
    // must be the records' JSON to the byte, and must say whether the list goes on.
    employees: async (store, asked) => {
      const query = employeeQuery(asked);
      const records = await store.listEmployees(query);
      if (store.listText) {
        const more = await store.listEmployees({ ...query, limit: query.limit + 1 });
        const text = await store.listText({ list: "employees", query });
        if (text !== null) expect(text).toEqual(expectedText(more, query.limit, employeeJson, (e) => e.updated_at));
      }
      return records;
    },
    leave: async (store, asked) => {
      const query = leaveQuery(asked);
      const records = await store.listOverlappingLeave(query);
      if (store.listText) {
        const more = await store.listOverlappingLeave({ ...query, limit: query.limit + 1 });
        const text = await store.listText({ list: "leave-requests", query });
        if (text !== null) expect(text).toEqual(expectedText(more, query.limit, leaveBookingJson, (b) => b.start_date));
      }
      return records;
    },
    deletions: (store, q = {}) => store.listDeletions({ organisationId: I.orgA, resource: "leave-requests", deletedSince: T0, limit: 100, ...q }),
  };
}
