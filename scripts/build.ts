#!/usr/bin/env bun
/**
 * `npm run build`: compiles the `leaveapi` command line into one self-contained executable,
 * `dist/leaveapi`, with `bun build --compile`, and builds what the npm package ships: the
 * library (JavaScript and `.d.ts` for every entry point) into dist/lib
 * (scripts/build-library.ts) and the command line bundled for Bun into dist/cli
 * (scripts/build-cli.ts). `--package` builds just those two (`npm pack` runs that),
 * `--lib-only` just the library.
 *
 *   bun scripts/build.ts [--outfile PATH] [--no-minify] [--no-bytecode] [--package | --lib-only]
 *
 * Everything the program needs at run time is bundled into it: the migrations and the
 * OpenAPI document are code, the `date-holidays` dataset is a static JSON import and
 * package.json's version is an import attribute, so the file runs from any directory with
 * no node_modules. The build fails unless the new binary answers `--version` with
 * package.json's version, so a compiler option that breaks start-up never ships.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import { buildCli } from "./build-cli.ts";
import { buildLibrary } from "./build-library.ts";

const ROOT = join(import.meta.dir, "..");
const ENTRY = join(ROOT, "scripts/cli.ts");
const HOLIDAY_THREAD = join(ROOT, "adapters/holiday-thread.ts");
const DEFAULT_OUTFILE = join(ROOT, "dist/leaveapi");

export interface BuildOptions {
  outfile: string;
  /** A smaller binary; start-up time is the same either way (bench/cold-start.ts). Default on. */
  minify: boolean;
  /**
   * Precompiled bytecode: a larger binary that starts to its first answered request much
   * sooner (bench/cold-start.ts). Default on. Bun compiles bytecode as CJS unless
   * told otherwise, and CJS rejects cli.ts's top-level await, so it is built as ESM.
   */
  bytecode: boolean;
  /** Another platform to compile for (`npm run release`: `bun-linux-arm64`); by default this machine's. */
  target?: string;
}

function bunBuildArgs(options: BuildOptions): string[] {
  return [
    "build",
    "--compile",
    `--target=${options.target ?? "bun"}`,
    ...(options.minify ? ["--minify"] : []),
    ...(options.bytecode ? ["--bytecode", "--format=esm"] : []),
    // Configuration is flags, then environment, then defaults (README): a stray .env or
    // bunfig.toml in the server's working directory must not change it behind the operator's back.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    // pg loads its optional libpq binding only when asked for `pg.native`, which we never do.
    "--external=pg-native",
    ENTRY,
    // A worker thread's code is an entry point of its own in a compiled binary.
    HOLIDAY_THREAD,
    "--outfile",
    options.outfile,
  ];
}

/** Builds the executable and checks it starts; returns its size in bytes. Throws on any failure. */
export async function buildExecutable(options: BuildOptions, runner?: string[] | { elfMachine: number }): Promise<number> {
  mkdirSync(dirname(options.outfile), { recursive: true });
  const build = Bun.spawn([process.execPath, ...bunBuildArgs(options)], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error(`bun build failed (exit ${build.exitCode})`);

  // A binary for a platform this machine cannot run is checked to be an executable for it.
  if (runner !== undefined && !Array.isArray(runner)) {
    const header = readFileSync(options.outfile).subarray(0, 20);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header.readUInt16LE(18) !== runner.elfMachine)
      throw new Error(`${options.outfile} is not an ELF executable for ${options.target}`);
    return statSync(options.outfile).size;
  }
  // Run from the file system root, where no node_modules can be found; a binary for
  // another platform is run by `runner` (qemu-user), when the caller has one.
  const check = Bun.spawn([...(runner ?? []), options.outfile, "--version"], { cwd: "/", stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } });
  const [out, err, code] = await Promise.all([new Response(check.stdout).text(), new Response(check.stderr).text(), check.exited]);
  if (code !== 0 || out.trim() !== packageJson.version) {
    throw new Error(`the built ${options.outfile} does not run: '${options.outfile} --version' exited ${code}: ${out}${err}`);
  }
  return statSync(options.outfile).size;
}

const USAGE = "usage: bun scripts/build.ts [--outfile PATH] [--no-minify] [--no-bytecode] [--package | --lib-only]";

function parseBuildArgs(argv: string[]): BuildOptions & { libOnly: boolean; packageOnly: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: {
      outfile: { type: "string" },
      "no-minify": { type: "boolean" },
      "no-bytecode": { type: "boolean" },
      "lib-only": { type: "boolean" },
      package: { type: "boolean" },
    },
    strict: true,
  });
  return {
    outfile: resolve(values.outfile ?? DEFAULT_OUTFILE),
    minify: !values["no-minify"],
    bytecode: !values["no-bytecode"],
    libOnly: values["lib-only"] ?? false,
    packageOnly: values.package ?? false,
  };
}

if (import.meta.main) {
  let options: ReturnType<typeof parseBuildArgs>;
  try {
    options = parseBuildArgs(Bun.argv.slice(2));
  } catch (error) {
    console.error(`build: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  try {
    const entries = await buildLibrary();
    console.log(`dist/lib: JavaScript for Node, Bun and Deno and declarations, ${entries.length} entry files`);
    if (options.libOnly) process.exit(0);
    await buildCli();
    console.log("dist/cli: the command line, bundled for Bun");
    if (options.packageOnly) process.exit(0);
    const size = await buildExecutable(options);
    const flags = [options.minify && "minify", options.bytecode && "bytecode"].filter(Boolean).join(", ") || "plain";
    const shown = relative(process.cwd(), options.outfile);
    console.log(
      `${shown.startsWith("..") ? options.outfile : shown}: leaveapi ${packageJson.version}, ${(size / 1024 / 1024).toFixed(1)} MiB (${size} bytes; ${flags})`,
    );
  } catch (error) {
    console.error(`build: ${(error as Error).message}`);
    process.exit(1);
  }
}
