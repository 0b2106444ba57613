/**
 * The data-version part of the AdminStore contract (admin-store-contract.ts), for a store
 * that has the optional `Store.dataVersion` (docs/api.md, "Conditional reads"): the value
 * stays while nothing is written, and moves with every import that commits a write to the
 * organisation (public holidays alone and a deletion included), never with a dry run or a
 * failed import. A store without it has nothing here to prove.
 */
import { ANNUAL, ORG_A, employee, organisation, type WithAdminStore } from "./admin-fixture.ts";
import { U, fixtureUuid } from "./contract-fixture.ts";
import type { ContractFramework } from "./store-contract.ts";

const E1 = fixtureUuid("e0000000", 1);

export function runDataVersionCases(framework: ContractFramework, withStore: WithAdminStore): void {
  const { describe, test, expect } = framework;

  describe("dataVersion (when the store has it)", () => {
    test(
      "stays while nothing is written; moves with each import that writes, never with a dry run or a failed import",
      withStore(async (store) => {
        if (!store.dataVersion) {
          expect(store.dataVersion).toBe(undefined);
          return;
        }
        const version = () => store.dataVersion!(ORG_A);
        await store.createOrganisation(organisation(ORG_A));
        const seen = new Set<string>([await version()]);
        const moved = async (write: () => Promise<unknown>) => {
          await write();
          const now = await version();
          expect(seen.has(now)).toBe(false);
          seen.add(now);
          expect(await version()).toBe(now);
        };
        await moved(() => store.runImport((w) => w.upsertEmployees(ORG_A, [employee(E1)], U[1])));
        await moved(() => store.runImport((w) => w.upsertLeaveTypes(ORG_A, [ANNUAL], U[2])));
        await moved(() => store.runImport((w) => w.replacePublicHolidays(ORG_A, "GB-ENG", 2026, [{ date: "2026-07-01", name: "A day" }])));
        await moved(() => store.runImport((w) => w.deleteEmployees(ORG_A, [E1], U[3])));
        const before = await version();
        await store.runImport((w) => w.upsertEmployees(ORG_A, [employee(E1)], U[4]), { dryRun: true });
        await store
          .runImport(async (w) => {
            await w.upsertEmployees(ORG_A, [employee(E1)], U[4]);
            throw new Error("the work fails");
          })
          .catch(() => undefined);
        expect(await version()).toBe(before);
      }),
    );
  });
}
