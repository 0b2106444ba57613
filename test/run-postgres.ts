/**
 * `npm run test:postgres`: the Postgres tier (test-files.ts) on the real Postgres server at
 * LEAVEAPI_TEST_PG_URL: the `*.pg.test.ts` files, then the suites of postgres-suites.ts,
 * with LEAVEAPI_TEST_STORE=postgres. `npm test` runs the same after its SQLite run. Ends
 * with one line: `tests: N passed, N failed`.
 */
import { finish, runPostgresTier } from "./test-files.ts";

finish(await runPostgresTier());
