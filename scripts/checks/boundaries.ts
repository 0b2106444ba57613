/**
 * The rules of scripts/check-boundaries.ts (which says why each holds), as a function of
 * the repository root, so that a test can run them on a tree made to break each one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { cycles, importGraph } from "./import-graph.ts";

export const MAX_LINES = 400;
export const DISPATCHER = "scripts/cli.ts";

/**
 * What each file of adapters/ is, by path (a folder ends in "/"). A runtime's folder holds
 * what that runtime needs side by side (adapters/bun/ a store opener, a host, a driver),
 * so a file's role is its own, not its folder's. A file of adapters/ named here under no
 * role fails the check until it is given one.
 * - store: implements the Store (or opens one, or is a part of one): imports lib/, other
 *   store files and runtime parts only;
 * - runtime: a runtime's implementation of something lib/ defines (a hash, a worker
 *   thread, a file of the binary), which a store, a host or a command passes in: imports
 *   lib/ and other runtime parts only;
 * - host: bridges a runtime's server to createHandler: imports server/ and anything below.
 */
export const ADAPTER_ROLES: Record<"store" | "runtime" | "host", readonly string[]> = {
  store: [
    "adapters/sql/",
    "adapters/memory/",
    "adapters/memory-store.ts",
    "adapters/postgres.ts",
    "adapters/bun/sqlite.ts",
    "adapters/bun/postgres-driver.ts",
    "adapters/node/sqlite.ts",
    "adapters/sqlite-tokens-file.ts",
  ],
  runtime: ["adapters/node-crypto.ts", "adapters/holiday-worker.ts", "adapters/holiday-thread.ts", "adapters/bun/docs-script-file.ts"],
  host: ["adapters/bun/serve.ts", "adapters/node/http.ts", "adapters/node/client-error.ts", "adapters/deno/serve.ts", "adapters/zlib-encoders.ts"],
};

/** The role of a file of adapters/ (a path relative to the root), or undefined when it has none. */
export function adapterRole(file: string): keyof typeof ADAPTER_ROLES | undefined {
  for (const role of ["store", "runtime", "host"] as const) {
    if (ADAPTER_ROLES[role].some((path) => (path.endsWith("/") ? file.startsWith(path) : file === path))) return role;
  }
  return undefined;
}

/** Lines that must not appear in runtime-neutral code. */
const NEUTRAL: [RegExp, string][] = [
  [/from\s+["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/import\(\s*["'](bun:|node:)/, "imports a runtime module (bun:* or node:*)"],
  [/\bDeno\./, "uses the Deno global"],
  [/\bBun\./, "uses the Bun global"],
  [/\bprocess\.env\b/, "reads process.env"],
  [/\bBuffer\b/, "uses Buffer (use Uint8Array)"],
];
const STORE_IMPLEMENTATION: [RegExp, string][] = [
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

/**
 * Which repository files each kind of file may import, by resolved path: a rule names the
 * files it governs and a test on each target. Resolving the path (not matching `../`) is
 * what lets a folder have subfolders (adapters/sql/leave-page/) under the same rule.
 */
interface ImportRule {
  governs: (file: string) => boolean;
  allows: (target: string) => boolean;
  says: string;
}
const under =
  (...dirs: string[]) =>
  (path: string) =>
    dirs.some((dir) => path.startsWith(`${dir}/`));
const IMPORT_RULES: ImportRule[] = [
  { governs: under("lib"), allows: under("lib"), says: "lib/ imports only lib/" },
  { governs: under("client"), allows: under("client", "lib"), says: "client/ imports only client/ and lib/" },
  { governs: under("testing"), allows: under("testing", "lib"), says: "testing/ imports only testing/ and lib/ (it runs on any host's store)" },
  {
    governs: under("server"),
    allows: (t) => !t.startsWith("adapters/"),
    says: "server/ imports nothing of adapters/ (it works on the Store interface of lib/store.ts)",
  },
  {
    governs: under("adapters/sql"),
    allows: under("adapters/sql", "lib"),
    says: "the SQL store imports only itself and lib/ (the opener passes in what is native to a runtime)",
  },
  {
    governs: (f) => adapterRole(f) === "store",
    allows: (t) => t.startsWith("lib/") || adapterRole(t) === "store" || adapterRole(t) === "runtime",
    says: "a store imports only lib/, stores and runtime parts, never server/, a host, scripts/ or client/",
  },
  {
    governs: (f) => adapterRole(f) === "runtime",
    allows: (t) => t.startsWith("lib/") || adapterRole(t) === "runtime",
    says: "a runtime part imports only lib/ and runtime parts",
  },
];

function* files(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mjs)$/.test(path) && !/\.test\.ts$/.test(path)) yield path;
  }
}

