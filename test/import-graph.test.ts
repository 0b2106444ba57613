/**
 * The import graph behind scripts/check-boundaries.ts's "no import cycles": which edges
 * count (type imports, re-exports, literal dynamic imports; not comments, not packages)
 * and that every knot is reported, as a path that closes on itself.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cycles, importGraph, importsOf, type ImportGraph } from "../scripts/checks/import-graph.ts";

const root = mkdtempSync(join(tmpdir(), "leaveapi-import-graph-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): string {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
  return path;
}

describe("importsOf", () => {
  test("counts every kind of relative import, and only files that exist", () => {
    for (const name of ["a", "b", "c", "d", "e", "f"]) write(`lib/${name}.ts`, "export {};\n");
    const file = write(
      "lib/main.ts",
      [
        'import { x } from "./a.ts";',
        'import type { T } from "./b.ts";',
        'export { y } from "./c.ts";',
        'import "./d.ts";',
        'const m = await import("./e.ts");',
        "import {",
        "  z,",
        '} from "../lib/f.ts";',
        'import * as v from "valibot";',
        'import { readFileSync } from "node:fs";',
        'import { gone } from "./missing.ts";',
        '// import { old } from "./commented.ts";',
        '/* import { older } from "./block-commented.ts"; */',
      ].join("\n"),
    );
    expect(importsOf(root, file).sort()).toEqual(["lib/a.ts", "lib/b.ts", "lib/c.ts", "lib/d.ts", "lib/e.ts", "lib/f.ts"]);
  });

  test("builds the graph over the files given", () => {
    const a = write("g/a.ts", 'import { b } from "./b.ts";\n');
    const b = write("g/b.ts", "export const b = 1;\n");
    expect(importGraph(root, [a, b])).toEqual(
      new Map([
        [a, [b]],
        [b, []],
      ]),
    );
  });
});

describe("cycles", () => {
  const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  test("finds none in a graph whose edges point one way", () => {
    expect(cycles(graph({ a: ["b", "c"], b: ["c"], c: [], d: ["a", "outside"] }))).toEqual([]);
  });

  test("names each knot once, as a path from its first file back to it", () => {
    const found = cycles(
      graph({
        "fast-paths": ["sqlite-store"],
        "sqlite-store": ["fast-paths", "admin-store"],
        "admin-store": ["import-writer"],
        "import-writer": ["staged-inserts"],
        "staged-inserts": ["fast-paths"],
        serve: ["commands"],
        commands: ["serve"],
        lib: [],
      }),
    );
    expect(found).toHaveLength(2);
    expect(found).toContainEqual(["admin-store", "import-writer", "staged-inserts", "fast-paths", "sqlite-store", "admin-store"]);
    expect(found).toContainEqual(["commands", "serve", "commands"]);
  });

  test("reports a file that imports itself", () => {
    expect(cycles(graph({ a: ["a"], b: [] }))).toEqual([["a", "a"]]);
  });

  test("walks a long chain without running out of stack", () => {
    const edges: Record<string, string[]> = {};
    for (let i = 0; i < 50_000; i++) edges[`f${i}`] = [`f${i + 1}`];
    edges.f50000 = ["f0"];
    const [cycle] = cycles(graph(edges));
    expect(cycle).toHaveLength(50_002);
  });
});
