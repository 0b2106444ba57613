/**
 * What the command line's bundles actually contain (issue 27: the licences of what we ship
 * are honoured): the packages whose files Bun's bundler takes into scripts/cli.ts and the
 * holiday thread, read from the build's metafile rather than from package.json, where
 * bundled code sits in devDependencies. Each with its version, its licence (package.json's
 * SPDX expression) and its licence text from the package's own LICENSE/LICENCE/COPYING
 * file. The binary and the npm package's dist/cli are built from these same entry points
 * (scripts/build.ts, scripts/build-cli.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cliBuildConfig } from "../build-cli.ts";

const ROOT = join(import.meta.dir, "../..");

export interface BundledPackage {
  name: string;
  version: string;
  /** The SPDX expression package.json gives. */
  license: string;
  /** The package's licence file, or `null` when it ships none (then the notice says so). */
  licenseText: string | null;
  /** Where the package's code came from, for the SBOM. */
  repository: string | null;
  /** package.json's author, the copyright holder a standard licence text names when the package ships none. */
  author: string | null;
}

/** The packages bundled into the command line, by name, each once (the highest version when two are bundled). */
export async function bundledPackages(): Promise<BundledPackage[]> {
  const outdir = mkdtempSync(join(tmpdir(), "leaveapi-inventory-"));
  try {
    const result = await Bun.build({ ...cliBuildConfig(outdir), metafile: true });
    if (!result.success || !result.metafile) throw new Error(`bun build (inventory) failed:\n${result.logs.map(String).join("\n")}`);
    const meta = (typeof result.metafile === "string" ? JSON.parse(result.metafile) : result.metafile) as { inputs: Record<string, unknown> };
    const roots = new Set<string>();
    for (const input of Object.keys(meta.inputs)) {
      const root = packageRoot(join(ROOT, input));
      if (root !== null) roots.add(root);
    }
    const byName = new Map<string, BundledPackage>();
    for (const root of roots) {
      const pkg = readPackage(root);
      const seen = byName.get(pkg.name);
      if (seen === undefined || Bun.semver.order(pkg.version, seen.version) > 0) byName.set(pkg.name, pkg);
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The folder of the package an input file belongs to: the last `node_modules/NAME` (or `@scope/NAME`) on its path. */
function packageRoot(path: string): string | null {
  const marker = "/node_modules/";
  const at = path.lastIndexOf(marker);
  if (at === -1) return null;
  const rest = path.slice(at + marker.length).split("/");
  const depth = rest[0]?.startsWith("@") ? 2 : 1;
  return path.slice(0, at + marker.length) + rest.slice(0, depth).join("/");
}

function readPackage(root: string): BundledPackage {
  const json = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    version: string;
    license?: string | { type?: string };
    licenses?: { type?: string }[];
    repository?: string | { url?: string };
    author?: string | { name?: string };
  };
  const license = typeof json.license === "string" ? json.license : (json.license?.type ?? json.licenses?.map((l) => l.type).join(" OR ") ?? "");
  const repository = typeof json.repository === "string" ? json.repository : (json.repository?.url ?? null);
  const author = typeof json.author === "string" ? json.author.replace(/\s*[<(].*$/, "") : (json.author?.name ?? null);
  return { name: json.name, version: json.version, license, licenseText: licenseFile(root), repository, author };
}

/** The package's licence text: LICENSE, LICENCE, COPYING or LICENSE-MIT, with or without an extension. */
function licenseFile(root: string): string | null {
  if (!existsSync(root)) return null;
  const name = readdirSync(root).find((f) => /^(licen[cs]e|copying)([-.].*)?$/i.test(f));
  return name === undefined ? null : readFileSync(join(root, name), "utf8").trim();
}

/** The Bun runtime the binary is: its version, as the release compiles with the Bun this runs on. */
export function bunRuntime(): BundledPackage {
  const pkg = JSON.parse(readFileSync(join(dirname(Bun.resolveSync("bun/package.json", ROOT)), "package.json"), "utf8")) as { version: string };
  return {
    name: "bun",
    version: pkg.version,
    license: "MIT",
    licenseText:
      "Bun itself is MIT-licensed. The Bun runtime statically links JavaScriptCore and WebKit's WTF (LGPL-2.1 and BSD-2-Clause),\n" +
      "and other libraries under their own licences (BoringSSL, c-ares, libarchive, libdeflate, lol-html, mimalloc, picohttpparser,\n" +
      "simdutf, SQLite, tinycc, uSockets, uWebSockets, zlib, zstd and others): https://bun.com/docs/project/license lists them with\n" +
      "their licences. As the LGPL requires, JavaScriptCore's source is at https://github.com/oven-sh/WebKit, and a binary of this\n" +
      "program can be relinked against a modified JavaScriptCore by building Bun from https://github.com/oven-sh/bun.",
    repository: "https://github.com/oven-sh/bun",
    author: "Oven",
  };
}
