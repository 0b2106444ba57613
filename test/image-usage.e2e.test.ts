/**
 * `bun scripts/image.ts` as a person runs it: `--help` and `-h` print the usage (they used
 * to throw "Unknown option '--help'"), and an unknown flag is refused with the usage and
 * exit 2, before buildah or the release binary are looked for.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const SCRIPT = join(import.meta.dir, "../scripts/image.ts");
const USAGE = "usage: bun scripts/image.ts [--binary FILE] [--arch amd64|arm64] [--tag NAME] [--archive FILE]";

async function image(...args: string[]) {
  const proc = Bun.spawn([process.execPath, SCRIPT, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

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
