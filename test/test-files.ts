/**
 * The test files and how they are run, shared by `npm test` (run-all.ts), `npm run
 * test:unit` (run-unit.ts), `npm run test:postgres` (run-postgres.ts) and
 * test-wiring.test.ts. A file's name says its tier, never a list:
 * - `*.e2e.test.ts`, end-to-end: it starts a process (the command line, a server, a build,
 *   a browser, Deno or Node) or takes more than about two seconds. It may use Postgres.
 * - `*.pg.test.ts`, Postgres: it opens the real Postgres server itself, whatever store the
 *   run tests (the server is LEAVEAPI_TEST_PG_URL's, test-stores.ts).
 * - every other test file is a unit test: no process, no database server, quick.
 * `npm run test:unit` runs the unit tests on SQLite, the fast loop while changing code.
 * `npm run test:postgres` runs the Postgres tier: the `*.pg.test.ts` files and the suites
 * of postgres-suites.ts, with LEAVEAPI_TEST_STORE=postgres. `npm test` runs every other
 * file on SQLite, then the Postgres tier, so each file runs once for each store it tests.
 * test-wiring.test.ts holds the names true.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { POSTGRES_SUITES } from "./postgres-suites.ts";

export const ROOT = join(import.meta.dir, "..");

/** The names `bun test` takes for test files. */
const TEST_FILE = /[._](test|spec)\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/;
const END_TO_END = /\.e2e[._](test|spec)\.[a-z]+$/;
const POSTGRES_ONLY = /\.pg[._](test|spec)\.[a-z]+$/;

/** Every test file of the repository, relative to its root with `/`, sorted. */
export function testFiles(dir = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) found.push(...testFiles(path));
    } else if (TEST_FILE.test(entry.name)) {
      found.push(path);
    }
  }
  return found.sort();
}

export function isEndToEnd(path: string): boolean {
  return END_TO_END.test(path);
}

/** A `*.pg.test.ts` file: it opens the Postgres server whatever store the run tests. */
export function isPostgresOnly(path: string): boolean {
  return POSTGRES_ONLY.test(path);
}

export function isUnit(path: string): boolean {
  return !isEndToEnd(path) && !isPostgresOnly(path);
}

/** What `npm run test:postgres` runs, and `npm test` after the SQLite run: the `*.pg.test.ts` files and the switched suites. */
export function postgresTier(files: readonly string[] = testFiles()): string[] {
  return [...files.filter(isPostgresOnly), ...POSTGRES_SUITES].sort();
}

/**
 * Runs the Postgres tier in two `bun test` runs. The `*.pg.test.ts` files check query plans
 * and the visibility map, which depend on what an earlier file left in a schema that
 * test-stores.ts empties and hands on, so each of them starts afresh (`--isolate`: its own
 * modules, so its own database and schemas). The switched suites share their schemas.
 */
export async function runPostgresTier(): Promise<RunTotals[]> {
  const env = { LEAVEAPI_TEST_STORE: "postgres" };
  return [
    await runBunTest("Postgres, *.pg.test.ts files, each afresh", testFiles().filter(isPostgresOnly), env, ["--isolate"]),
    await runBunTest("Postgres, switched suites", POSTGRES_SUITES, env),
  ];
}

/** What `npm test` runs on SQLite: every test file but the `*.pg.test.ts` ones, which the Postgres tier runs. */
/**
 * Files that time the event loop's first serving of something read once per process, run
 * alone after the rest (by run-unit.ts and run-all.ts): the docs script is read once, so in
 * a process that had served it already (docs-page.test.ts) the test would time nothing
 * (0.0 ms, as it did when every file ran in one process).
 */
export const ALONE: readonly string[] = ["test/docs-script-loop.test.ts"];

export function sqliteRun(files: readonly string[] = testFiles()): string[] {
  return files.filter((f) => !isPostgresOnly(f));
}

export interface RunTotals {
  passed: number;
  failed: number;
  /** bun test's exit code. */
  code: number;
}

/**
 * `bun test` on the given files with `env` and `flags` added, its report passed through and
 * its totals read. A test may take 30 s: the end-to-end tests start processes, which is slow on a
 * loaded 2-core machine.
 */
export async function runBunTest(label: string, paths: readonly string[], env: Record<string, string>, flags: readonly string[] = []): Promise<RunTotals> {
  // Given no file, `bun test` would run every one.
  if (paths.length === 0) throw new Error(`${label}: no test file to run`);
  console.log(`\n== ${label}: ${paths.length} files`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...flags, ...paths.map((p) => `./${p}`)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: "inherit",
    stderr: "pipe",
  });
  // bun test writes its report to stderr: pass it through and keep the totals.
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk, { stream: true });
    process.stderr.write(text);
    tail = (tail + text).slice(-4000);
  }
  const code = await proc.exited;
  return {
    passed: Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0),
    failed: Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0),
    code,
  };
}

/** Prints the line CI reads, `tests: N passed, N failed`, and exits non-zero if any run failed. */
export function finish(runs: readonly RunTotals[]): never {
  const passed = runs.reduce((n, r) => n + r.passed, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  console.log(`\ntests: ${passed} passed, ${failed} failed`);
  const code = runs.find((r) => r.code !== 0)?.code;
  process.exit(code ?? (failed > 0 ? 1 : 0));
}
