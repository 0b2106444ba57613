/**
 * scripts/check-boundaries.ts's rules (scripts/checks/boundaries.ts) on small trees: one
 * that keeps every rule, then each rule ARCHITECTURE.md states broken once, which must be
 * named, so that a claim of the whiteboard is never one the check has stopped making.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADAPTER_ROLES, adapterRole, boundaryProblems } from "../scripts/checks/boundaries.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A tree shaped like the repository's, each layer importing only what it may. */
const CLEAN: Record<string, string> = {
  "lib/store.ts": "export type Store = {};\n",
  "server/handler.ts": 'import type { Store } from "../lib/store.ts";\nexport const h = (s: Store) => s;\n',
  "adapters/sql/sql-store.ts": 'import type { Store } from "../../lib/store.ts";\nexport const s: Store = {};\n',
  "adapters/sql/leave-page/index.ts": 'import { s } from "../sql-store.ts";\nexport const page = s;\n',
  "adapters/node-crypto.ts": 'import { createHash } from "node:crypto";\nimport type { Store } from "../lib/store.ts";\nexport const hash = createHash;\n',
  "adapters/bun/sqlite.ts": 'import { hash } from "../node-crypto.ts";\nimport { s } from "../sql/sql-store.ts";\nexport const open = () => [hash, s];\n',
  "adapters/node/sqlite.ts": 'import { hash } from "../node-crypto.ts";\nimport { s } from "../sql/sql-store.ts";\nexport const open = () => [hash, s];\n',
  "adapters/node/http.ts": 'import { h } from "../../server/handler.ts";\nimport { hash } from "../node-crypto.ts";\nexport const serve = [h, hash];\n',
  "client/index.ts": 'import type { Store } from "../lib/store.ts";\nexport type C = Store;\n',
  "testing/contract.ts": 'import type { Store } from "../lib/store.ts";\nexport type T = Store;\n',
  "bench/run.ts": 'import { open } from "../adapters/bun/sqlite.ts";\nimport { h } from "../server/handler.ts";\nexport const bench = [open, h];\n',
};

function tree(changes: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "leaveapi-boundaries-"));
  roots.push(root);
  for (const [path, text] of Object.entries({ ...CLEAN, ...changes })) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The problems of a clean tree with `changes`, each expected to be about `file`. */
function problemsWith(changes: Record<string, string>): string[] {
  return boundaryProblems(tree(changes));
}

