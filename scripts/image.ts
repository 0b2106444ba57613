#!/usr/bin/env bun
/**
 * `npm run image`: a container image of the release binary (docs/install.md, "Containers"),
 * built with buildah from nothing but what the binary needs: the binary as
 * /usr/bin/leaveapi and the C library it links against (the ELF interpreter and each
 * NEEDED library, from this machine's glibc, with glibc's copyright file), a `leaveapi`
 * user (uid and gid 10001) to run as, and /var/lib/leaveapi, owned by that user, as a
 * volume for the SQLite database. No shell, no package manager.
 *
 *   bun scripts/image.ts [--binary FILE] [--arch amd64|arm64] [--tag NAME] [--archive FILE]
 *
 * By default the binary is dist/release/leaveapi-<version>-linux-x64 (`npm run release`
 * writes it) and the image is tagged leaveapi:<version> in the local containers-storage,
 * which podman uses; `--archive FILE` also writes it as a docker-archive for
 * `docker load` / `podman load`. Docker's image format, not OCI's: only it carries a
 * HEALTHCHECK (`leaveapi healthcheck`, a GET of /livez: the image has no curl). Layers and
 * dates are the same from the same inputs (SOURCE_DATE_EPOCH, else the last commit).
 * Needs buildah, readelf (binutils) and GNU tar, and the C library of the image's
 * architecture installed on this machine (for arm64: libc6:arm64).
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import { lastCommitTime } from "./release.ts";

const ROOT = join(import.meta.dir, "..");
export const IMAGE_UID = 10001;

const ARCHES = {
  amd64: { release: "x64", triplet: "x86_64-linux-gnu" },
  arm64: { release: "arm64", triplet: "aarch64-linux-gnu" },
} as const;
type Arch = keyof typeof ARCHES;

export interface ImageOptions {
  binary: string;
  arch: Arch;
  tag: string;
  archive?: string;
  sourceDate: number;
}

async function run(command: string[], what: string): Promise<string> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  } catch {
    throw new Error(`${what} needs ${command[0]}, which is not installed (Debian: apt-get install buildah binutils)`);
  }
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${what}: ${command.join(" ")} exited ${code}: ${err.trim() || out.trim()}`);
  return out.trim();
}

/**
 * The C library files the binary loads, as paths on this machine: its ELF interpreter (the
 * file, and the path the binary names when that is a link to it, as Debian's /lib64 is)
 * and every NEEDED library.
 */
export async function neededLibraries(binary: string, arch: Arch): Promise<{ files: string[]; links: { path: string; target: string }[] }> {
  const headers = await run(["readelf", "-l", "-d", binary], "reading the binary's ELF headers");
  const interpreter = /\[Requesting program interpreter: (.+)\]/.exec(headers)?.[1];
  if (!interpreter) throw new Error(`${binary}: no ELF interpreter: not a dynamically linked Linux executable`);
  const libdir = `/lib/${ARCHES[arch].triplet}`;
  const needed = [...headers.matchAll(/\(NEEDED\)\s+Shared library: \[(.+)\]/g)].map((m) => `${libdir}/${m[1]!}`);
  const missing = [interpreter, ...needed].filter((path) => !existsSync(path));
  if (missing.length > 0)
    throw new Error(
      `${missing.join(", ")} missing: the image needs ${arch}'s C library on this machine (Debian: apt-get install libc6${arch === "amd64" ? "" : `:${arch}`})`,
    );
  const loader = linkTarget(interpreter);
  const files = [...new Set([loader, ...needed.map(linkTarget)])];
  return { files, links: loader === interpreter ? [] : [{ path: interpreter, target: loader }] };
}

/** The file a path names, following links of the file itself but not of the folders on the way (/lib stays /lib on a merged-/usr system). */
function linkTarget(path: string): string {
  let at = path;
  for (let hops = 0; lstatSync(at).isSymbolicLink(); hops++) {
    if (hops > 10) throw new Error(`${path}: too many symbolic links`);
    const target = readlinkSync(at);
    at = isAbsolute(target) ? target : join(dirname(at), target);
  }
  return at;
}

/** Writes the image's files into `stage` (all root's) and `data` (the volume, the user's). */
async function stageFiles(options: ImageOptions, stage: string): Promise<void> {
  const put = (path: string, content: string) => {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    writeFileSync(join(stage, path), content);
  };
  mkdirSync(join(stage, "usr/bin"), { recursive: true });
  copyFileSync(options.binary, join(stage, "usr/bin/leaveapi"));
  const libraries = await neededLibraries(options.binary, options.arch);
  for (const file of libraries.files) {
    mkdirSync(dirname(join(stage, file)), { recursive: true });
    copyFileSync(file, join(stage, file));
  }
  for (const link of libraries.links) {
    mkdirSync(dirname(join(stage, link.path)), { recursive: true });
    symlinkSync(link.target, join(stage, link.path));
  }
  if (existsSync("/usr/share/doc/libc6/copyright")) put("usr/share/doc/libc6/copyright", await Bun.file("/usr/share/doc/libc6/copyright").text());
  put("usr/share/doc/leaveapi/THIRD-PARTY-NOTICES.txt", await Bun.file(join(ROOT, "THIRD-PARTY-NOTICES.txt")).text());
  put("etc/passwd", `root:x:0:0:root:/root:/usr/sbin/nologin\nleaveapi:x:${IMAGE_UID}:${IMAGE_UID}:leaveapi service:/var/lib/leaveapi:/usr/sbin/nologin\n`);
  put("etc/group", `root:x:0:\nleaveapi:x:${IMAGE_UID}:\n`);
  mkdirSync(join(stage, "tmp"), { recursive: true });
}

