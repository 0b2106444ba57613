/**
 * `npm test`'s runner: every test file on SQLite, then again on the real Postgres server
 * the suites listed in postgres-suites.ts (those whose store comes from test-stores.ts;
 * test-wiring.test.ts keeps the list true). Files that always use one store, such as the
 * Postgres scale-out tests, run once. Ends with one line: `tests: N passed, N failed`.
 */
import { POSTGRES_SUITES } from "./postgres-suites.ts";
import { finish, runBunTest } from "./test-files.ts";

const sqlite = await runBunTest("SQLite", [], { LEAVEAPI_TEST_STORE: "sqlite" });
const postgres = await runBunTest("Postgres", POSTGRES_SUITES, { LEAVEAPI_TEST_STORE: "postgres" });
finish([sqlite, postgres]);
