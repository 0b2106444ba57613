/**
 * The README's JavaScript runs on Node 20 as written (issue 38): each ```js block is
 * checked by `node --check` as an ES module (a TypeScript-only `!` or type would fail).
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./cli-harness.ts";

const ROOT = join(import.meta.dir, "..");
const scratch = scratchDir();
afterAll(() => scratch.dispose());

test("every ```js block of the README is an ES module Node parses", async () => {
  const blocks = [...readFileSync(join(ROOT, "README.md"), "utf8").matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(1);
  for (const [i, block] of blocks.entries()) {
    const file = join(scratch.dir, `block-${i}.mjs`);
    writeFileSync(file, block);
    const node = Bun.spawn(["node", "--check", file], { stdout: "pipe", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(node.stderr).text(), node.exited]);
    expect({ block: i, code, stderr }).toEqual({ block: i, code: 0, stderr: "" });
  }
});
