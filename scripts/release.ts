#!/usr/bin/env bun
/**
 * `npm run release`: what an admin installs, in dist/release/ (docs/install.md):
 *
 * - `leaveapi-<version>-linux-x64` and `leaveapi-<version>-linux-arm64`, the single binary
 *   for each (Bun cross-compiles: it fetches the other platform's runtime from the npm
 *   registry), each checked to answer `--version` (the arm64 one under qemu-user when the
 *   machine has `qemu-aarch64-static`; otherwise its ELF header is checked);
 * - `leaveapi_<version>_amd64.deb` and `leaveapi_<version>_arm64.deb`
 *   (scripts/release/debian-package.ts);
 * - `THIRD-PARTY-NOTICES.txt` and `leaveapi-<version>.cdx.json`, a CycloneDX SBOM of what
 *   the binaries contain (scripts/release/notices.ts);
 * - `SHA256SUMS` of all of them, as `sha256sum -c` reads it (from within dist/release/);
 * - with `--sign KEY`, `SHA256SUMS.minisig`: its minisign signature by the secret key in
 *   the file KEY (minisign asks for the key's password, if it has one). The matching
 *   public key is published apart from the files; docs/install.md says how to verify.
 *
 *   bun scripts/release.ts [--outdir DIR] [--only x64|arm64] [--sign KEY]
 *
 * Needs dpkg-deb (Debian's dpkg) for the packages, and minisign to sign. Dates inside the packages come from
 * SOURCE_DATE_EPOCH, else the last commit.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import { buildExecutable } from "./build.ts";
import { bundledPackages, bunRuntime } from "./release/bundled-packages.ts";
import { buildDebianPackage } from "./release/debian-package.ts";
import { renderDebianCopyright, renderNotices, renderSbom } from "./release/notices.ts";
import { renderManPage } from "./release/man-page.ts";

const ROOT = join(import.meta.dir, "..");

/** Each platform a release is built for: Bun's target, Debian's architecture, and how to run it here. */
export const PLATFORMS = [
  { name: "x64", bunTarget: "bun-linux-x64", debian: "amd64", elfMachine: 0x3e, runner: null },
  { name: "arm64", bunTarget: "bun-linux-arm64", debian: "arm64", elfMachine: 0xb7, runner: "qemu-aarch64-static" },
] as const;

export interface ReleaseFile {
  name: string;
  bytes: number;
  sha256: string;
}

export async function release(outdir: string, only?: string, signWith?: string): Promise<ReleaseFile[]> {
  if (signWith !== undefined) checkSigningKey(signWith);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const version = packageJson.version;
  const sourceDate = Number(process.env.SOURCE_DATE_EPOCH ?? (await lastCommitTime()));
  const packages = await bundledPackages();
  const runtime = bunRuntime();
  const notices = renderNotices(packageJson, packages, runtime);
  const copyright = renderDebianCopyright(readFileSync(join(ROOT, "LICENSE"), "utf8"), packages, runtime);
  const manPage = await renderManPage(version, sourceDate);
  writeFileSync(join(outdir, "THIRD-PARTY-NOTICES.txt"), notices);
  writeFileSync(join(outdir, `leaveapi-${version}.cdx.json`), renderSbom(packageJson, packages, runtime, crypto.randomUUID()));

  for (const platform of PLATFORMS) {
    if (only !== undefined && platform.name !== only) continue;
    const binary = join(outdir, `leaveapi-${version}-linux-${platform.name}`);
    // Run to check it when this machine can (itself, or qemu-user); else its ELF header is checked.
    const runner = platform.runner === null ? [] : Bun.which(platform.runner) ? [platform.runner] : { elfMachine: platform.elfMachine };
    await buildExecutable({ outfile: binary, minify: true, bytecode: true, target: platform.bunTarget }, runner);
    await buildDebianPackage({ version, architecture: platform.debian, binary, copyright, manPage, sourceDate, outdir });
  }

  const files = new Bun.Glob("*").scanSync({ cwd: outdir, onlyFiles: true });
  const listed: ReleaseFile[] = [...files].sort().map((name) => {
    const bytes = readFileSync(join(outdir, name));
    return { name, bytes: statSync(join(outdir, name)).size, sha256: createHash("sha256").update(bytes).digest("hex") };
  });
  writeFileSync(join(outdir, "SHA256SUMS"), listed.map((f) => `${f.sha256}  ${f.name}\n`).join(""));
  if (signWith !== undefined) await sign(outdir, signWith, version);
  return listed;
}

/** Before any build: minisign is installed and the key file is there, so a long build does not end in a failed signature. */
function checkSigningKey(key: string): void {
  if (!Bun.which("minisign")) throw new Error("--sign needs minisign, which is not installed (Debian: apt-get install minisign)");
  if (!existsSync(key)) throw new Error(`--sign ${key}: no such file (a minisign secret key: minisign -G makes a pair)`);
}

/** SHA256SUMS.minisig, the trusted comment naming the release; the terminal stays minisign's, for the key's password. */
async function sign(outdir: string, key: string, version: string): Promise<void> {
  const minisign = Bun.spawn(["minisign", "-S", "-s", key, "-m", "SHA256SUMS", "-t", `leaveapi ${version} release: SHA256SUMS`], {
    cwd: outdir,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  });
  const code = await minisign.exited;
  if (code !== 0) throw new Error(`minisign could not sign SHA256SUMS with ${key} (exit ${code})`);
}

/** The last commit's time in seconds (SOURCE_DATE_EPOCH for reproducible files); now outside a checkout. */
export async function lastCommitTime(): Promise<number> {
  const git = Bun.spawn(["git", "log", "-1", "--format=%ct"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const text = (await new Response(git.stdout).text()).trim();
  return (await git.exited) === 0 && text !== "" ? Number(text) : Math.floor(Date.now() / 1000);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: { outdir: { type: "string" }, only: { type: "string" }, sign: { type: "string" } },
    strict: true,
  });
  const outdir = resolve(values.outdir ?? join(ROOT, "dist/release"));
  try {
    const files = await release(outdir, values.only, values.sign === undefined ? undefined : resolve(values.sign));
    const shown = relative(process.cwd(), outdir) || outdir;
    for (const f of files) console.log(`${join(shown, f.name)}: ${(f.bytes / 1024 / 1024).toFixed(1)} MiB (${f.bytes} bytes)`);
    console.log(`${join(shown, "SHA256SUMS")}: ${files.length} files (check with: cd ${shown} && sha256sum -c SHA256SUMS)`);
    if (values.sign !== undefined)
      console.log(`${join(shown, "SHA256SUMS.minisig")}: signed (verify with: cd ${shown} && minisign -V -p PUBLIC_KEY_FILE -m SHA256SUMS)`);
  } catch (error) {
    console.error(`release: ${(error as Error).message}`);
    process.exit(1);
  }
}
