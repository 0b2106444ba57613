/**
 * The benchmark must not rot: its quick mode (small data, one-second runs) goes through
 * every step of `npm run bench` (generate, import, references, every load run, Postgres)
 * and must finish with every request answered as expected and every target reported.
 * The figures themselves are not judged here: they mean something only on the full data.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("npm run bench -- --quick runs every step and reports every target", async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../bench/run.ts"), "--quick"], { stdout: "pipe", stderr: "pipe" });
  const [report, log, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, log: code === 0 ? "" : log }).toEqual({ code: 0, log: "" });
  for (const id of ["1", "2", "3", "4", "5", "7", "8", "9", "10", "12"])
    expect(report).toMatch(new RegExp(`^\\| ${id} \\| .* \\| (met|\\*\\*missed\\*\\*) \\|$`, "m"));
  // The imports against the baseline commit: judged, unless this clone lacks that commit (a shallow one) or its import fails, which the row says.
  for (const id of ["6", "6b"])
    expect(report).toMatch(
      new RegExp(`^\\| ${id} \\| .* \\| ((met|\\*\\*missed\\*\\*)|.*baseline .*(could not be prepared|failed on).* \\| reported) \\|$`, "m"),
    );
  expect(report).toContain("## Targets of issue 41 (round four)");
  for (const run of [
    "R0: Bun.serve",
    "R1-min: 11 text fields",
    "R1: bun:sqlite",
    "leaveapi: employees",
    "leaveapi: employees, Accept-Encoding: gzip",
    "leaveapi: tokens",
    "leaveapi on Postgres: leave",
    "leaveapi: sync poll pages with If-None-Match (304)",
  ])
    expect(report).toContain(`| ${run}`);
  expect(report).not.toContain("not run");
  // Four imports against the baseline commit, each with its own migrate and setup, added a good 20 s; on a 2-core machine loaded by other work the whole took 90 to 140 s.
}, 240_000);
