/**
 * `npm run test:unit`: the unit tests (test-files.ts: neither `*.e2e.test.ts` nor
 * `*.pg.test.ts`) on SQLite, in parallel (below). The fast loop while changing code;
 * `npm test` runs everything. The Postgres address points where no server listens, so a
 * unit test that tries to reach one fails here at once rather than passing on a machine
 * that happens to run Postgres. Ends with one line: `tests: N passed, N failed`.
 */
import { finish, isUnit, runBunTest, testFiles } from "./test-files.ts";

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

/**
 * Files that time the event loop's first serving of something read once per process, run
 * alone after the rest: the docs script is read once, so in a worker that had served it
 * already (docs-page.test.ts) the test would time nothing (0.0 ms, as it did when every
 * file ran in one process).
 */
const ALONE = ["test/docs-script-loop.test.ts"];

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
