/**
 * The npm package's command line (part of `npm pack` and `npm run build`): scripts/cli.ts
 * and everything it runs, bundled for Bun into dist/cli, so that the installed `leaveapi`
 * command needs no package but the Bun runtime that npm installs with it (bin/leaveapi.mjs
 * starts it; docs/install.md). The Postgres driver is bundled too: an admin on Postgres
 * installs nothing more. Only pg's optional libpq binding, which is never asked for, stays
 * out. The holiday thread is an entry of its own, at dist/cli/adapters/holiday-thread.js
 * (adapters/holiday-worker.ts finds it there).
 *
 * The build fails unless the bundle answers `--version` from a folder with no node_modules,
 * and unless no output names the machine's build folder.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { checkNoBuildPaths, THREAD_ENTRIES } from "./build-library.ts";

const ROOT = join(import.meta.dir, "..");
export const CLI_OUTDIR = join(ROOT, "dist/cli");
/** The command line's entry in the bundle; bin/leaveapi.mjs runs this file. */
export const CLI_MAIN = "scripts/cli.js";

/** How the command line is bundled: dist/cli, and the inventory of what it contains (scripts/release/bundled-packages.ts). */
export function cliBuildConfig(outdir: string) {
  return {
    entrypoints: [join(ROOT, "scripts/cli.ts"), ...THREAD_ENTRIES.map((path) => join(ROOT, path))],
    root: ROOT,
    outdir,
    target: "bun",
    format: "esm",
    splitting: true,
    naming: { chunk: "chunks/[name]-[hash].[ext]" },
    external: ["pg-native"],
    throw: false,
  } satisfies Bun.BuildConfig;
}

/** Builds dist/cli from scratch and checks that it runs; returns the entry's path. Throws on any failure. */
export async function buildCli(outdir: string = CLI_OUTDIR): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build(cliBuildConfig(outdir));
  if (!result.success) throw new Error(`bun build (command line) failed:\n${result.logs.map(String).join("\n")}`);
  checkNoBuildPaths(outdir);

  const main = join(outdir, CLI_MAIN);
  // From the file system root, where no node_modules can be found.
  const check = Bun.spawn([process.execPath, main, "--version"], { cwd: "/", stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } });
  const [out, err, code] = await Promise.all([new Response(check.stdout).text(), new Response(check.stderr).text(), check.exited]);
  if (code !== 0 || out.trim() !== packageJson.version) throw new Error(`the bundled command line does not run: --version exited ${code}: ${out}${err}`);
  return main;
}
