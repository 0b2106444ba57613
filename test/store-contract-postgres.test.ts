/**
 * The Store contract on Postgres, always: not only when LEAVEAPI_TEST_STORE=postgres. A server
 * that cannot be reached fails this file loudly (test-stores.ts); each test gets its own schema
 * in the run's database, which is dropped at the end.
 */
import { describe, expect, test } from "bun:test";
import { openPostgresStore } from "../adapters/postgres.ts";
import { writeFixture } from "../testing/contract-fixture.ts";
import { runStoreContract } from "../testing/store-contract.ts";
import { freshSchemaName, testRunDatabaseUrl } from "./test-stores.ts";

runStoreContract(
  {
    name: "Postgres",
    create: async (fixture) => {
      const store = openPostgresStore({ connectionString: await testRunDatabaseUrl(), schema: freshSchemaName(), poolSize: 4 });
      await store.migrate();
      await writeFixture(store, fixture);
      return { store, dispose: () => store.close(), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
    },
  },
  { describe, test, expect },
);
