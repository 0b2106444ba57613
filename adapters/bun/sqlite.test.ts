/** The Store and AdminStore contracts on SQLite, in memory and in a file (WAL journal, as deployed). */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "./sqlite.ts";
import { writeFixture } from "../../testing/contract-fixture.ts";
import { runAdminStoreContract } from "../../testing/admin-store-contract.ts";
import { runStoreContract } from "../../testing/store-contract.ts";

runStoreContract(
  {
    name: "SQLite in memory",
    create: async (fixture) => {
      const store = openSqliteStore({ filename: ":memory:" });
      await store.migrate();
      await writeFixture(store, fixture);
      return { store, dispose: () => store.close(), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
    },
  },
  { describe, test, expect },
);

runStoreContract(
  {
    name: "SQLite in a file",
    create: async (fixture) => {
      const dir = mkdtempSync(join(tmpdir(), "leaveapi-contract-"));
      const store = openSqliteStore({ filename: join(dir, "store.db") });
      await store.migrate();
      await writeFixture(store, fixture);
      return {
        store,
        setApiEnabled: (id, on) => store.setApiEnabled(id, on),
        dispose: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  { describe, test, expect },
);

runAdminStoreContract(
  {
    name: "SQLite in memory",
    create: async () => {
      const store = openSqliteStore({ filename: ":memory:" });
      await store.migrate();
      return { store, dispose: () => store.close() };
    },
  },
  { describe, test, expect },
);

runAdminStoreContract(
  {
    name: "SQLite in a file",
    create: async () => {
      const dir = mkdtempSync(join(tmpdir(), "leaveapi-admin-contract-"));
      const store = openSqliteStore({ filename: join(dir, "store.db") });
      await store.migrate();
      return {
        store,
        dispose: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  { describe, test, expect },
);
