/**
 * `npm run test:unit`: the unit tests (test-files.ts: neither `*.e2e.test.ts` nor
 * `*.pg.test.ts`) on SQLite, in one `bun test` run. The fast loop while changing code;
 * `npm test` runs everything. The Postgres address points where no server listens, so a
 * unit test that tries to reach one fails here at once rather than passing on a machine
 * that happens to run Postgres. Ends with one line: `tests: N passed, N failed`.
 */
import { finish, isUnit, runBunTest, testFiles } from "./test-files.ts";

const NO_SERVER = "postgres://unit-tests-reach-no-server@127.0.0.1:1/none";

finish([await runBunTest("SQLite, unit tests", testFiles().filter(isUnit), { LEAVEAPI_TEST_STORE: "sqlite", LEAVEAPI_TEST_PG_URL: NO_SERVER })]);
