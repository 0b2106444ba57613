#!/usr/bin/env node
/**
 * The installed `leaveapi` command (README, "Getting leaveapi"). The command line is built
 * for Bun: its SQLite is bun:sqlite, and it runs the same code as the single binary. npm
 * installs Bun with the package (the `bun` package, an optional dependency whose platform
 * binary comes from the npm registry like any other package), so this launcher, run by
 * Node 20 or later, starts that Bun on the command line and stands aside: the same
 * arguments, standard streams and exit status, and the signals a service manager or a
 * terminal sends (SIGTERM, SIGINT, SIGHUP) are passed on. Bun need not be on PATH.
 * Started by `npx` or an npm script, a signal sent to npm's PID reaches this process
 * only if the shell npm runs it in hands it on: the repository's .npmrc makes that shell
 * bash, which replaces itself with the command (test/launcher-signals.e2e.test.ts).
 *
 * Which command line: in a clone, its sources (scripts/cli.ts, which Bun runs as they are),
 * so that `npx leaveapi …` works right after `npm install`, with no build, and always runs
 * the code checked out rather than an older build; in an installed package, which ships no
 * sources, the bundle in dist/cli.
 *
 * Plain JavaScript with no imports but Node's own, so that it runs before anything else
 * of the package is known to work.
 */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCES = fileURLToPath(new URL("../scripts/cli.ts", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/cli/scripts/cli.js", import.meta.url));
const FORWARDED_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"];

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A file big enough to be Bun itself, not the placeholder the `bun` package ships before its install script runs. */
function isRuntime(path) {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size > 1_000_000;
  } catch {
    return false;
  }
}

/**
 * The Bun that npm installed with this package: the `bun` package's own binary (its install
 * script puts the platform's binary there), else the platform package's binary itself
 * (where install scripts are not allowed to run).
 */
function installedBun() {
  const require = createRequire(import.meta.url);
  let bunPackage;
  try {
    bunPackage = dirname(require.resolve("bun/package.json"));
  } catch {
    return undefined;
  }
  const exe = process.platform === "win32" ? "bun.exe" : "bun";
  const candidates = [join(bunPackage, "bin", "bun.exe")];
  const fromBun = createRequire(join(bunPackage, "package.json"));
  const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "arm64" ? "aarch64" : process.arch}`;
  for (const variant of [platform, `${platform}-baseline`, `${platform}-musl`, `${platform}-musl-baseline`]) {
    try {
      candidates.push(join(dirname(fromBun.resolve(`@oven/bun-${variant}/package.json`)), "bin", exe));
    } catch {
      // That variant is not installed here.
    }
  }
  return candidates.find(isRuntime);
}

const runtime = process.versions.bun ? process.execPath : installedBun();
if (!runtime) {
  process.stderr.write(
    "leaveapi: the command line runs on Bun, which npm installs with leaveapi as the optional dependency `bun`, " +
      "and it is missing here (installed with --omit=optional, or on a platform Bun does not support). " +
      "Install it beside leaveapi with `npm install bun`, or use the single binary (docs/install.md).\n",
  );
  process.exit(1);
}

const cli = [SOURCES, BUNDLE].find(isFile);
if (!cli) {
  process.stderr.write(`leaveapi: this package is incomplete: neither ${SOURCES} nor ${BUNDLE} exists. Reinstall it.\n`);
  process.exit(1);
}

const child = spawn(runtime, [cli, ...process.argv.slice(2)], { stdio: "inherit" });
// A repeated signal is harmless: the command line stops once, however many arrive.
const forward = (signal) => () => child.kill(signal);
for (const signal of FORWARDED_SIGNALS) process.on(signal, forward(signal));
child.on("error", (error) => {
  process.stderr.write(`leaveapi: cannot start ${runtime}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that whoever started us sees what happened to the command.
    for (const s of FORWARDED_SIGNALS) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
