/**
 * `npm test`'s runner: every test file but the `*.pg.test.ts` ones on SQLite, then the
 * Postgres tier on the real Postgres server (test-files.ts: the `*.pg.test.ts` files and
 * the switched suites of postgres-suites.ts), so each file runs once for each store it
 * tests. Files that always use one store, such as the Postgres scale-out tests, run once.
 * The files of ALONE run in a process of their own. Ends with one line: `tests: N passed, N failed`.
 */
import { ALONE, finish, runBunTest, runPostgresTier, sqliteRun } from "./test-files.ts";

const files = sqliteRun();
const missing = ALONE.filter((f) => !files.includes(f));
if (missing.length > 0) throw new Error(`run-all.ts: ALONE names no test file: ${missing.join(", ")}`);
const env = { LEAVEAPI_TEST_STORE: "sqlite" };
const sqlite = await runBunTest(
  "SQLite",
  files.filter((f) => !ALONE.includes(f)),
  env,
);
// ALONE's files time a first serving in their process (test-files.ts).
const alone = await runBunTest("SQLite, tests that time the event loop, alone", ALONE, env);
finish([sqlite, alone, ...(await runPostgresTier())]);
