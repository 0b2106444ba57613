/**
 * `npm test`'s runner: every test file on SQLite, then again on the real Postgres server
 * the suites whose store comes from test-stores.ts (those that call createWorld or
 * openTestStore). Files that always use one store, such as the Postgres scale-out tests,
 * run once. Ends with one line: `tests: N passed, N failed`. A test may take 30 s: the
 * end-to-end tests start processes, which is slow on a loaded 2-core machine.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const TEST_DIR = import.meta.dir;
const STORE_SWITCHED = /\b(createWorld|openTestStore|freshWorld)\b/;

const files = readdirSync(TEST_DIR).filter((f) => f.endsWith(".test.ts"));
const switched = files.filter((f) => STORE_SWITCHED.test(readFileSync(join(TEST_DIR, f), "utf8")));

let passed = 0;
let failed = 0;
let exitCode = 0;

async function run(label: string, paths: string[], env: Record<string, string>): Promise<void> {
  console.log(`\n== ${label}: ${paths.length === 0 ? "every test file" : `${paths.length} files`}`);
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "30000", ...paths.map((p) => `./test/${p}`)], {
    cwd: join(TEST_DIR, ".."),
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
  passed += Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
  failed += Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
  if (code !== 0) exitCode = code;
}

await run("SQLite", [], { LEAVEAPI_TEST_STORE: "sqlite" });
await run("Postgres", switched, { LEAVEAPI_TEST_STORE: "postgres" });
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(exitCode !== 0 ? exitCode : failed > 0 ? 1 : 0);
