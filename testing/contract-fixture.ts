/**
 * The data the Store contract runs on: plain records (instants as epoch milliseconds) that a
 * store under test must hold exactly, and `standardFixture()`, the rich set whose every
 * record sits on an edge some promise of `Store` talks about. Runtime-neutral: imports
 * only lib/ types, so it ships as `leaveapi/testing`.
 */
import type { AdminStore } from "../lib/admin-store.ts";
import { writeStoreContents } from "../lib/store-contents.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import { aStoredBooking, aStoredClosureDay, aStoredEmployee, aStoredLeaveType } from "./record-builders.ts";
import type {
  StoreContents,
  StoredBooking,
  StoredClient,
  StoredClosureDay,
  StoredEmployee,
  StoredLeaveType,
  StoredPublicHoliday,
} from "../lib/store-contents.ts";

// The contract's names for the records of lib/store-contents.ts, kept for `leaveapi/testing`.
export type FixtureClient = StoredClient;
export type FixtureEmployee = StoredEmployee;
export type FixtureLeaveType = StoredLeaveType;
export type FixtureBooking = StoredBooking;
export type FixtureClosureDay = StoredClosureDay;
export type FixturePublicHoliday = StoredPublicHoliday;

/**
 * Everything a store under test holds. Deleted records must be stored as deleted (a store
 * may keep or drop them; they must never come back), and the `updated_at` of live records
 * must be returned as given. A deleted record was deleted at its `updated_at`, which is
 * what the deletions feed (`listDeletions`) reports for it. Tokens
 * are kept as `saveToken` keeps them: a store holds none for an organisation whose API
 * access is off (`tokens.apiOff` is one it must not keep).
 */
export type ContractFixture = StoreContents;

/** A UUID for contract data: `prefix` is its first eight hex digits, `n` its last twelve. */
export const fixtureUuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** 2026-01-01T00:00:00Z, and the update instants the fixture's records carry. */
export const T0 = Date.UTC(2026, 0, 1);
export const U = [0, 1, 2, 3, 4, 5, 6].map((n) => T0 + n * 60_000) as [number, number, number, number, number, number, number];

/** The ids of `standardFixture()`, named for the edge each record stands on. */
export const STANDARD_IDS = {
  orgA: fixtureUuid("0a000000", 1),
  /** API access off. */
  orgB: fixtureUuid("0b000000", 2),
  clients: { live: "svcc_000000000000000000000001", revoked: "svcc_000000000000000000000002", apiOff: "svcc_000000000000000000000003" },
  tokens: { live: "a".repeat(64), expired: "b".repeat(64), revoked: "c".repeat(64), apiOff: "d".repeat(64) },
  employees: {
    ada: fixtureUuid("e1000000", 1),
    // Three share one updated_at; listed out of id order, sorted they run cy, di, bo.
    bo: fixtureUuid("e2000000", 0xc),
    cy: fixtureUuid("e2000000", 0xa),
    di: fixtureUuid("e2000000", 0xb),
    ed: fixtureUuid("e3000000", 1),
    fay: fixtureUuid("e4000000", 1),
    gus: fixtureUuid("e5000000", 1),
    hal: fixtureUuid("e5000000", 2),
    ivy: fixtureUuid("e6000000", 1),
    zed: fixtureUuid("e7000000", 1),
  },
  leaveTypes: {
    annual: fixtureUuid("a1000000", 1),
    unpaidAnnual: fixtureUuid("a1000000", 2),
    sick: fixtureUuid("a1000000", 3),
    annualB: fixtureUuid("a2000000", 1),
  },
  bookings: {
    long: fixtureUuid("b0000000", 0x1),
    endsOnFrom: fixtureUuid("b0000000", 0x2),
    startsOnTo: fixtureUuid("b0000000", 0x3),
    endsDayBefore: fixtureUuid("b0000000", 0x4),
    startsDayAfter: fixtureUuid("b0000000", 0x5),
    // Same start date; the later-listed one has the smaller id.
    inside: fixtureUuid("b0000000", 0xf),
    sameStart: fixtureUuid("b0000000", 0xe),
    halfDay: fixtureUuid("b0000000", 0x6),
    endHalf: fixtureUuid("b0000000", 0x7),
    sick: fixtureUuid("b0000000", 0x8),
    deleted: fixtureUuid("b0000000", 0x9),
    ofDeletedEmployee: fixtureUuid("b0000000", 0xa),
    orgB: fixtureUuid("b0000000", 0xb),
  },
  closures: {
    onFrom: fixtureUuid("c0000000", 1),
    onTo: fixtureUuid("c0000000", 2),
    dayBefore: fixtureUuid("c0000000", 3),
    dayAfter: fixtureUuid("c0000000", 4),
    deleted: fixtureUuid("c0000000", 5),
    inside: fixtureUuid("c0000000", 6),
    orgB: fixtureUuid("c0000000", 7),
  },
} as const;

