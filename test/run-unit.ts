/**
 * `npm run test:unit`: every test file not named `*.e2e.test.ts`, on SQLite, in one
 * `bun test` run. The fast loop while changing code; `npm test` runs everything. Ends with
 * one line: `tests: N passed, N failed`.
 */
import { finish, isEndToEnd, runBunTest, testFiles } from "./test-files.ts";

const unit = testFiles().filter((f) => !isEndToEnd(f));
finish([await runBunTest("SQLite, unit tests", unit, { LEAVEAPI_TEST_STORE: "sqlite" })]);
