/**
 * Everything a Store holds, as plain records (instants as epoch milliseconds): the shape
 * the memory store loads (`MemoryStore.load`) and the Store contract's fixture
 * (`leaveapi/testing` calls it `ContractFixture`). Beside each API record it carries what
 * the API never shows but a store must keep: the organisation, the leave type of a
 * booking by id, a client's secret digest, and whether a record was deleted.
 */
import type { ClosureDayRecord, EmployeeRecord, LeaveBookingRecord, LeaveTypeRecord } from "./records.ts";
import type { AccessTokenGrant, ApiClient, Organisation } from "./store.ts";

export type StoredClient = ApiClient & { secret_digest: string };
export type StoredEmployee = EmployeeRecord & { organisation_id: string; deleted: boolean };
export type StoredLeaveType = LeaveTypeRecord & { organisation_id: string };
export type StoredBooking = Omit<LeaveBookingRecord, "leave_type"> & {
  organisation_id: string;
  leave_type_id: string;
  deleted: boolean;
};
export type StoredClosureDay = ClosureDayRecord & { organisation_id: string; id: string; updated_at: number; deleted: boolean };
export interface StoredPublicHoliday {
  organisation_id: string;
  calendar: string;
  year: number;
  date: string;
  name: string;
}
/** A token as `saveToken` keeps it: by the digest of the token, never the token itself. */
export interface StoredToken {
  digest: string;
  grant: AccessTokenGrant;
}

/**
 * The whole of a store's data. Deleted records are kept as deleted: a store may keep or
 * drop them, but they never come back from a read. The `updated_at` of live records is
 * the one a read returns.
 */
export interface StoreContents {
  organisations: Organisation[];
  clients: StoredClient[];
  tokens: StoredToken[];
  employees: StoredEmployee[];
  leaveTypes: StoredLeaveType[];
  bookings: StoredBooking[];
  closureDays: StoredClosureDay[];
  publicHolidays: StoredPublicHoliday[];
}
