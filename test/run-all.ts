/**
 * `npm test`'s runner: every test file but the `*.pg.test.ts` ones on SQLite, then the
 * Postgres tier on the real Postgres server (test-files.ts: the `*.pg.test.ts` files and
 * the switched suites of postgres-suites.ts), so each file runs once for each store it
 * tests. Files that always use one store, such as the Postgres scale-out tests, run once.
 * Ends with one line: `tests: N passed, N failed`.
 */
import { finish, runBunTest, runPostgresTier, sqliteRun } from "./test-files.ts";

const sqlite = await runBunTest("SQLite", sqliteRun(), { LEAVEAPI_TEST_STORE: "sqlite" });
finish([sqlite, ...(await runPostgresTier())]);
