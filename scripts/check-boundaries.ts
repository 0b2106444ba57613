/**
 * Fails when dependencies stop pointing one way (STYLE.md):
 * - lib/ (and testing/, client/, the memory store) depends on anything runtime-specific or
 *   on the layers above it: lib/ runs unchanged on Bun, Deno and Node;
 * - anything but a test imports from testing/ (production code, examples/, bench/; a test
 *   is under test/ or named *.test.ts): that is `leaveapi/testing`, for test runners, and
 *   only its own entry point, entry/testing.ts, exports it. What production code and the
 *   contracts share lives in lib/ (lib/store-contents.ts);
 * - server/ imports a store implementation (adapters/, `leaveapi/sqlite` and the like, a
 *   database driver): it maps HTTP to lib/'s operations over the Store interface, and
 *   which store serves them is the host's choice, passed to createHandler.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");
const FORBIDDEN: [RegExp, string][] = [
  [/from\s+["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/import\(\s*["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/from\s+["'](\.\.\/)+(server|adapters|scripts)\//, "imports from a layer above lib/"],
  [/\bDeno\./, "uses the Deno global"],
  [/\bBun\./, "uses the Bun global"],
  [/\bprocess\.env\b/, "reads process.env"],
  [/\bBuffer\b/, "uses Buffer (use Uint8Array)"],
];
const STORE_IMPLEMENTATION: [RegExp, string][] = [
  [/(from\s+|import\(\s*)["'](\.{1,2}\/)+adapters\//, "imports from adapters/ (server/ works on the Store interface of lib/store.ts)"],
  [
    /(from\s+|import\(\s*)["'](leaveapi\/(sqlite|postgres|memory)|kysely|pg|bun:sqlite|node:sqlite)["']/,
    "imports a store implementation or database driver (server/ works on the Store interface of lib/store.ts)",
  ],
];
const FROM_TESTING: [RegExp, string][] = [
  [/(from\s+|import\(\s*)["'](\.{1,2}\/)+testing\//, "imports from testing/ (move what it needs to lib/)"],
  [/(from\s+|import\(\s*)["']leaveapi\/testing["']/, "imports leaveapi/testing (move what it needs to lib/)"],
];

function* files(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mjs)$/.test(path) && !/\.test\.ts$/.test(path)) yield path;
  }
}

const problems: string[] = [];

function check(paths: Iterable<string>, rules: [RegExp, string][]): void {
  for (const file of paths) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        for (const [pattern, what] of rules) {
          if (pattern.test(line)) problems.push(`${relative(root, file)}:${i + 1}: ${what}: ${line.trim()}`);
        }
      });
  }
}

// testing/ ships as `leaveapi/testing` for host applications' own test runners, and client/
// as `leaveapi/client` for integrators on Node, Bun and Deno: both neutral too. So is the
// memory store (`leaveapi/memory`), which Deno serves and hosts read as a template.
const memoryStore = [join(root, "adapters/memory-store.ts"), ...files(join(root, "adapters/memory"))];
check([...files(join(root, "lib")), ...files(join(root, "testing")), ...files(join(root, "client")), ...memoryStore], FORBIDDEN);

check(files(join(root, "server")), STORE_IMPLEMENTATION);

const testingEntry = join(root, "entry/testing.ts");
const notTests = ["lib", "server", "adapters", "scripts", "client", "entry", "examples", "bench"].flatMap((dir) => [...files(join(root, dir))]);
check(
  notTests.filter((file) => file !== testingEntry),
  FROM_TESTING,
);

if (problems.length > 0) {
  console.error(`Dependencies must point one way (STYLE.md):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(
  "boundaries: lib/, testing/, client/ and the memory store import nothing runtime-specific or from server/, adapters/, scripts/; " +
    "server/ imports no store implementation; nothing but tests and entry/testing.ts imports testing/",
);
