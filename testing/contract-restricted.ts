/**
 * The Store contract's restricted reads (lib/store.ts, `RestrictedReads`), for a store that
 * has them: each must answer what the unrestricted read answers, of the employees the
 * selection selects only, for selections drawn from the fixture (each department, each
 * calendar, both together, and lists that select no one). A store whose restricted reads
 * ignore the selection fails here. A store without them serves no restricted credential
 * (the token endpoint refuses one), which is what the contract then checks instead.
 */
import { selects, type EmployeeSelection } from "../lib/restriction.ts";
import type { ContractFixture } from "./contract-fixture.ts";
import { QUERY_RANGE } from "./contract-fixture.ts";
import { employeeJson, leaveBookingJson } from "../lib/records.ts";
import { I, employeeQuery, expectedText, idsOf, leaveQuery, type ContractKit } from "./contract-kit.ts";

/** Selections that tell a store that honours them from one that does not, on this fixture. */
function selectionsOf(fixture: ContractFixture): EmployeeSelection[] {
  const live = fixture.employees.filter((e) => !e.deleted);
  const departments = [...new Set(live.map((e) => e.department).filter((d): d is string => d !== null))].sort();
  const calendars = [...new Set(live.map((e) => e.holiday_calendar).filter((c): c is string => c !== null))].sort();
  return [
    ...departments.map((d) => ({ departments: [d], calendars: null })),
    ...calendars.map((c) => ({ departments: null, calendars: [c] })),
    { departments: departments.slice(0, 2), calendars: calendars.slice(0, 1) },
    { departments, calendars: null },
    // Longer than a store may scan value by value (the SQL store's MAX_LEAD_VALUES is 16).
    { departments: null, calendars: [...calendars, ...Array.from({ length: 20 }, (_, i) => `XX-${i}`)] },
    { departments: ["No such department"], calendars: null },
    { departments: [], calendars: null },
  ];
}

export function restrictedContract(kit: ContractKit): void {
  const { describe, test, expect, withStore } = kit;
  describe("restricted reads", () => {
    test(
      "answer the unrestricted reads of the selected employees only",
      withStore(async (store, fixture) => {
        if (!store.restricted) return;
        const reads = store.restricted;
        const all = await store.listEmployees(employeeQuery());
        const allLeave = await store.listOverlappingLeave(leaveQuery({ from: "1900-01-01", to: "2199-12-31" }));
        for (const selection of selectionsOf(fixture)) {
          const inside = all.filter((e) => selects(selection, e));
          expect({ selection, ids: idsOf(await reads.listEmployees(employeeQuery(), selection)) }).toEqual({ selection, ids: idsOf(inside) });
          // Paged one at a time, the same records in the same order.
          const paged: string[] = [];
          for (let after: { updatedAt: number; id: string } | undefined, i = 0; i <= inside.length; i++) {
            const [next] = await reads.listEmployees({ ...employeeQuery(), after, limit: 1 }, selection);
            if (!next) break;
            paged.push(next.id);
            after = { updatedAt: next.updated_at, id: next.id };
          }
          expect({ selection, paged }).toEqual({ selection, paged: idsOf(inside) });
          for (const e of all) {
            const found = await reads.findEmployee(I.orgA, e.id, selection);
            expect({ selection, id: e.id, found: found?.id ?? null }).toEqual({ selection, id: e.id, found: selects(selection, e) ? e.id : null });
          }
          const insideIds = new Set(idsOf(inside));
          const leave = await reads.listOverlappingLeave(leaveQuery({ from: "1900-01-01", to: "2199-12-31" }), selection);
          expect({ selection, leave: idsOf(leave) }).toEqual({ selection, leave: idsOf(allLeave.filter((b) => insideIds.has(b.employee_id))) });
          // The feed names no record the client reads now, and nothing the organisation's own feed or lists do not know.
          for (const resource of ["employees", "leave-requests"] as const) {
            const q = { organisationId: I.orgA, resource, deletedSince: 0, limit: 100 };
            const known = new Set([...idsOf(await store.listDeletions(q)), ...idsOf(all), ...idsOf(allLeave)]);
            const readNow = new Set(resource === "employees" ? idsOf(inside) : idsOf(allLeave.filter((b) => insideIds.has(b.employee_id))));
            for (const d of await reads.listDeletions(q, selection)) {
              expect({ selection, named: d.id, known: known.has(d.id), readNow: readNow.has(d.id) }).toEqual({
                selection,
                named: d.id,
                known: true,
                readNow: false,
              });
            }
          }
          // The text, where the store has it, is the records' JSON to the byte, whole pages and short ones.
          if (reads.listText) {
            for (const limit of [100, 1]) {
              const employees = employeeQuery({ limit });
              const more = await reads.listEmployees({ ...employees, limit: limit + 1 }, selection);
              const text = await reads.listText({ list: "employees", query: employees }, selection);
              if (text !== null) expect({ selection, text }).toEqual({ selection, text: expectedText(more, limit, employeeJson, (e) => e.updated_at) });
              const bookings = leaveQuery({ from: "1900-01-01", to: "2199-12-31", limit });
              const moreLeave = await reads.listOverlappingLeave({ ...bookings, limit: limit + 1 }, selection);
              const leaveText = await reads.listText({ list: "leave-requests", query: bookings }, selection);
              if (leaveText !== null)
                expect({ selection, leaveText }).toEqual({ selection, leaveText: expectedText(moreLeave, limit, leaveBookingJson, (b) => b.start_date) });
            }
          }
          const observed = await reads.observedBy(I.orgA, QUERY_RANGE.from, QUERY_RANGE.to, selection);
          for (const calendar of observed.calendars) expect(inside.some((e) => e.holiday_calendar === calendar)).toBe(true);
          for (const department of observed.departments) expect(inside.some((e) => e.department === department)).toBe(true);
        }
      }),
    );

    test(
      "keep an old booking in a sync when its employee changed since (the employee entered the selection)",
      withStore(async (store) => {
        if (!store.restricted) return;
        const everyone = { departments: null, calendars: null };
        const all = await store.listOverlappingLeave(leaveQuery({ from: "1900-01-01", to: "2199-12-31" }));
        const employees = await store.listEmployees(employeeQuery());
        const updatedOf = new Map(employees.map((e) => [e.id, e.updated_at]));
        // From the last employee's change on: their bookings however old, and every booking changed since.
        const since = Math.max(...employees.map((e) => e.updated_at));
        const expected = all.filter((b) => b.updated_at >= since || (updatedOf.get(b.employee_id) ?? 0) >= since);
        const query = leaveQuery({ from: "1900-01-01", to: "2199-12-31", updated_since: since });
        const synced = await store.restricted.listOverlappingLeave(query, everyone);
        expect(idsOf(synced)).toEqual(idsOf(expected));
        const text = await store.restricted.listText?.({ list: "leave-requests", query }, everyone);
        if (text)
          expect(text).toEqual(
            expectedText(
              await store.restricted.listOverlappingLeave({ ...query, limit: query.limit + 1 }, everyone),
              query.limit,
              leaveBookingJson,
              (b) => b.start_date,
            ),
          );
      }),
    );
  });
}
