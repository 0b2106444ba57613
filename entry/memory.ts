/**
 * `leaveapi/memory`: the in-memory Store and AdminStore, the reference implementation of
 * both contracts and a template for a Store over a host's own tables. Seed it through its
 * admin methods (organisations, clients, `runImport`) as the `leaveapi` command seeds a
 * database, or hand `load` a `StoreContents`. One process only: its data, tokens and rate
 * limits are neither persisted nor shared.
 */
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from "../adapters/memory-store.ts";
export type {
  StoreContents,
  StoredBooking,
  StoredClient,
  StoredClosureDay,
  StoredEmployee,
  StoredLeaveType,
  StoredPublicHoliday,
  StoredToken,
} from "../lib/store-contents.ts";
