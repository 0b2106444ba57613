/**
 * `bun scripts/image.ts` as a person runs it: `--help` and `-h` print the usage (they used
 * to throw "Unknown option '--help'"), and an unknown flag is refused with the usage and
 * exit 2, before buildah or the release binary are looked for.
 */
import { expect, test } from "bun:test";
import { runScript } from "./cli-harness.ts";

const USAGE = "usage: bun scripts/image.ts [--binary FILE] [--arch amd64|arm64] [--tag NAME] [--archive FILE]";

const image = (...args: string[]) => runScript("scripts/image.ts", args);

test("--help and -h print the usage", async () => {
  for (const flag of ["--help", "-h"]) {
    expect(await image(flag)).toEqual({ code: 0, stdout: `${USAGE}\n`, stderr: "" });
  }
});

test("an unknown flag is refused with the usage and exit 2", async () => {
  const result = await image("--tga");
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
  expect(result.stderr).toStartWith("image: Unknown option '--tga'");
  expect(result.stderr).toEndWith(`\n${USAGE}\n`);
});
