/**
 * The memory store's reads for restricted credentials (lib/store.ts, `RestrictedReads`):
 * its plain reads (memory-reads.ts), keeping only the employees the selection selects.
 */
import { selects, type EmployeeSelection } from "../../lib/restriction.ts";
import type { RestrictedReads } from "../../lib/store.ts";
import type { StoredEmployee } from "../../lib/store-contents.ts";
import { employeeAndLeaveReads, type EmployeeKept } from "./memory-reads.ts";
import { isListedBooking, keyOf, type MemoryTables } from "./memory-tables.ts";

const keptBy =
  (selection: EmployeeSelection): EmployeeKept =>
  (e: StoredEmployee) =>
    selects(selection, e);

export function memoryRestrictedReads(t: () => MemoryTables, open: () => void): RestrictedReads {
  const reads = employeeAndLeaveReads(t, open);
  return {
    listEmployees: (q, selection) => reads.listEmployees(q, keptBy(selection)),
    findEmployee: (organisationId, id, selection) => reads.findEmployee(organisationId, id, keptBy(selection)),
    listOverlappingLeave: (q, selection) => reads.listOverlappingLeave(q, keptBy(selection)),
    async listDeletions(q, selection) {
      open();
      const tables = t();
      const kept = keptBy(selection);
      const readNow = (id: string): boolean => {
        if (q.resource === "employees") {
          const e = tables.employees.get(keyOf(q.organisationId, id));
          return e !== undefined && !e.deleted && kept(e);
        }
        const b = tables.bookings.get(keyOf(q.organisationId, id));
        return b !== undefined && isListedBooking(tables, b) && kept(tables.employees.get(keyOf(q.organisationId, b.employee_id))!);
      };
      // By record, the last instant it left the selection since deletedSince.
      const left = new Map<string, number>();
      for (const x of tables.exits) {
        if (x.organisation_id !== q.organisationId || x.resource !== q.resource || x.until < q.deletedSince || !selects(selection, x)) continue;
        left.set(x.id, Math.max(left.get(x.id) ?? x.until, x.until));
      }
      const { after } = q;
      return [...left]
        .filter(([id]) => !readNow(id))
        .map(([id, deleted_at]) => ({ id, deleted_at }))
        .filter((d) => !after || d.deleted_at > after.deletedAt || (d.deleted_at === after.deletedAt && d.id > after.id))
        .sort((a, b) => a.deleted_at - b.deleted_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, q.limit);
    },
    observedBy: async (organisationId, from, to, selection) => reads.observedBy(organisationId, from, to, keptBy(selection)),
  };
}
