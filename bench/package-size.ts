/**
 * What installing the npm package costs a consumer: `npm pack` (which builds dist/lib and
 * dist/cli), install the tarball into an empty project, count the packages that came
 * with it and the bytes they take. The Bun runtime the command line runs on (the `bun`
 * package and its platform binary, `@oven/*`) is counted apart: it is the command line's
 * runtime, not a library the code loads (docs/install.md).
 *
 *   bun bench/package-size.ts [--keep]
 *
 * test/npm-pack.e2e.test.ts holds the figures to the targets (PACKAGE_LIMITS) in CI.
 */
import { existsSync, readdirSync, readFileSync, lstatSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** Issue 13's targets for what the package adds to an empty project, Bun runtime excluded. */
export const PACKAGE_LIMITS = { packages: 40, bytes: 60 * 1024 * 1024 };

const RUNTIME = (path: string) => path === "node_modules/bun" || path.startsWith("node_modules/@oven/");

export interface InstallFootprint {
  /** Installed packages but the consumer itself and the Bun runtime. */
  packages: string[];
  /** Their bytes on disk (file sizes; links counted once as links). */
  bytes: number;
  runtime: { packages: string[]; bytes: number };
}

/** Bytes of the files under `path`, each file once however many hard links it has (the `bun` package links bunx to bun). */
function bytesUnder(path: string, seen = new Set<string>()): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) {
    const inode = `${stat.dev}:${stat.ino}`;
    if (seen.has(inode)) return 0;
    seen.add(inode);
    return stat.size;
  }
  let total = 0;
  for (const name of readdirSync(path)) total += bytesUnder(join(path, name), seen);
  return total;
}

/** The footprint of an installed project's node_modules, from its lockfile. */
export function installFootprint(app: string): InstallFootprint {
  const lock = JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
  // The lockfile also lists the optional packages of other platforms, which are not on disk.
  const installed = Object.keys(lock.packages).filter((path) => path.includes("node_modules/") && existsSync(join(app, path)));
  const packages = installed.filter((path) => !RUNTIME(path));
  const runtime = installed.filter(RUNTIME);
  const sum = (paths: string[]) => {
    const seen = new Set<string>();
    return paths.filter((p) => !paths.some((q) => q !== p && p.startsWith(`${q}/`))).reduce((n, p) => n + bytesUnder(join(app, p), seen), 0);
  };
  return { packages, bytes: sum(packages), runtime: { packages: runtime, bytes: sum(runtime) } };
}

async function run(argv: string[], cwd: string): Promise<string> {
  const proc = Bun.spawn(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}:\n${out}${err}`);
  return out;
}

/**
 * Builds what the package ships (the build `prepack` runs, here run first so that its output
 * does not mix with npm's JSON), packs it into `dir` and installs the tarball into `dir/app`.
 */
export async function packAndInstall(dir: string): Promise<{ tarball: string; app: string; files: string[] }> {
  await run([process.execPath, "scripts/build.ts", "--package"], ROOT);
  const packed = JSON.parse(await run(["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT)) as {
    filename: string;
    files: { path: string }[];
  }[];
  const tarball = join(dir, packed[0]!.filename);
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "leaveapi-consumer", private: true, type: "module" }));
  await run(["npm", "install", tarball, "--no-audit", "--no-fund"], app);
  return { tarball, app, files: packed[0]!.files.map((f) => f.path) };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

if (import.meta.main) {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-package-size-"));
  try {
    const { tarball, app } = await packAndInstall(dir);
    const footprint = installFootprint(app);
    console.log(`tarball: ${mib(lstatSync(tarball).size)}`);
    console.log(
      `installed, Bun runtime excluded: ${footprint.packages.length} packages, ${mib(footprint.bytes)} (limits ${PACKAGE_LIMITS.packages}, ${mib(PACKAGE_LIMITS.bytes)})`,
    );
    console.log(`  ${footprint.packages.map((p) => p.slice("node_modules/".length)).join(", ")}`);
    console.log(`Bun runtime: ${footprint.runtime.packages.length} packages, ${mib(footprint.runtime.bytes)}`);
    if (process.argv.includes("--keep")) console.log(`kept: ${app}`);
  } finally {
    if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  }
}
