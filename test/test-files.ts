/**
 * The test files and how they are run, shared by `npm test` (run-all.ts), `npm run
 * test:unit` (run-unit.ts) and test-wiring.test.ts. A file named `*.e2e.test.ts` is
 * end-to-end: it starts a process (the command line, a server, a build, a browser, Deno or
 * Node) or takes more than about two seconds. Every other test file is a unit test; which
 * is which is read from the name, never from a list.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");

/** The names `bun test` takes for test files. */
const TEST_FILE = /[._](test|spec)\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/;
const END_TO_END = /\.e2e[._](test|spec)\.[a-z]+$/;

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

export interface RunTotals {
  passed: number;
  failed: number;
  /** bun test's exit code. */
  code: number;
}

/**
 * `bun test` on the given files (every test file when `paths` is empty) with `env` added,
 * its report passed through and its totals read. A test may take 30 s: the end-to-end
 * tests start processes, which is slow on a loaded 2-core machine.
 */
export async function runBunTest(label: string, paths: readonly string[], env: Record<string, string>): Promise<RunTotals> {
  console.log(`\n== ${label}: ${paths.length === 0 ? "every test file" : `${paths.length} files`}`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...paths.map((p) => `./${p}`)], {
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
