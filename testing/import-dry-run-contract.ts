/**
 * The dry-run half of the AdminStore contract (admin-store-contract.ts): `runImport(work,
 * { dryRun: true })` runs the same work, answers as the import would, reads back its own
 * writes, and keeps nothing (docs/cli.md, "Errors and transactions").
 */
import type { AdminStore, WriteCounts } from "../lib/admin-store.ts";
import type { Store } from "../lib/store.ts";
import { ANNUAL, ORG_A, ORG_B, booking, closure, employee, organisation, type WithAdminStore } from "./admin-fixture.ts";
import { U, fixtureUuid } from "./contract-fixture.ts";
import type { ContractFramework } from "./store-contract.ts";

const [E1, E2, E3] = [1, 2, 3].map((n) => fixtureUuid("e0000000", n)) as [string, string, string];
const [K1, K2, K3] = [1, 2, 3].map((n) => fixtureUuid("b0000000", n)) as [string, string, string];
const C1 = fixtureUuid("c0000000", 1);
const EVERYWHERE = { from: "0001-01-01", to: "9999-12-31" };

const counts = (some: Partial<WriteCounts>): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0, ...some });

/** All a client could see of an organisation's imported data, and its deletions feed. */
const everything = async (store: Store, organisationId: string) => ({
  employees: await store.listEmployees({ organisationId, filters: {}, limit: 1000 }),
  leave: await store.listOverlappingLeave({ organisationId, filters: EVERYWHERE, limit: 1000 }),
  closures: await store.listClosureDays(organisationId, EVERYWHERE.from, EVERYWHERE.to),
  deletions: await store.listDeletions({ organisationId, resource: "employees", deletedSince: 0, limit: 1000 }),
});

export function runImportDryRunCases(framework: ContractFramework, withStore: WithAdminStore): void {
  const { describe, test, expect } = framework;

  describe("runImport: dry run", () => {
    test(
      "answers as the import would, sees its own writes, and keeps nothing of them",
      withStore(async (store) => {
        for (const id of [ORG_A, ORG_B]) await store.createOrganisation(organisation(id));
        await store.runImport(async (w) => {
          await w.upsertLeaveTypes(ORG_A, [ANNUAL], U[1]);
          await w.upsertEmployees(ORG_A, [employee(E1), employee(E2)], U[1]);
          await w.upsertLeaveBookings(ORG_A, [booking(K1, E1), booking(K2, E2)], U[1]);
          await w.upsertEmployees(ORG_B, [employee(E1)], U[1]);
        });
        const before = { a: await everything(store, ORG_A), b: await everything(store, ORG_B) };

        const work = async (w: Parameters<Parameters<AdminStore["runImport"]>[0]>[0]) => ({
          employees: await w.upsertEmployees(ORG_A, [employee(E1, { first_name: "Renamed" }), employee(E2), employee(E3)], U[2]),
          bookings: await w.upsertLeaveBookings(ORG_A, [booking(K1, E1), booking(K3, E3, { start_date: "2026-06-01", end_date: "2026-06-02" })], U[2]),
          deleted: await w.deleteEmployees(ORG_A, [E2], U[2]),
          closures: await w.upsertClosureDays(ORG_A, [closure(C1, "2026-12-24")], U[2]),
          // Its own writes, read back: E3 is there, E2 and their booking are gone.
          liveEmployees: await w.liveIds(ORG_A, { record: "employee" }, null, 10),
          liveBookings: await w.liveIds(ORG_A, { record: "booking", ...EVERYWHERE }, null, 10),
          facts: [...(await w.employeeFacts(ORG_A, [E1, E2, E3])).keys()].sort(),
          closuresRead: (await w.listClosureDays(ORG_A, EVERYWHERE.from, EVERYWHERE.to)).length,
          otherOrganisation: await w.upsertEmployees(ORG_B, [employee(E1)], U[2]),
        });
        const expected = {
          employees: counts({ created: 1, updated: 1, unchanged: 1 }),
          bookings: counts({ created: 1, unchanged: 1 }),
          deleted: counts({ deleted: 1 }),
          closures: counts({ created: 1 }),
          liveEmployees: [E1, E3],
          liveBookings: [K1, K3],
          facts: [E1, E3],
          closuresRead: 1,
          otherOrganisation: counts({ unchanged: 1 }),
        };
        expect(await store.runImport(work, { dryRun: true })).toEqual(expected);
        expect({ a: await everything(store, ORG_A), b: await everything(store, ORG_B) }).toEqual(before);
        // Run again, for real, the same work answers the same.
        expect(await store.runImport(work)).toEqual(expected);
        expect((await everything(store, ORG_A)).employees.map((e) => e.id).sort()).toEqual([E1, E3]);
        expect((await everything(store, ORG_A)).deletions.map((d) => d.id)).toEqual([E2]);
      }),
    );

    test(
      "work whose result `keep` refuses resolves with it and keeps nothing, dry run or not",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        await store.runImport(async (w) => w.upsertEmployees(ORG_A, [employee(E1)], U[1]));
        const before = await everything(store, ORG_A);
        const work = async (w: Parameters<Parameters<AdminStore["runImport"]>[0]>[0]) => {
          await w.upsertEmployees(ORG_A, [employee(E1, { first_name: "Renamed" }), employee(E2)], U[2]);
          await w.deleteEmployees(ORG_A, [E1], U[2]);
          return { ok: false as const, problems: 1 };
        };
        for (const dryRun of [true, false]) {
          expect(await store.runImport(work, { dryRun, keep: (result) => result.ok })).toEqual({ ok: false, problems: 1 });
          expect(await everything(store, ORG_A)).toEqual(before);
        }
        // The store is free for the next import, which lands.
        await store.runImport(async (w) => w.upsertEmployees(ORG_A, [employee(E2)], U[3]), { keep: () => true });
        expect((await everything(store, ORG_A)).employees.map((e) => e.id).sort()).toEqual([E1, E2].sort());
      }),
    );

    test(
      "a dry run that throws rejects with its error and keeps nothing",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const failure = new Error("the file had a problem");
        const outcome = store.runImport(
          async (w) => {
            await w.upsertEmployees(ORG_A, [employee(E1)], U[1]);
            throw failure;
          },
          { dryRun: true },
        );
        expect(await outcome.catch((error: unknown) => error)).toBe(failure);
        expect(await store.listEmployees({ organisationId: ORG_A, filters: {}, limit: 10 })).toEqual([]);
      }),
    );
  });
}
