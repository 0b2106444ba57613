/**
 * The Store and AdminStore contracts on SQLite, in memory and in a file (WAL journal, as
 * deployed). Each test's store is a copy of one that bun:sqlite migrated from empty, and
 * loaded with the test's fixture, once (test/sqlite-templates.ts).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunSqliteTemplates as templates, fixtureContents } from "../../test/sqlite-templates.ts";
import { runAdminStoreContract } from "../../testing/admin-store-contract.ts";
import { runStoreContract } from "../../testing/store-contract.ts";

runStoreContract(
  {
    name: "SQLite in memory",
    create: async (fixture) => {
      const store = await templates.memory({ contents: fixtureContents(fixture) });
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
      const store = await templates.file(join(dir, "store.db"), { contents: fixtureContents(fixture) });
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
      const store = await templates.memory();
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
      const store = await templates.file(join(dir, "store.db"));
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
