/**
 * The Debian package of a release (docs/install.md, "Installing the package"): the binary
 * as /usr/bin/leaveapi, the hardened unit of deploy/leaveapi.service (run from
 * /usr/bin), the environment file as a conffile under /etc/leaveapi, leaveapi(1)
 * (man-page.ts), docs/install.md, docs/cli.md and docs/api.md, Debian's copyright file (notices.ts)
 * and changelog, and the maintainer scripts of deploy/debian/, which make the system user
 * and /var/lib/leaveapi, enable the service without starting it, disable it on removal
 * (no dangling link), and on purge remove the configuration, and the user only once no
 * data of its remains; never the data. Built with
 * dpkg-deb, files owned by root; byte for byte the same from the same inputs (dates from
 * SOURCE_DATE_EPOCH or the commit).
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";

const ROOT = join(import.meta.dir, "../..");
const MAINTAINER = "leaveapi authors <leaveapi@users.noreply.github.com>";

export interface DebianPackageOptions {
  version: string;
  /** Debian's name for the architecture: amd64 or arm64. */
  architecture: "amd64" | "arm64";
  binary: string;
  copyright: string;
  /** leaveapi(1), roff source (man-page.ts). */
  manPage: string;
  /** When the release was made, in seconds since 1970 (the changelog's date, the files' times). */
  sourceDate: number;
  outdir: string;
}

/** Builds `leaveapi_<version>_<arch>.deb` in `outdir` and returns its path. */
export async function buildDebianPackage(options: DebianPackageOptions): Promise<string> {
  const stage = mkdtempSync(join(tmpdir(), "leaveapi-deb-"));
  try {
    const put = (path: string, content: string | Uint8Array, mode = 0o644) => {
      const target = join(stage, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      chmodSync(target, mode);
    };
    mkdirSync(join(stage, "usr/bin"), { recursive: true });
    copyFileSync(options.binary, join(stage, "usr/bin/leaveapi"));
    chmodSync(join(stage, "usr/bin/leaveapi"), 0o755);
    put("lib/systemd/system/leaveapi.service", serviceUnit());
    put("etc/leaveapi/leaveapi.env", readFileSync(join(ROOT, "deploy/leaveapi.env.example")));
    put("usr/share/doc/leaveapi/copyright", options.copyright);
    put("usr/share/doc/leaveapi/changelog.gz", gzipSync(changelog(options.version, options.sourceDate), { level: 9 }));
    put("usr/share/man/man1/leaveapi.1.gz", gzipSync(options.manPage, { level: 9 }));
    for (const doc of ["install.md", "cli.md", "api.md"]) put(`usr/share/doc/leaveapi/${doc}`, readFileSync(join(ROOT, "docs", doc)));
    put("usr/share/lintian/overrides/leaveapi", LINTIAN_OVERRIDES);
    for (const script of ["postinst", "prerm", "postrm"]) put(`DEBIAN/${script}`, readFileSync(join(ROOT, "deploy/debian", script)), 0o755);
    put("DEBIAN/conffiles", "/etc/leaveapi/leaveapi.env\n");
    put("DEBIAN/control", control(options, installedKib(stage)));

    const deb = join(options.outdir, `leaveapi_${options.version}_${options.architecture}.deb`);
    // gzip: xz would take minutes over a binary this size for a few MB less.
    const build = Bun.spawn(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", stage, deb], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, SOURCE_DATE_EPOCH: String(options.sourceDate) },
    });
    const [err, code] = await Promise.all([new Response(build.stderr).text(), build.exited]);
    if (code !== 0) throw new Error(`dpkg-deb failed (exit ${code}): ${err}`);
    return deb;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** deploy/leaveapi.service, running the packaged binary. */
function serviceUnit(): string {
  const unit = readFileSync(join(ROOT, "deploy/leaveapi.service"), "utf8");
  if (!unit.includes("ExecStart=/usr/local/bin/leaveapi serve"))
    throw new Error("deploy/leaveapi.service: its ExecStart line changed; update debian-package.ts");
  // The header's manual install steps are for the binary alone: the package does them.
  const body = unit.slice(unit.indexOf("[Unit]"));
  return `# leaveapi as a systemd service, installed by the Debian package (docs/install.md).\n# Local changes belong in a drop-in (systemctl edit leaveapi); settings in /etc/leaveapi/leaveapi.env.\n\n${body.replace("ExecStart=/usr/local/bin/leaveapi serve", "ExecStart=/usr/bin/leaveapi serve")}`;
}

function control(options: DebianPackageOptions, installedKib: number): string {
  return [
    "Package: leaveapi",
    `Version: ${options.version}`,
    `Architecture: ${options.architecture}`,
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedKib}`,
    "Depends: libc6 (>= 2.27), passwd",
    "Section: net",
    "Priority: optional",
    "Description: OAuth 2.0 protected read-only API for employees, leave and holidays",
    " leaveapi serves an organisation's employees, annual leave and public and",
    " company holidays to payroll, rota, calendar and analytics tools over a small",
    " HTTP API with client-credentials tokens, scopes, cursor paging and",
    " incremental sync.",
    " .",
    " One binary with an embedded SQLite database (or Postgres), a hardened",
    " systemd service, and commands to create organisations, mint credentials and",
    " import data from HR systems' exports.",
    "",
  ].join("\n");
}

/** A native package's changelog (Debian policy 12.7), one entry for this version. */
function changelog(version: string, sourceDate: number): string {
  const date = new Date(sourceDate * 1000).toUTCString().replace("GMT", "+0000");
  return `leaveapi (${version}) unstable; urgency=medium\n\n  * Release ${version}: CHANGELOG.md of leaveapi says what changed.\n\n -- ${MAINTAINER}  ${date}\n`;
}

/** Kibibytes the installed files take, as dpkg counts them. */
function installedKib(stage: string): number {
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of new Bun.Glob("**/*").scanSync({ cwd: dir, onlyFiles: true, dot: true })) {
      if (!entry.startsWith("DEBIAN/")) bytes += statSync(join(dir, entry)).size;
    }
  };
  walk(stage);
  return Math.ceil(bytes / 1024);
}

/**
 * What lintian says of any program compiled with `bun build --compile`, which is Bun's
 * executable with the program appended: stripping would cut the program off, and the
 * runtime is Bun's own build.
 */
const LINTIAN_OVERRIDES = `# bun build --compile appends the program to Bun's executable: stripping would remove it.
leaveapi: unstripped-binary-or-object [usr/bin/leaveapi]
# Bun's own build of its runtime, with its own flags and the libraries it links in
# statically (THIRD-PARTY-NOTICES.txt, "bun").
leaveapi: hardening-no-fortify-functions [usr/bin/leaveapi]
leaveapi: hardening-no-pie [usr/bin/leaveapi]
leaveapi: hardening-no-relro [usr/bin/leaveapi]
leaveapi: embedded-library libjpeg [usr/bin/leaveapi]
`;
