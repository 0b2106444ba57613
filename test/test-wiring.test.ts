/**
 * The test wiring cannot drift in silence: the Postgres list (postgres-suites.ts) names
 * exactly the files whose store is switched, and no file outside `*.e2e.test.ts` starts a
 * process, so `npm run test:unit` stays fast.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { reachScanner } from "./import-reach.ts";
import { POSTGRES_SUITES } from "./postgres-suites.ts";
import { ROOT, isEndToEnd, testFiles } from "./test-files.ts";

const TEST_STORES = join(ROOT, "test/test-stores.ts");
const opensSwitchedStore = reachScanner({ exported: (module, name) => module === TEST_STORES && name === "openTestStore" });
const startsProcess = reachScanner({
  exported: (module) => module === "node:child_process" || module === "child_process",
  code: /\bBun\s*\.\s*(spawn|spawnSync|\$)\b/,
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
