/**
 * The tombstones of records given to `MemoryStore.load` (lib/store.ts, `listDeletions`).
 * Loaded data carries no history, only the deleted flags, so it is read as
 * `writeStoreContents` writes it: a deleted record was deleted at its `updated_at`, and a
 * booking stopped being listed when it or its employee was deleted, whichever came first.
 * A booking of a leave type that is not annual was never listed, so it has no tombstone.
 */
import type { StoreContents } from "../../lib/store-contents.ts";
import { keyOf, type MemoryTables } from "./memory-tables.ts";

export function deriveTombstones(t: MemoryTables, loaded: StoreContents): void {
  for (const e of loaded.employees) {
    const key = keyOf(e.organisation_id, "employees", e.id);
    if (e.deleted) t.deletions.set(key, { organisation_id: e.organisation_id, resource: "employees", id: e.id, deleted_at: e.updated_at });
    else t.deletions.delete(key);
  }
  for (const b of loaded.bookings) {
    const key = keyOf(b.organisation_id, "leave-requests", b.id);
    const employee = t.employees.get(keyOf(b.organisation_id, b.employee_id));
    const annual = t.leaveTypes.get(keyOf(b.organisation_id, b.leave_type_id))?.category === "annual";
    const hiddenAt = Math.min(b.deleted ? b.updated_at : Number.POSITIVE_INFINITY, employee?.deleted ? employee.updated_at : Number.POSITIVE_INFINITY);
    if (annual && Number.isFinite(hiddenAt))
      t.deletions.set(key, { organisation_id: b.organisation_id, resource: "leave-requests", id: b.id, deleted_at: hiddenAt });
    else t.deletions.delete(key);
  }
}
