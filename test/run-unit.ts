/**
 * `npm run test:unit`: the unit tests (test-files.ts: neither `*.e2e.test.ts` nor
 * `*.pg.test.ts`) on SQLite, in parallel (below). The fast loop while changing code;
 * `npm test` runs everything. The Postgres address points where no server listens, so a
 * unit test that tries to reach one fails here at once rather than passing on a machine
 * that happens to run Postgres. Ends with one line: `tests: N passed, N failed`.
 */
import { ALONE, finish, isUnit, runBunTest, testFiles } from "./test-files.ts";

const NO_SERVER = "postgres://unit-tests-reach-no-server@127.0.0.1:1/none";

/**
 * One worker process per core (`--parallel`'s default, 2 here), each running its share of
 * the files one after another. `--no-isolate`: as in one `bun test` process, a worker's
 * files share one global and module registry (each store is a test's own); isolating each
 * file cost more CPU time (61 s against 31 s) than the second core gave back. No unit test
 * listens on a fixed port or writes outside a temporary directory of its own. The store
 * contract files, the longest, sort first (adapters/) and so start first.
 */
const PARALLEL = ["--parallel", "--no-isolate"];

const unit = testFiles().filter(isUnit);
const missing = ALONE.filter((f) => !unit.includes(f));
if (missing.length > 0) throw new Error(`run-unit.ts: ALONE names no unit test file: ${missing.join(", ")}`);
const env = { LEAVEAPI_TEST_STORE: "sqlite", LEAVEAPI_TEST_PG_URL: NO_SERVER };

finish([
  await runBunTest(
    "SQLite, unit tests, in parallel",
    unit.filter((f) => !ALONE.includes(f)),
    env,
    PARALLEL,
  ),
  await runBunTest("SQLite, unit tests that time the event loop, alone", ALONE, env),
]);