/** The range most leave and closure questions ask about; bookings and closures sit on its edges. */
export const QUERY_RANGE = { from: "2026-03-01", to: "2026-03-31" } as const;

const I = STANDARD_IDS;
const E = I.employees;
const B = I.bookings;

function employee(id: string, updated_at: number, fields: Partial<FixtureEmployee>): FixtureEmployee {
  const typical = { organisation_id: I.orgA, id, first_name: "First", last_name: "Last", holiday_calendar: "gb-eng", updated_at };
  return aStoredEmployee({ ...typical, ...fields });
}

function booking(id: string, employee_id: string, dates: [string, string], updated_at: number, fields: Partial<FixtureBooking>): FixtureBooking {
  const [start_date, end_date] = dates;
  const typical = { organisation_id: I.orgA, id, employee_id, leave_type_id: I.leaveTypes.annual, start_date, end_date, days: 1 };
  return aStoredBooking({ ...typical, requested_at: T0 - 86_400_000, reviewed_at: T0, updated_at, ...fields });
}

function closure(id: string, date: string, fields: Partial<FixtureClosureDay>): FixtureClosureDay {
  return aStoredClosureDay({ organisation_id: I.orgA, id, date, name: "Company day", updated_at: U[1], ...fields });
}

/** A fresh copy of the standard data, safe to mutate. */
export function standardFixture(): ContractFixture {
  const allScopes = ["employees:read", "holidays:read", "leave:read"] as const;
  const client = (client_id: string, organisation_id: string, fields: Partial<FixtureClient>): FixtureClient => ({
    client_id,
    organisation_id,
    name: null,
    scopes: [...allScopes],
    created_at: T0,
    revoked_at: null,
    secret_digest: "0".repeat(64),
    ...fields,
  });
  const grant = (client_id: string, organisation_id: string, expires_at: number): AccessTokenGrant => ({
    client_id,
    organisation_id,
    scopes: ["employees:read", "leave:read"],
    expires_at,
  });
  const holiday = (organisation_id: string, calendar: string, date: string, name: string): FixturePublicHoliday => ({
    organisation_id,
    calendar,
    year: Number(date.slice(0, 4)),
    date,
    name,
  });
  return {
    organisations: [
      { id: I.orgA, name: "Acme Ltd", api_enabled: true, created_at: T0 },
      { id: I.orgB, name: "Borealis GmbH", api_enabled: false, created_at: T0 },
    ],
    clients: [
      client(I.clients.live, I.orgA, { name: "Payroll sync", secret_digest: "1".repeat(64) }),
      client(I.clients.revoked, I.orgA, { scopes: ["leave:read"], revoked_at: T0 + 86_400_000, secret_digest: "2".repeat(64) }),
      client(I.clients.apiOff, I.orgB, { scopes: ["employees:read"], secret_digest: "3".repeat(64) }),
    ],
    tokens: [
      { digest: I.tokens.live, grant: grant(I.clients.live, I.orgA, T0 + 365 * 86_400_000) },
      { digest: I.tokens.expired, grant: grant(I.clients.live, I.orgA, T0 - 1) },
      { digest: I.tokens.revoked, grant: grant(I.clients.revoked, I.orgA, T0 + 365 * 86_400_000) },
      { digest: I.tokens.apiOff, grant: grant(I.clients.apiOff, I.orgB, T0 + 365 * 86_400_000) },
    ],
    employees: [
      employee(E.ada, U[1], { first_name: "Ada", preferred_name: "Addy", start_date: "2020-01-01" }),
      employee(E.bo, U[2], { first_name: "Bo", holiday_calendar: "gb-sct", start_date: "2024-03-01", department: null }),
      employee(E.cy, U[2], { first_name: "Cy", start_date: null, job_title: null }),
      employee(E.di, U[2], { first_name: "Di", holiday_calendar: "nl", start_date: "2026-12-31" }),
      employee(E.ed, U[3], {
        first_name: "Ed",
        status: "terminated",
        start_date: "2019-05-01",
        leaving_date: "2026-01-01",
        holiday_calendar: "gb-nir",
      }),
      employee(E.fay, U[4], { first_name: "Fay", status: "terminated", leaving_date: "2025-12-31", holiday_calendar: "gb-wls" }),
      employee(E.gus, U[5], { first_name: "Gus", holiday_calendar: null, start_date: "2025-01-01" }),
      employee(E.hal, U[5], { first_name: "Hal", holiday_calendar: "fr", start_date: "2027-01-01" }),
      employee(E.ivy, U[6], { first_name: "Ivy", holiday_calendar: "ie", deleted: true }),
      employee(E.zed, U[1], { organisation_id: I.orgB, first_name: "Zed", holiday_calendar: "de" }),
    ],
    leaveTypes: [
      aStoredLeaveType({ organisation_id: I.orgA, id: I.leaveTypes.annual, name: "Annual leave", category: "annual", is_paid: true }),
      aStoredLeaveType({ organisation_id: I.orgA, id: I.leaveTypes.unpaidAnnual, name: "Unpaid annual leave", category: "annual", is_paid: false }),
      aStoredLeaveType({ organisation_id: I.orgA, id: I.leaveTypes.sick, name: "Sickness", category: "sickness", is_paid: true }),
      aStoredLeaveType({ organisation_id: I.orgB, id: I.leaveTypes.annualB, name: "Urlaub", category: "annual", is_paid: true }),
    ],
    bookings: [
      booking(B.long, E.ada, ["2025-10-01", "2026-03-31"], U[6], { days: 127 }),
      booking(B.endsOnFrom, E.bo, ["2026-02-23", "2026-03-01"], U[3], { days: 5, status: "pending", reviewed_at: null }),
      booking(B.startsOnTo, E.cy, ["2026-03-31", "2026-04-03"], U[4], { days: 4, status: "rejected" }),
      booking(B.endsDayBefore, E.ada, ["2026-02-23", "2026-02-28"], U[2], { days: 5 }),
      booking(B.startsDayAfter, E.bo, ["2026-04-01", "2026-04-02"], U[2], { days: 2 }),
      booking(B.inside, E.ada, ["2026-03-02", "2026-03-06"], U[2], { days: 5, requested_at: null, reviewed_at: null }),
      booking(B.sameStart, E.cy, ["2026-03-02", "2026-03-03"], U[5], { days: 2, status: "cancelled", cancelled_at: T0 + 3_600_000 }),
      booking(B.halfDay, E.ed, ["2026-03-20", "2026-03-20"], U[5], {
        leave_type_id: I.leaveTypes.unpaidAnnual,
        start_half_day: true,
        start_half_period: "am",
        end_half_day: true,
        end_half_period: "am",
        days: 0.5,
        status: "cancellation_requested",
      }),
      booking(B.endHalf, E.bo, ["2026-03-25", "2026-03-26"], U[6], { end_half_day: true, end_half_period: "pm", days: 1.5 }),
      booking(B.sick, E.ada, ["2026-03-10", "2026-03-10"], U[2], { leave_type_id: I.leaveTypes.sick }),
      booking(B.deleted, E.ada, ["2026-03-16", "2026-03-17"], U[3], { days: 2, deleted: true }),
      booking(B.ofDeletedEmployee, E.ivy, ["2026-03-10", "2026-03-12"], U[3], { days: 3 }),
      booking(B.orgB, E.zed, ["2026-03-10", "2026-03-10"], U[1], { organisation_id: I.orgB, leave_type_id: I.leaveTypes.annualB }),
    ],
    closureDays: [
      closure(I.closures.onFrom, "2026-03-01", {}),
      closure(I.closures.onTo, "2026-03-31", {
        name: "Engineering offsite",
        applies_to: "department",
        department: "Engineering",
        deducts_from_leave: false,
      }),
      closure(I.closures.dayBefore, "2026-02-28", { name: "Day before" }),
      closure(I.closures.dayAfter, "2026-04-01", { name: "Day after" }),
      closure(I.closures.deleted, "2026-03-15", { name: "Cancelled closure", deleted: true, updated_at: U[2] }),
      closure(I.closures.inside, "2026-03-16", {
        name: "Dublin office closed",
        applies_to: "location",
        location: "Dublin",
        deducts_from_leave: false,
      }),
      closure(I.closures.orgB, "2026-03-10", { organisation_id: I.orgB, name: "Betriebsausflug" }),
    ],
    publicHolidays: [
      holiday(I.orgA, "gb-eng", "2026-01-01", "New Year's Day"),
      holiday(I.orgA, "gb-eng", "2026-12-25", "Christmas Day"),
      holiday(I.orgA, "gb-eng", "2027-01-01", "New Year's Day"),
      holiday(I.orgA, "gb-sct", "2026-01-02", "2nd January"),
      holiday(I.orgB, "gb-eng", "2026-05-04", "Another organisation's holiday"),
    ],
  };
}

/** Distinct values in first-seen order. */
/**
 * Loads a fixture into a migrated, empty `AdminStore` (lib/store-contents.ts,
 * `writeStoreContents`), with the leave types written at T0.
 */
export function writeFixture(store: AdminStore & Store, fixture: ContractFixture): Promise<void> {
  return writeStoreContents(store, fixture, T0);
}
