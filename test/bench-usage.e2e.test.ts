/**
 * `bun bench/run.ts` as a person runs it: `--help` and `-h` print the options (they threw
 * "Unknown option '--help'"), and an unknown flag is refused with them and exit 2, before
 * wrk is looked for or any data is generated.
 */
import { expect, test } from "bun:test";
import { runScript } from "./cli-harness.ts";

const FIRST_LINE = "usage: bun bench/run.ts [--quick] [--skip-postgres] [--out FILE] [--baseline REF]";

const bench = (...args: string[]) => runScript("bench/run.ts", args);

test("--help and -h print the options", async () => {
  for (const flag of ["--help", "-h"]) {
    const result = await bench(flag);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toStartWith(`${FIRST_LINE}\n`);
    expect(result.stdout).toContain("--baseline REF   the commit whose leave import rows 6 and 6b compare with (default 99ecee6)");
  }
});

test("an unknown flag is refused with the options and exit 2", async () => {
  const result = await bench("--quik");
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
  expect(result.stderr).toStartWith("bench: Unknown option '--quik'");
  expect(result.stderr).toContain(`\n${FIRST_LINE}\n`);
});