describe("boundaryProblems", () => {
  test("a tree whose imports point one way has none, a SQL store's subfolder importing its parent included", () => {
    expect(boundaryProblems(tree())).toEqual([]);
  });

  test("a store opener that imports a host is named: a store runs under any host", () => {
    const problems = problemsWith({ "adapters/node/sqlite.ts": 'import { serve } from "./http.ts";\nexport const open = serve;\n' });
    expect(problems).toEqual([expect.stringMatching(/^adapters\/node\/sqlite\.ts: imports adapters\/node\/http\.ts: a store imports only lib\//)]);
  });

  test("a store that imports server/ is named", () => {
    const problems = problemsWith({ "adapters/postgres.ts": 'import { h } from "../server/handler.ts";\nexport const open = h;\n' });
    expect(problems).toEqual([expect.stringMatching(/^adapters\/postgres\.ts: imports server\/handler\.ts: a store/)]);
  });

  test("the memory store importing server/ is named, however it spells the path", () => {
    const problems = problemsWith({ "adapters/memory/reads.ts": 'import { h } from "./../../server/handler.ts";\nexport const r = h;\n' });
    expect(problems).toEqual([expect.stringMatching(/^adapters\/memory\/reads\.ts: imports server\/handler\.ts: a store/)]);
  });

  test("a runtime part that imports a store is named: stores and hosts both take it", () => {
    const problems = problemsWith({ "adapters/node-crypto.ts": 'import { s } from "./sql/sql-store.ts";\nexport const hash = s;\n' });
    expect(problems).toEqual([
      expect.stringMatching(/^adapters\/node-crypto\.ts: imports adapters\/sql\/sql-store\.ts: a runtime part imports only lib\/ and runtime parts/),
    ]);
  });

  test("the SQL store, in a subfolder too, importing another adapter is named", () => {
    const problems = problemsWith({ "adapters/sql/leave-page/index.ts": 'import { hash } from "../../node-crypto.ts";\nexport const page = hash;\n' });
    expect(problems).toEqual([
      expect.stringMatching(/^adapters\/sql\/leave-page\/index\.ts: imports adapters\/node-crypto\.ts: the SQL store imports only itself and lib\//),
    ]);
  });

  test("a file of adapters/ with no role is named until ADAPTER_ROLES gives it one", () => {
    const problems = problemsWith({ "adapters/new-thing.ts": "export const x = 1;\n" });
    expect(problems).toEqual([expect.stringMatching(/^adapters\/new-thing\.ts: no role in ADAPTER_ROLES/)]);
  });

  test("client/ and testing/ importing anything but lib/ (and themselves) are named", () => {
    const problems = problemsWith({
      "client/index.ts": 'import { hash } from "../adapters/node-crypto.ts";\nexport const c = hash;\n',
      "testing/contract.ts": 'import { s } from "../adapters/sql/sql-store.ts";\nexport const t = s;\n',
    });
    expect(problems).toContainEqual(expect.stringMatching(/^client\/index\.ts: imports adapters\/node-crypto\.ts: client\/ imports only client\/ and lib\//));
    expect(problems).toContainEqual(
      expect.stringMatching(/^testing\/contract\.ts: imports adapters\/sql\/sql-store\.ts: testing\/ imports only testing\/ and lib\//),
    );
  });

  test("lib/ importing a layer above it, or a runtime module, is named", () => {
    const problems = problemsWith({
      "lib/store.ts": 'import { readFileSync } from "node:fs";\nimport { h } from "../server/handler.ts";\nexport const x = [readFileSync, h];\n',
    });
    expect(problems).toContainEqual(expect.stringMatching(/^lib\/store\.ts:1: imports a runtime module/));
    expect(problems).toContainEqual(expect.stringMatching(/^lib\/store\.ts: imports server\/handler\.ts: lib\/ imports only lib\//));
  });

  test("server/ importing a store is named", () => {
    const problems = problemsWith({ "server/handler.ts": 'import { open } from "../adapters/bun/sqlite.ts";\nexport const h = open;\n' });
    expect(problems).toEqual([expect.stringMatching(/^server\/handler\.ts: imports adapters\/bun\/sqlite\.ts: server\/ imports nothing of adapters\//)]);
  });

  test("bench/ is under the cycle and size rules, and may not import testing/", () => {
    const problems = problemsWith({
      "bench/run.ts": 'import { steps } from "./run-steps.ts";\nexport const run = steps;\n',
      "bench/run-steps.ts": `import { run } from "./run.ts";\nexport const steps = run;\n${"// a line\n".repeat(400)}`,
      "bench/uses-testing.ts": 'import type { T } from "../testing/contract.ts";\nexport type U = T;\n',
    });
    expect(problems).toContainEqual(expect.stringMatching(/^import cycle: bench\/run(-steps)?\.ts → /));
    expect(problems).toContainEqual("bench/run-steps.ts: 402 lines, over 400 (split it where its parts meet)");
    expect(problems).toContainEqual(expect.stringMatching(/^bench\/uses-testing\.ts:1: imports from testing\//));
  });
});

describe("ADAPTER_ROLES", () => {
  test("gives each file one role, by its own path or its folder's", () => {
    expect(adapterRole("adapters/sql/leave-page/leave-page-queries.ts")).toBe("store");
    expect(adapterRole("adapters/node/sqlite.ts")).toBe("store");
    expect(adapterRole("adapters/node/http.ts")).toBe("host");
    expect(adapterRole("adapters/node-crypto.ts")).toBe("runtime");
    expect(adapterRole("adapters/node/other.ts")).toBeUndefined();
    const named = Object.values(ADAPTER_ROLES).flat();
    expect(new Set(named).size).toBe(named.length);
  });
});
