/**
 * The Store and AdminStore contracts on Postgres, always: not only when
 * LEAVEAPI_TEST_STORE=postgres, and on both client libraries the store runs on (Bun.SQL and
 * pg, test-stores.ts's POSTGRES_DRIVERS). A server that cannot be reached fails this file loudly
 * (test-stores.ts); each test gets a schema of its own in the run's database (emptied, when
 * an earlier test left one free), and the database is dropped at the end.
 */
import { describe, expect, test } from "bun:test";
import { writeFixture } from "../testing/contract-fixture.ts";
import { runAdminStoreContract } from "../testing/admin-store-contract.ts";
import { runStoreContract } from "../testing/store-contract.ts";
import { openPostgresSchemaStore, POSTGRES_DRIVERS, releaseTestStore } from "./test-stores.ts";

for (const driver of POSTGRES_DRIVERS) {
  runStoreContract(
    {
      name: `Postgres (${driver})`,
      create: async (fixture) => {
        const store = await openPostgresSchemaStore(driver);
        await writeFixture(store, fixture);
        return { store, dispose: () => releaseTestStore(store), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
      },
    },
    { describe, test, expect },
  );

  runAdminStoreContract(
    {
      name: `Postgres (${driver})`,
      create: async () => {
        const store = await openPostgresSchemaStore(driver);
        return { store, dispose: () => releaseTestStore(store) };
      },
    },
    { describe, test, expect },
  );
}
