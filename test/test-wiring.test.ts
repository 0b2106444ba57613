/**
 * The test wiring cannot drift in silence: the Postgres list (postgres-suites.ts) names
 * exactly the files whose store is switched, no file outside `*.e2e.test.ts` starts a
 * process, and no unit test reaches the Postgres server (a file that does is named
 * `*.pg.test.ts`), so `npm run test:unit` stays fast and needs no database server.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { reachScanner } from "./import-reach.ts";
import { POSTGRES_SUITES } from "./postgres-suites.ts";
import { ROOT, isEndToEnd, isPostgresOnly, isUnit, postgresTier, sqliteRun, testFiles } from "./test-files.ts";

const TEST_STORES = join(ROOT, "test/test-stores.ts");
const opensSwitchedStore = reachScanner({ exported: (module, name) => module === TEST_STORES && name === "openTestStore" });
const startsProcess = reachScanner({
  exported: (module) => module === "node:child_process" || module === "child_process",
  code: /\bBun\s*\.\s*(spawn|spawnSync|\$)\b/,
});
/**
 * Reaching the server needs its address, PG_ADMIN_URL, or the pg driver itself. A switched
 * store is passed over: it opens Postgres only in the Postgres run, which asks for it.
 */
const reachesPostgres = reachScanner({
  exported: (module, name) => module === "pg" || (module === TEST_STORES && name === "PG_ADMIN_URL"),
  passedOver: (module, name) => module === TEST_STORES && name === "openTestStore",
});
const files = testFiles();

describe("the Postgres suites", () => {
  test("postgres-suites.ts lists exactly the test files that open a switched store", () => {
    const switched = files.filter((f) => opensSwitchedStore.file(join(ROOT, f)));
    expect({
      "open a switched store but are not in test/postgres-suites.ts": switched.filter((f) => !POSTGRES_SUITES.includes(f)),
      "are in test/postgres-suites.ts but missing or open no switched store": POSTGRES_SUITES.filter((f) => !switched.includes(f)),
    }).toEqual({
      "open a switched store but are not in test/postgres-suites.ts": [],
      "are in test/postgres-suites.ts but missing or open no switched store": [],
    });
  });

  test("the list names each file once", () => {
    expect(new Set(POSTGRES_SUITES).size).toBe(POSTGRES_SUITES.length);
  });

  test("the scan follows the helpers: createWorld and freshWorld open one, basicHeader and a mention do not", () => {
    expect(opensSwitchedStore.export(join(ROOT, "test/support.ts"), "createWorld")).toBe(true);
    expect(opensSwitchedStore.export(join(ROOT, "test/data-fixtures.ts"), "freshWorld")).toBe(true);
    expect(opensSwitchedStore.export(join(ROOT, "test/support.ts"), "basicHeader")).toBe(false);
    // Names createWorld in a comment only.
    expect(opensSwitchedStore.file(join(ROOT, "test/openapi-conformance.test.ts"))).toBe(false);
  });
});

describe("end-to-end files", () => {
  test("no test file outside *.e2e.test.ts starts a process", () => {
    const spawning = files.filter((f) => !isEndToEnd(f) && startsProcess.file(join(ROOT, f)));
    expect({ "start a process: rename each to NAME.e2e.test.ts": spawning }).toEqual({
      "start a process: rename each to NAME.e2e.test.ts": [],
    });
  });

  test("the scan sees the command-line harness and a build as starting processes", () => {
    expect(startsProcess.export(join(ROOT, "test/cli-harness.ts"), "runJson")).toBe(true);
    expect(startsProcess.export(join(ROOT, "test/cli-harness.ts"), "startServer")).toBe(true);
    expect(startsProcess.export(join(ROOT, "test/library-build.ts"), "libraryBuilt")).toBe(true);
    expect(startsProcess.export(join(ROOT, "test/cli-harness.ts"), "scratchDir")).toBe(false);
  });

  test("the name decides: e2e files are found and unit files remain", () => {
    expect(files.filter(isEndToEnd).length).toBeGreaterThan(0);
    expect(files.filter((f) => !isEndToEnd(f))).toContain("test/test-wiring.test.ts");
  });
});

describe("the Postgres tier", () => {
  test("no unit test reaches the Postgres server", () => {
    const reaching = files.filter((f) => isUnit(f) && reachesPostgres.file(join(ROOT, f)));
    expect({ "reach the Postgres server: rename each to NAME.pg.test.ts": reaching }).toEqual({
      "reach the Postgres server: rename each to NAME.pg.test.ts": [],
    });
  });

  test("every *.pg.test.ts file reaches the Postgres server and none is a switched suite, which runs on SQLite too", () => {
    const postgresOnly = files.filter(isPostgresOnly);
    expect(postgresOnly.length).toBeGreaterThan(0);
    expect({
      "reach no Postgres server: drop .pg from the name": postgresOnly.filter((f) => !reachesPostgres.file(join(ROOT, f))),
      "are switched suites too": postgresOnly.filter((f) => POSTGRES_SUITES.includes(f)),
    }).toEqual({ "reach no Postgres server: drop .pg from the name": [], "are switched suites too": [] });
  });

  test("the scan sees the Postgres helpers and passes over a switched store", () => {
    expect(reachesPostgres.export(TEST_STORES, "openPostgresSchemaStore")).toBe(true);
    expect(reachesPostgres.export(join(ROOT, "test/pg-scratch.ts"), "scratchDatabases")).toBe(true);
    expect(reachesPostgres.export(TEST_STORES, "openTestStore")).toBe(false);
    expect(reachesPostgres.export(join(ROOT, "test/support.ts"), "createWorld")).toBe(false);
    // Checks openPostgresStore's options, which fail before any address is needed.
    expect(reachesPostgres.file(join(ROOT, "test/postgres-options.test.ts"))).toBe(false);
  });

  test("npm test runs each file once for each store it tests: the SQLite run, then the Postgres tier", () => {
    const sqlite = sqliteRun(files);
    const postgres = postgresTier(files);
    expect(new Set(postgres).size).toBe(postgres.length);
    expect([...new Set([...sqlite, ...postgres])].sort()).toEqual(files);
    expect(sqlite.filter((f) => postgres.includes(f)).sort()).toEqual([...POSTGRES_SUITES].sort());
  });
});