/** Every rule broken under `root`, one line each; none when all hold. */
export function boundaryProblems(root: string): string[] {
  const problems: string[] = [];
  const sourcesOf = (...dirs: string[]) => dirs.flatMap((dir) => [...files(join(root, dir))]).map((file) => relative(root, file));

  const check = (paths: Iterable<string>, rules: [RegExp, string][]): void => {
    for (const file of paths) {
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
          for (const [pattern, what] of rules) if (pattern.test(line)) problems.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
        });
    }
  };

  // The memory store (`leaveapi/memory`) is neutral too: Deno serves it and hosts read it as a template.
  const adapters = sourcesOf("adapters");
  const memoryStore = adapters.filter((f) => f === "adapters/memory-store.ts" || f.startsWith("adapters/memory/"));
  check([...sourcesOf("lib", "testing", "client"), ...memoryStore], NEUTRAL);
  check(sourcesOf("server"), STORE_IMPLEMENTATION);
  check(sourcesOf("adapters/sql"), SQL_STORE);
  const testingEntry = "entry/testing.ts";
  check(
    sourcesOf("lib", "server", "adapters", "scripts", "client", "entry", "examples", "bench").filter((f) => f !== testingEntry),
    FROM_TESTING,
  );

  for (const file of adapters) {
    if (adapterRole(file) === undefined) problems.push(`${file}: no role in ADAPTER_ROLES (scripts/checks/boundaries.ts): a store, a runtime part or a host?`);
  }

  const sources = sourcesOf("lib", "server", "adapters", "scripts", "client", "entry", "testing", "bin", "bench");
  const graph = importGraph(root, sources);
  for (const [file, targets] of graph) {
    for (const rule of IMPORT_RULES.filter((r) => r.governs(file))) {
      for (const target of targets.filter((t) => !rule.allows(t))) problems.push(`${file}: imports ${target}: ${rule.says}`);
    }
    if (file !== DISPATCHER) {
      for (const target of targets.filter((t) => t.startsWith("scripts/commands/"))) {
        problems.push(`${file}: imports the command ${target} (only ${DISPATCHER} loads commands; move what both need below them)`);
      }
    }
  }
  for (const cycle of cycles(graph)) problems.push(`import cycle: ${cycle.join(" → ")}`);
  problems.push(...serveThreadProblems(root));

  for (const file of sources) {
    const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
    if (lines > MAX_LINES) problems.push(`${file}: ${lines} lines, over ${MAX_LINES} (split it where its parts meet)`);
  }
  return problems;
}

/**
 * The thread that answers requests under `leaveapi serve` never holds the holiday dataset
 * (lib/public-holidays.ts): its holidays come from the worker thread, and the dataset is
 * tens of megabytes (bench/RESULTS.md, target 7). So no static import chain from the serve
 * command reaches it; a dynamic import() (the demo, the handler's in-thread default) may.
 */
function serveThreadProblems(root: string): string[] {
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
  return HOLIDAY_DATASET.filter((dataset) => reached.has(dataset)).map(
    (dataset) => `${reached.get(dataset)}: statically imports ${dataset}, which the serve thread must not load (import it dynamically where it is needed)`,
  );
}
