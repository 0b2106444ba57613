/**
 * What the parts of the AdminStore contract share (admin-store-contract.ts runs them:
 * admin-lifecycle-contract.ts, import-writer-contract.ts): a fresh store per test, the
 * organisations and clients they make, and the records they import.
 */
import type { AdminStore, ClosureDayInput, EmployeeInput, LeaveBookingInput } from "../lib/admin-store.ts";
import type { LeaveTypeRecord } from "../lib/records.ts";
import type { Scope } from "../lib/scopes.ts";
import type { StoredClient } from "../lib/store-contents.ts";
import type { Organisation, Store } from "../lib/store.ts";
import { T0, fixtureUuid } from "./contract-fixture.ts";
import { aClosureDayInput, aLeaveBookingInput, aLeaveType, anEmployeeInput } from "./record-builders.ts";

/** Runs `body` on a fresh store from `create`, and disposes of it whatever happens. */
export type WithAdminStore = (body: (store: Store & AdminStore) => Promise<void>) => () => Promise<void>;

export const ORG_A = fixtureUuid("0a000000", 0xa);
export const ORG_B = fixtureUuid("0b000000", 0xb);
export const NO_ORG = fixtureUuid("0f000000", 0xf);
export const SCOPES: Scope[] = ["employees:read", "leave:read"];

export const organisation = (id: string, fields: Partial<Organisation> = {}): Organisation => ({
  id,
  name: "Acme Ltd",
  api_enabled: true,
  created_at: T0,
  ...fields,
});

export const withoutSecret = ({ secret_digest: _, ...client }: StoredClient) => client;
/** A token digest for the n-th token of a test (tokens are kept by digest only). */
export const tokenDigest = (n: number) => n.toString(16).repeat(64).slice(0, 64);

export const ANNUAL: LeaveTypeRecord = aLeaveType({ id: fixtureUuid("a0000000", 1), name: "Annual leave", category: "annual", is_paid: true });

// Through the record builders (record-builders.ts), so a field added to the field list
// gets its default here too; the values these contracts rely on are written out.

/** An employee as imported, with `fields` over typical values. */
export const employee = (id: string, fields: Partial<EmployeeInput> = {}): EmployeeInput =>
  anEmployeeInput({
    id,
    external_id: null,
    first_name: "Ada",
    last_name: "Lovelace",
    preferred_name: null,
    job_title: "Engineer",
    department: "Engineering",
    status: "active",
    start_date: "2020-01-06",
    leaving_date: null,
    holiday_calendar: "gb-eng",
    ...fields,
  });

export const booking = (id: string, employee_id: string, fields: Partial<LeaveBookingInput> = {}): LeaveBookingInput =>
  aLeaveBookingInput({
    id,
    external_id: null,
    employee_id,
    leave_type_id: ANNUAL.id,
    start_date: "2026-03-02",
    end_date: "2026-03-03",
    start_half_day: false,
    start_half_period: null,
    end_half_day: false,
    end_half_period: null,
    days: 2,
    status: "approved",
    requested_at: T0,
    reviewed_at: T0,
    cancelled_at: null,
    ...fields,
  });

export const closure = (id: string, date: string, fields: Partial<ClosureDayInput> = {}): ClosureDayInput =>
  aClosureDayInput({
    id,
    date,
    name: "Company day",
    applies_to: "all",
    department: null,
    location: null,
    deducts_from_leave: true,
    ...fields,
  });

/** What a promise rejected with, or `null` when it resolved. */
export const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (error: unknown) => error ?? "rejected with nothing",
  );
