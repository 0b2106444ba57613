/**
 * Fails when dependencies stop pointing one way, so that each layer can be read, tested and
 * changed without the ones above it, and when a source file grows past what can be read at
 * one sitting:
 * - lib/ (and testing/, client/, the memory store) depends on anything runtime-specific or
 *   on the layers above it: lib/ runs unchanged on Bun, Deno and Node;
 * - anything but a test imports from testing/ (production code, examples/, bench/; a test
 *   is under test/ or named *.test.ts): that is `leaveapi/testing`, for test runners, and
 *   only its own entry point, entry/testing.ts, exports it. What production code and the
 *   contracts share lives in lib/ (lib/store-contents.ts);
 * - server/ imports a store implementation (adapters/, `leaveapi/sqlite` and the like, a
 *   database driver): it maps HTTP to lib/'s operations over the Store interface, and
 *   which store serves them is the host's choice, passed to createHandler;
 * - adapters/sql/ imports a runtime module or another adapter (adapters/node-crypto.ts,
 *   adapters/bun/…): the one SQL store runs on Bun, Node and Deno, and what is native to
 *   a runtime (a driver, a faster digest) is passed in by the adapter that opens it;
 * - any file takes part in an import cycle (scripts/checks/import-graph.ts): files in a
 *   cycle can only be understood, loaded and tested together, so the shared piece belongs
 *   in a module below both. `import type` counts: it couples the files all the same;
 * - anything but the dispatcher, scripts/cli.ts, imports a command of scripts/commands/:
 *   commands are the top of the command line, built from scripts/serve/, scripts/import/
 *   and the rest, never the other way round;
 * - a source file (not a test) is over 400 lines: split it where its parts meet.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { cycles, importGraph, importsOf } from "./checks/import-graph.ts";

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
const SQL_STORE: [RegExp, string][] = [
  [/(from\s+|import\(\s*)["'](bun:|node:)/, "imports a runtime module (the opener in adapters/bun/, adapters/node/ or adapters/postgres.ts passes it in)"],
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
check(files(join(root, "adapters/sql")), SQL_STORE);
for (const file of files(join(root, "adapters/sql"))) {
  for (const target of importsOf(root, relative(root, file))) {
    if (!/^(adapters\/sql|lib)\//.test(target)) {
      problems.push(`${relative(root, file)}: imports ${target}, another adapter (the opener passes what the SQL store needs)`);
    }
  }
}

const testingEntry = join(root, "entry/testing.ts");
const notTests = ["lib", "server", "adapters", "scripts", "client", "entry", "examples", "bench"].flatMap((dir) => [...files(join(root, dir))]);
check(
  notTests.filter((file) => file !== testingEntry),
  FROM_TESTING,
);

const sources = ["lib", "server", "adapters", "scripts", "client", "entry", "testing", "bin"]
  .flatMap((dir) => [...files(join(root, dir))])
  .map((file) => relative(root, file));
const graph = importGraph(root, sources);
for (const cycle of cycles(graph)) problems.push(`import cycle: ${cycle.join(" → ")}`);

const DISPATCHER = "scripts/cli.ts";
for (const [file, imports] of graph) {
  if (file === DISPATCHER) continue;
  for (const target of imports.filter((t) => t.startsWith("scripts/commands/"))) {
    problems.push(`${file}: imports the command ${target} (only ${DISPATCHER} loads commands; move what both need below them)`);
  }
}

// The thread that answers requests under `leaveapi serve` never holds the holiday dataset
// (lib/public-holidays.ts): its holidays come from the worker thread, and the dataset is
// tens of megabytes (bench/RESULTS.md, target 7). So no static import chain from the serve
// command reaches it; a dynamic import() (the demo, the handler's in-thread default) may.
const staticImports = (file: string): string[] =>
  [...readFileSync(join(root, file), "utf8").matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.{1,2}\/[^"']+)["']/gm)]
    .filter((m) => !/^\s*import\s+type\s/.test(m[0]) && !/^\s*export\s+type\s/.test(m[0]))
    .map((m) => relative(root, join(dirname(join(root, file)), m[1]!)));
const SERVE_THREAD = "scripts/commands/serve.ts";
const HOLIDAY_DATASET = ["lib/shipped-holidays.ts"];
const reached = new Map<string, string>([[SERVE_THREAD, SERVE_THREAD]]);
for (const file of reached.keys()) {
  if (!existsSync(join(root, file))) continue;
  for (const target of staticImports(file)) if (!reached.has(target)) reached.set(target, file);
}
for (const dataset of HOLIDAY_DATASET) {
  if (reached.has(dataset))
    problems.push(`${reached.get(dataset)}: statically imports ${dataset}, which the serve thread must not load (import it dynamically where it is needed)`);
}

const MAX_LINES = 400;
for (const file of sources) {
  const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
  if (lines > MAX_LINES) problems.push(`${file}: ${lines} lines, over ${MAX_LINES} (split it where its parts meet)`);
}

if (problems.length > 0) {
  console.error(`Dependencies must point one way, without cycles, in files of at most ${MAX_LINES} lines:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(
  "boundaries: lib/, testing/, client/ and the memory store import nothing runtime-specific or from server/, adapters/, scripts/; " +
    "server/ imports no store implementation; adapters/sql/ nothing runtime-specific nor another adapter; nothing but tests and entry/testing.ts imports testing/; " +
    `no import cycles; only ${DISPATCHER} imports scripts/commands/; the serve thread loads no holiday dataset; no source file over ${MAX_LINES} lines`,
);
