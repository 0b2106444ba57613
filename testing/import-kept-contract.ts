/**
 * What an import reads back of stored employees (AdminStore contract, admin-store-contract.ts):
 * `storedEmployees` answers the stored fields of the live employees among the ids, as seen
 * inside the import's transaction, so that a field the file does not carry keeps its
 * stored value on every store (docs/cli.md, "Absent is not empty").
 */
import { ANNUAL, ORG_A, ORG_B, booking, employee, organisation, type WithAdminStore } from "./admin-fixture.ts";
import { U, fixtureUuid } from "./contract-fixture.ts";
import type { ContractFramework } from "./store-contract.ts";

const [E1, E2, E3] = [1, 2, 3].map((n) => fixtureUuid("e0000000", n)) as [string, string, string];

export function runImportKeptCases(framework: ContractFramework, withStore: WithAdminStore): void {
  const { describe, test, expect } = framework;

  describe("runImport: stored employees", () => {
    test(
      "answers the stored fields of the live employees asked for, its own writes included, and nothing of other organisations",
      withStore(async (store) => {
        for (const id of [ORG_A, ORG_B]) await store.createOrganisation(organisation(id));
        await store.runImport(async (w) => {
          await w.upsertEmployees(ORG_A, [employee(E1, { job_title: "Analyst", department: "Research", preferred_name: "Ada L" }), employee(E2)], U[1]);
          await w.upsertEmployees(ORG_B, [employee(E3)], U[1]);
        });
        const seen = await store.runImport(async (w) => {
          await w.deleteEmployees(ORG_A, [E2], U[2]);
          await w.upsertEmployees(ORG_A, [employee(E3, { leaving_date: "2026-01-31" })], U[2]);
          return w.storedEmployees(ORG_A, [E1, E2, E3, E1]);
        });
        const { external_id: _1, ...e1 } = employee(E1, { job_title: "Analyst", department: "Research", preferred_name: "Ada L" });
        const { external_id: _3, ...e3 } = employee(E3, { leaving_date: "2026-01-31" });
        expect([...seen.keys()].sort()).toEqual([E1, E3].sort());
        expect(seen.get(E1)).toEqual(e1);
        expect(seen.get(E3)).toEqual(e3);
      }),
    );

    test(
      "a dry run reads back what it wrote, and an empty list of ids answers an empty map",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const seen = await store.runImport(
          async (w) => {
            await w.upsertEmployees(ORG_A, [employee(E1, { department: "Sales" })], U[1]);
            return { one: await w.storedEmployees(ORG_A, [E1]), none: await w.storedEmployees(ORG_A, []) };
          },
          { dryRun: true },
        );
        expect(seen.one.get(E1)?.department).toBe("Sales");
        expect(seen.none.size).toBe(0);
      }),
    );

    test(
      "describeRecords names employees and bookings as a person recognises them, in the order asked, unknown ids left out",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const K1 = fixtureUuid("b0000000", 1);
        const labels = await store.runImport(async (w) => {
          await w.upsertLeaveTypes(ORG_A, [ANNUAL], U[1]);
          await w.upsertEmployees(
            ORG_A,
            [employee(E1, { first_name: "Grace", last_name: "Hopper" }), employee(E2, { first_name: null, last_name: "Turing" })],
            U[1],
          );
          await w.upsertLeaveBookings(ORG_A, [booking(K1, E1, { start_date: "2026-03-02", end_date: "2026-03-04" })], U[1]);
          return { employees: await w.describeRecords(ORG_A, "employee", [E2, E3, E1]), bookings: await w.describeRecords(ORG_A, "booking", [K1]) };
        });
        expect(labels.employees.map((l) => [l.id, l.name])).toEqual([
          [E2, "Turing"],
          [E1, "Grace Hopper"],
        ]);
        expect(labels.bookings.map((l) => [l.id, l.name])).toEqual([[K1, "Grace Hopper, 2026-03-02 to 2026-03-04"]]);
      }),
    );

    test(
      "storedBookings answers the half days and instants of the live bookings asked for",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const [K1, K2] = [1, 2].map((n) => fixtureUuid("b0000000", n)) as [string, string];
        const kept = {
          start_half_day: true,
          start_half_period: "pm" as const,
          end_half_day: false,
          end_half_period: null,
          requested_at: U[0],
          reviewed_at: U[1],
          cancelled_at: null,
        };
        await store.runImport(async (w) => {
          await w.upsertLeaveTypes(ORG_A, [ANNUAL], U[1]);
          await w.upsertEmployees(ORG_A, [employee(E1)], U[1]);
          await w.upsertLeaveBookings(ORG_A, [booking(K1, E1, { ...kept, days: 2.5 }), booking(K2, E1)], U[1]);
        });
        const seen = await store.runImport(async (w) => {
          await w.deleteLeaveBookings(ORG_A, [K2], U[2]);
          return w.storedBookings(ORG_A, [K1, K2]);
        });
        expect([...seen.keys()]).toEqual([K1]);
        expect(seen.get(K1)).toEqual(kept);
      }),
    );
  });
}
