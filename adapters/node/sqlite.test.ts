/**
 * The Store contract on the node:sqlite adapter (the one Deno uses), run here under Bun,
 * in memory and in a file; the AdminStore contract in memory. Each test's store is a copy
 * of one that node:sqlite migrated from empty, and loaded with the test's fixture, once
 * (test/sqlite-templates.ts).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureContents, nodeSqliteTemplates as templates } from "../../test/sqlite-templates.ts";
import type { ContractFixture } from "../../testing/contract-fixture.ts";
import { runAdminStoreContract } from "../../testing/admin-store-contract.ts";
import { runStoreContract } from "../../testing/store-contract.ts";

function filled(filename: string, fixture: ContractFixture) {
  const contents = fixtureContents(fixture);
  return filename === ":memory:" ? templates.memory({ contents }) : templates.file(filename, { contents });
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
      const store = await templates.memory();
      return { store, dispose: () => store.close() };
    },
  },
  { describe, test, expect },
);
