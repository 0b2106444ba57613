/**
 * The package as its users import it: `leaveapi`, `leaveapi/sqlite` and the rest resolve
 * through package.json's exports map to dist/lib, which `npm pack` builds. Tests that import
 * the package by name (the examples, the packed tarball) call `libraryBuilt()` first; it
 * builds dist/lib once per test process, however many files ask.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
let building: Promise<void> | undefined;

async function build(): Promise<void> {
  const proc = Bun.spawn([process.execPath, "scripts/build.ts", "--lib-only"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`building dist/lib failed (exit ${code}):\n${out}${err}`);
}

/** Resolves once dist/lib holds a build of the current sources. */
export function libraryBuilt(): Promise<void> {
  building ??= build();
  return building;
}
