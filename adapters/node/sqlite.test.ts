/**
 * The Store contract on the node:sqlite adapter (the one Deno uses), run here under Bun,
 * in memory and in a file; the AdminStore contract in memory.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openNodeSqliteStore } from "./sqlite.ts";
import { writeFixture, type ContractFixture } from "../../testing/contract-fixture.ts";
import { runAdminStoreContract } from "../../testing/admin-store-contract.ts";
import { runStoreContract } from "../../testing/store-contract.ts";

async function filled(filename: string, fixture: ContractFixture) {
  const store = openNodeSqliteStore({ filename });
  await store.migrate();
  await writeFixture(store, fixture);
  return store;
}

runStoreContract(
  {
    name: "node:sqlite in memory",
    create: async (fixture) => {
      const store = await filled(":memory:", fixture);
      return { store, dispose: () => store.close(), setApiEnabled: (id, on) => store.setApiEnabled(id, on) };
    },
  },
  { describe, test, expect },
);

runStoreContract(
  {
    name: "node:sqlite in a file",
    create: async (fixture) => {
      const dir = mkdtempSync(join(tmpdir(), "leaveapi-node-sqlite-"));
      const store = await filled(join(dir, "store.db"), fixture);
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
    name: "node:sqlite in memory",
    create: async () => {
      const store = openNodeSqliteStore({ filename: ":memory:" });
      await store.migrate();
      return { store, dispose: () => store.close() };
    },
  },
  { describe, test, expect },
);