async function tarball(from: string, paths: string[], file: string, owner: number, mtime: number, modes: string[] = []): Promise<void> {
  const common = ["--sort=name", "--numeric-owner", `--owner=${owner}`, `--group=${owner}`, `--mtime=@${mtime}`, "--format=gnu"];
  await run(["tar", ...common, ...modes, "-C", from, "-cf", file, ...paths], "packing the image's files");
}

/** Builds the image; returns its id. */
export async function buildImage(options: ImageOptions): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), "leaveapi-image-"));
  let container: string | undefined;
  try {
    const stage = join(work, "root");
    await stageFiles(options, stage);
    await run(["chmod", "0755", join(stage, "usr/bin/leaveapi")], "staging");
    await run(["chmod", "1777", join(stage, "tmp")], "staging");
    await tarball(stage, ["."], join(work, "root.tar"), 0, options.sourceDate);
    const data = join(work, "data");
    mkdirSync(join(data, "var/lib/leaveapi"), { recursive: true });
    await run(["chmod", "0750", join(data, "var/lib/leaveapi")], "staging");
    await tarball(data, ["var/lib/leaveapi"], join(work, "data.tar"), IMAGE_UID, options.sourceDate);

    container = await run(["buildah", "from", "--arch", options.arch, "scratch"], "buildah");
    await run(["buildah", "add", container, join(work, "root.tar"), "/"], "buildah add");
    await run(["buildah", "add", container, join(work, "data.tar"), "/"], "buildah add");
    const version = packageJson.version;
    const config = [
      ["--arch", options.arch],
      ["--os", "linux"],
      ["--user", `${IMAGE_UID}:${IMAGE_UID}`],
      ["--workingdir", "/var/lib/leaveapi"],
      ["--volume", "/var/lib/leaveapi"],
      ["--port", "8080/tcp"],
      ["--env", "HOST=0.0.0.0"],
      ["--env", "PORT=8080"],
      ["--env", "LEAVEAPI_DB=/var/lib/leaveapi/leaveapi.sqlite"],
      ["--entrypoint", '["/usr/bin/leaveapi"]'],
      ["--cmd", "serve"],
      ["--stop-signal", "SIGTERM"],
      ["--healthcheck", "CMD /usr/bin/leaveapi healthcheck"],
      ["--healthcheck-interval", "30s"],
      ["--healthcheck-timeout", "10s"],
      ["--healthcheck-start-period", "30s"],
      ["--healthcheck-retries", "3"],
      ["--label", `org.opencontainers.image.title=leaveapi`],
      ["--label", `org.opencontainers.image.version=${version}`],
      ["--label", `org.opencontainers.image.description=${packageJson.description}`],
      ["--label", `org.opencontainers.image.licenses=${packageJson.license}`],
      ["--created-by", "scripts/image.ts (npm run image)"],
    ].flat();
    await run(["buildah", "config", ...config, container], "buildah config");
    const id = await run(
      ["buildah", "commit", "--format", "docker", "--timestamp", String(options.sourceDate), "--rm", container, options.tag],
      "buildah commit",
    );
    container = undefined;
    if (options.archive) {
      rmSync(options.archive, { force: true });
      await run(["buildah", "push", options.tag, `docker-archive:${options.archive}:${options.tag}`], "buildah push");
    }
    return id.split("\n").at(-1)!;
  } finally {
    if (container) await run(["buildah", "rm", container], "buildah rm").catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const USAGE = "usage: bun scripts/image.ts [--binary FILE] [--arch amd64|arm64] [--tag NAME] [--archive FILE]";
  let values: { binary?: string; arch?: string; tag?: string; archive?: string; help?: boolean };
  try {
    values = parseArgs({
      args: Bun.argv.slice(2),
      options: {
        binary: { type: "string" },
        arch: { type: "string" },
        tag: { type: "string" },
        archive: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    // parseArgs's own words ("Unknown option '--x'") are clear; a usage line says what is known.
    console.error(`image: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const version = packageJson.version;
  try {
    const arch = (values.arch ?? "amd64") as Arch;
    if (!(arch in ARCHES)) throw new Error(`--arch must be amd64 or arm64, not '${values.arch}'`);
    const binary = resolve(values.binary ?? join(ROOT, `dist/release/leaveapi-${version}-linux-${ARCHES[arch].release}`));
    if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run release\` first, or give --binary FILE`);
    const tag = values.tag ?? `leaveapi:${version}`;
    const sourceDate = Number(process.env.SOURCE_DATE_EPOCH ?? (await lastCommitTime()));
    const id = await buildImage({ binary, arch, tag, archive: values.archive ? resolve(values.archive) : undefined, sourceDate });
    console.log(`${tag}: image ${id.slice(0, 12)} (run it: podman run -d -p 8080:8080 -v leaveapi-data:/var/lib/leaveapi ${tag})`);
    if (values.archive) console.log(`${values.archive}: the image as a docker-archive (docker load -i ${values.archive})`);
  } catch (error) {
    console.error(`image: ${(error as Error).message}`);
    process.exit(1);
  }
}
