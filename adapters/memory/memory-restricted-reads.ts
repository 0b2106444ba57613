/**
 * The memory store's reads for restricted credentials (lib/store.ts, `RestrictedReads`):
 * its plain reads (memory-reads.ts), keeping only the employees the selection selects.
 */
import { selects, type EmployeeSelection } from "../../lib/restriction.ts";
import type { RestrictedReads } from "../../lib/store.ts";
import type { StoredEmployee } from "../../lib/store-contents.ts";
import { employeeAndLeaveReads, type EmployeeKept } from "./memory-reads.ts";
import type { MemoryTables } from "./memory-tables.ts";

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
    observedBy: async (organisationId, from, to, selection) => reads.observedBy(organisationId, from, to, keptBy(selection)),
  };
}
