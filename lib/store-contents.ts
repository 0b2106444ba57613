/**
 * Everything a Store holds, as plain records (instants as epoch milliseconds): the shape
 * the memory store loads (`MemoryStore.load`) and the Store contract's fixture
 * (`leaveapi/testing` calls it `ContractFixture`). Beside each API record it carries what
 * the API never shows but a store must keep: the organisation, the leave type of a
 * booking by id, a client's secret digest, and whether a record was deleted.
 */
import type { ClosureDayRecord, EmployeeRecord, LeaveBookingRecord, LeaveTypeRecord } from "./records.ts";
import type { AdminStore } from "./admin-store.ts";
import type { AccessTokenGrant, ApiClient, Organisation, Store } from "./store.ts";

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

const distinct = <T>(values: T[]): T[] => [...new Set(values)];

/**
 * Writes `contents` into a migrated, empty `AdminStore` through the same ImportWriter the
 * importer uses (a seed file, the Store contract's fixture). Records are written in groups
 * of one `updated_at`, with that instant as the writer's `now`, so the stored `updated_at`
 * is the contents'; deleted records are written, then deleted. Leave types carry no
 * instant of their own: they are written at `leaveTypesAt`.
 */
export async function writeStoreContents(store: AdminStore & Store, contents: StoreContents, leaveTypesAt: number): Promise<void> {
  for (const org of contents.organisations) await store.createOrganisation(org);
  for (const client of contents.clients) await store.createClient(client);
  for (const token of contents.tokens) await store.saveToken(token.digest, token.grant);
  await store.runImport(async (w) => {
    for (const org of contents.organisations.map((o) => o.id)) {
      const mine = <R extends { organisation_id: string }>(rows: R[]) => rows.filter((r) => r.organisation_id === org);
      // Types first, and never again: changing a type would move its bookings' updated_at.
      await w.upsertLeaveTypes(
        org,
        mine(contents.leaveTypes).map(({ organisation_id: _, ...t }) => t),
        leaveTypesAt,
      );
      const employees = mine(contents.employees);
      for (const now of distinct(employees.map((e) => e.updated_at))) {
        const rows = employees.filter((e) => e.updated_at === now);
        const inputs = rows.map(({ organisation_id: _o, deleted: _d, updated_at: _u, ...e }) => ({ ...e, external_id: null }));
        await w.upsertEmployees(org, inputs, now);
      }
      const bookings = mine(contents.bookings);
      for (const now of distinct(bookings.map((b) => b.updated_at))) {
        const rows = bookings.filter((b) => b.updated_at === now);
        const inputs = rows.map(({ organisation_id: _o, deleted: _d, updated_at: _u, ...b }) => ({ ...b, external_id: null }));
        await w.upsertLeaveBookings(org, inputs, now);
      }
      const closures = mine(contents.closureDays);
      for (const now of distinct(closures.map((c) => c.updated_at))) {
        const rows = closures.filter((c) => c.updated_at === now);
        await w.upsertClosureDays(
          org,
          rows.map(({ organisation_id: _o, deleted: _d, updated_at: _u, ...c }) => c),
          now,
        );
      }
      for (const e of employees.filter((r) => r.deleted)) await w.deleteEmployees(org, [e.id], e.updated_at);
      for (const b of bookings.filter((r) => r.deleted)) await w.deleteLeaveBookings(org, [b.id], b.updated_at);
      for (const c of closures.filter((r) => r.deleted)) await w.deleteClosureDays(org, [c.id], c.updated_at);
      const holidays = mine(contents.publicHolidays);
      for (const key of distinct(holidays.map((h) => `${h.calendar}\u0000${h.year}`))) {
        const rows = holidays.filter((h) => `${h.calendar}\u0000${h.year}` === key);
        const first = rows[0]!;
        await w.replacePublicHolidays(
          org,
          first.calendar,
          first.year,
          rows.map(({ date, name }) => ({ date, name })),
        );
      }
    }
  });
}
