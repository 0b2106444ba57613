/**
 * The Store and AdminStore contracts on the in-memory reference store (`leaveapi/memory`):
 * the Store contract twice, on data given to `load` and on data written through the
 * AdminStore methods alone, as an embedder seeds it.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { runAdminStoreContract } from "../testing/admin-store-contract.ts";
import { STANDARD_IDS, standardFixture, writeFixture, type ContractFixture } from "../testing/contract-fixture.ts";
import { runStoreContract } from "../testing/store-contract.ts";

runStoreContract(
  {
    name: "memory, loaded",
    create: async (fixture) => {
      const store = createMemoryStore(fixture);
      return { store, dispose: () => store.close(), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
    },
  },
  { describe, test, expect },
);

runStoreContract(
  {
    name: "memory, written through its AdminStore methods",
    create: async (fixture) => {
      const store = createMemoryStore();
      await writeFixture(store, fixture);
      return { store, dispose: () => store.close(), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
    },
  },
  { describe, test, expect },
);

runAdminStoreContract(
  {
    name: "memory",
    create: async () => {
      const store = createMemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
  { describe, test, expect },
);

describe("memory store beyond the contract", () => {
  test("answers as an unreachable database once closed, so the handler says 503", async () => {
    const store = createMemoryStore();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow("closed");
    await expect(store.findClient("svcc_000000000000000000000001")).rejects.toMatchObject({ name: "StoreUnavailableError" });
  });

  test("load replaces a record with the same key instead of duplicating it", async () => {
    const fixture = standardFixture();
    const store = createMemoryStore(fixture);
    const ada = fixture.employees.find((e) => e.id === STANDARD_IDS.employees.ada)!;
    store.load({ ...emptyData(), employees: [{ ...ada, first_name: "Augusta" }] });
    const listed = await store.listEmployees({ organisationId: STANDARD_IDS.orgA, filters: {}, limit: 100 });
    expect(listed.filter((e) => e.id === ada.id).map((e) => e.first_name)).toEqual(["Augusta"]);
    // The store took a copy: changing the caller's object changes nothing stored.
    ada.first_name = "Changed";
    expect((await store.findEmployee(STANDARD_IDS.orgA, ada.id))?.first_name).toBe("Augusta");
  });
});

function emptyData(): ContractFixture {
  return { organisations: [], clients: [], tokens: [], employees: [], leaveTypes: [], bookings: [], closureDays: [], publicHolidays: [] };
}
