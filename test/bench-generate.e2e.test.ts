/**
 * `bun bench/generate.ts` as a person runs it (issue 35.6): `--help` prints the usage and
 * writes nothing (it used to write 355 MB of default files), an unknown flag or a bad
 * count is refused with exit 2, and a small run writes the two files it names.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./cli-harness.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());
const SCRIPT = join(import.meta.dir, "../bench/generate.ts");

async function generate(...args: string[]) {
  const proc = Bun.spawn([process.execPath, SCRIPT, ...args], { cwd: scratch.dir, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

test("--help and -h print the usage and write nothing", async () => {
  for (const flag of ["--help", "-h"]) {
    const result = await generate(flag);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("usage: bun bench/generate.ts [--employees N] [--bookings N] [--out DIR] [--seed N] [--prefix TEXT]\n");
    expect(result.stderr).toBe("");
  }
  expect(readdirSync(scratch.dir)).toEqual([]);
});

test("an unknown flag, a stray argument or a count that is no whole number is refused with the usage, exit 2, nothing written", async () => {
  for (const args of [["--employes", "5"], ["data"], ["--bookings", "1e6"], ["--employees", "-3"], ["--seed"]]) {
    const result = await generate(...args);
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: "" });
    expect(result.stderr).toContain("usage: bun bench/generate.ts");
  }
  expect(result(await generate("--bookings", "1e6"))).toBe("--bookings must be a whole number of at least 0, not '1e6'");
  expect(readdirSync(scratch.dir)).toEqual([]);
});

test("a small run writes the two files it prints", async () => {
  const out = join(scratch.dir, "small");
  const run = await generate("--employees", "3", "--bookings", "5", "--out", out, "--prefix", "a-");
  expect(run.code).toBe(0);
  const files = JSON.parse(run.stdout) as { employees: string; leave: string };
  expect(files).toEqual({ employees: join(out, "a-employees.jsonl"), leave: join(out, "a-leave.jsonl") });
  expect(readFileSync(files.employees, "utf8").trimEnd().split("\n")).toHaveLength(3);
  expect(readFileSync(files.leave, "utf8").trimEnd().split("\n")).toHaveLength(5);
  expect(existsSync(join(scratch.dir, "bench"))).toBe(false);
});

/** The first line of a refusal's stderr: what was wrong. */
function result(run: { stderr: string }): string {
  return run.stderr.split("\n")[0]!;
}
