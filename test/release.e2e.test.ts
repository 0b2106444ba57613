/**
 * `npm run release` as an admin would take it (issues 27 and 38; docs/install.md,
 * "Installing the package"): the release files with their checksums, SBOM and notices,
 * SHA256SUMS signed with minisign (`--sign KEY`) and the signature checked with
 * `minisign -V`; lintian finds no error in either Debian package, and leaveapi(1) renders
 * with `man -l`; the arm64 binary runs under qemu-user (--version, migrate, serve, a
 * token and a page); and the amd64 package installs with `dpkg -i`, runs as its service
 * user, and docs/install.md's first-time set-up runs as written twice, with its `runuser`
 * shorthand and with its `sudo` one. `dpkg -r` keeps the configuration and the data and
 * leaves no dangling unit link; `dpkg -P` removes the configuration, never the data, and
 * keeps the user while data of its remains. .ci/run installs what this needs (lintian,
 * qemu-user-static, libc6:arm64, minisign, man-db, sudo); a machine without them fails
 * at once, saying what to install. CI runs as root, as `dpkg -i` must.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { fetchAccessToken, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";
import { runnableBlocks, scriptFor } from "./runnable-blocks.ts";
import { requireTools } from "./required-tools.ts";

const ROOT = join(import.meta.dir, "..");
const version = packageJson.version;
const scratch = scratchDir();
const out = join(scratch.dir, "release");
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers.splice(0)) await server.stop();
  scratch.dispose();
});

async function run(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn(command, { cwd: options.cwd ?? ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...options.env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function mustRun(command: string[], options: Parameters<typeof run>[1] = {}) {
  const result = await run(command, options);
  if (result.code !== 0) throw new Error(`${command.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return result;
}

/** Whether docs/install.md's sudo lines are run too: always in CI, elsewhere where sudo is installed. */
const WITH_SUDO = process.env.CI === "true" || Bun.which("sudo") !== null;
if (!WITH_SUDO) console.log("test/release.e2e.test.ts: no sudo here, so install.md's set-up runs with its runuser lines only (CI runs both)");

const signingKey = join(scratch.dir, "release.key");
const publicKey = join(scratch.dir, "release.pub");

beforeAll(async () => {
  requireTools("test/release.e2e.test.ts", [
    { command: "dpkg-deb", debian: "dpkg" },
    { command: "lintian", debian: "lintian" },
    { command: "qemu-aarch64-static", debian: "qemu-user-static" },
    { command: "minisign", debian: "minisign" },
    { command: "man", debian: "man-db" },
    // sudo only where CI runs this (.ci/run installs it): a machine without sudo (minimal
    // Debian, most containers) follows docs/install.md's runuser lines, and so does this test there.
    ...(WITH_SUDO ? [{ command: "sudo", debian: "sudo" }] : []),
    { command: "runuser", debian: "util-linux" },
  ]);
  if (!existsSync("/lib/ld-linux-aarch64.so.1"))
    throw new Error(
      "test/release.e2e.test.ts runs the arm64 binary under qemu-user, which needs arm64's C library: dpkg --add-architecture arm64 && apt-get update && apt-get install libc6:arm64",
    );
  await mustRun(["minisign", "-G", "-W", "-p", publicKey, "-s", signingKey]);
  await mustRun([process.execPath, "scripts/release.ts", "--outdir", out, "--sign", signingKey]);
}, 600_000);

/** What every serving test checks: a token for new credentials, then a page of employees. */
async function tokenAndPage(server: RunningServer, client: { client_id: string; client_secret: string }): Promise<void> {
  const access_token = await fetchAccessToken(server.baseUrl, client);
  const page = await fetch(`${server.baseUrl}/v1/employees?limit=2`, { headers: { Authorization: `Bearer ${access_token}` } });
  expect(page.status).toBe(200);
  expect(((await page.json()) as { data: unknown[] }).data).toHaveLength(2);
}

/** Migrate, an organisation with the example employees, credentials; `cli` runs the command under test. */
async function setUp(cli: (args: string[]) => Promise<{ stdout: string }>) {
  await cli(["migrate"]);
  const org = (JSON.parse((await cli(["org", "create", "--name", "Released Ltd", "--json"])).stdout) as { id: string }).id;
  await cli(["org", "enable-api", org]);
  await cli(["import", "--org", org, "--kind", "employees", join(scratch.dir, "employees.jsonl")]);
  return JSON.parse((await cli(["credentials", "create", "--org", org, "--json"])).stdout) as { client_id: string; client_secret: string };
}

describe("the release files", () => {
  test("binaries for x64 and arm64, a .deb for each, the notices and the SBOM, and SHA256SUMS that checks them", async () => {
    const names = readFileSync(join(out, "SHA256SUMS"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split("  ")[1]);
    expect(names.sort()).toEqual(
      [
        "THIRD-PARTY-NOTICES.txt",
        `leaveapi-${version}-linux-arm64`,
        `leaveapi-${version}-linux-x64`,
        `leaveapi-${version}.cdx.json`,
        `leaveapi_${version}_amd64.deb`,
        `leaveapi_${version}_arm64.deb`,
      ].sort(),
    );
    expect((await run(["sha256sum", "-c", "SHA256SUMS"], { cwd: out })).code).toBe(0);
    // Signed: the signature checks with the public key, and fails for a changed list.
    const verified = await mustRun(["minisign", "-V", "-p", publicKey, "-m", "SHA256SUMS"], { cwd: out });
    expect(verified.stdout).toContain("Signature and comment signature verified");
    expect(verified.stdout).toContain(`Trusted comment: leaveapi ${version} release: SHA256SUMS`);
    const forged = join(scratch.dir, "forged");
    mkdirSync(forged);
    writeFileSync(
      join(forged, "SHA256SUMS"),
      readFileSync(join(out, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]/, (c) => (c === "0" ? "1" : "0")),
    );
    copyFileSync(join(out, "SHA256SUMS.minisig"), join(forged, "SHA256SUMS.minisig"));
    expect((await run(["minisign", "-V", "-p", publicKey, "-m", "SHA256SUMS"], { cwd: forged })).code).not.toBe(0);
    expect(readFileSync(join(out, "THIRD-PARTY-NOTICES.txt"), "utf8")).toBe(readFileSync(join(ROOT, "THIRD-PARTY-NOTICES.txt"), "utf8"));
    const sbom = JSON.parse(readFileSync(join(out, `leaveapi-${version}.cdx.json`), "utf8"));
    expect(sbom.components.map((c: { name: string }) => c.name)).toContain("date-holidays");
    // The binary carries the notices too.
    expect((await mustRun([join(out, `leaveapi-${version}-linux-x64`), "licenses"])).stdout).toContain("CC BY-SA 3.0");
    // Checksumming 350 MB on a loaded 2-core machine took over bun's default 5 s.
  }, 120_000);

  test.each(["amd64", "arm64"])(
    "lintian finds no error or warning in the %s package; it holds what an admin needs",
    async (arch) => {
      const deb = join(out, `leaveapi_${version}_${arch}.deb`);
      const lintian = await run(["lintian", "--tag-display-limit", "0", deb]);
      const tags = lintian.stdout.split("\n").filter((line) => /^[EW]: /.test(line));
      expect(tags).toEqual([]);
      const contents = (await mustRun(["dpkg-deb", "--contents", deb])).stdout;
      for (const path of [
        "./usr/bin/leaveapi",
        "./lib/systemd/system/leaveapi.service",
        "./etc/leaveapi/leaveapi.env",
        "./usr/share/doc/leaveapi/copyright",
        "./usr/share/man/man1/leaveapi.1.gz",
        "./usr/share/doc/leaveapi/install.md",
        "./usr/share/doc/leaveapi/cli.md",
        "./usr/share/doc/leaveapi/api.md",
      ]) {
        expect(contents).toContain(path);
      }
      expect((await mustRun(["dpkg-deb", "--field", deb, "Architecture"])).stdout.trim()).toBe(arch);

      // The manual page renders, and holds every command's help as the binary prints it.
      const unpacked = join(scratch.dir, `unpacked-${arch}`);
      await mustRun(["dpkg-deb", "-x", deb, unpacked]);
      expect(readFileSync(join(unpacked, "usr/share/lintian/overrides/leaveapi"), "utf8")).not.toContain("no-manual-page");
      const page = await mustRun(["man", "-l", join(unpacked, "usr/share/man/man1/leaveapi.1.gz")], {
        env: { MANWIDTH: "100", MAN_KEEP_FORMATTING: "", PAGER: "cat" },
      });
      expect(page.stderr).toBe("");
      expect(page.stdout).toContain("LEAVEAPI(1)");
      const importHelp = (await mustRun([process.execPath, "scripts/cli.ts", "import", "--help"])).stdout;
      const flatten = (text: string) => text.replace(/\s+/g, " ");
      expect(flatten(page.stdout)).toContain(flatten(importHelp.split("\n").slice(0, 12).join("\n")));
      for (const command of ["serve", "org create", "credentials rotate", "healthcheck", "backup"]) expect(page.stdout).toContain(`leaveapi ${command}`);
    },
    120_000,
  );
});

describe("the arm64 binary, under qemu-user", () => {
  test("answers --version, migrates, serves, issues a token and a page", async () => {
    await Bun.write(join(scratch.dir, "employees.jsonl"), readFileSync(join(ROOT, "examples/import/employees.jsonl")));
    const qemu = ["qemu-aarch64-static", join(out, `leaveapi-${version}-linux-arm64`)];
    expect((await mustRun([...qemu, "--version"])).stdout.trim()).toBe(version);
    const db = ["--db", join(scratch.dir, "arm64.sqlite")];
    const client = await setUp((args) => mustRun([...qemu, ...db, ...args]));
    const server = await startServer(db, { command: qemu, cwd: scratch.dir });
    servers.push(server);
    await tokenAndPage(server, client);
    servers.splice(servers.indexOf(server), 1);
    // What it said and how it ended, should it ever not exit 0 (issue 38 saw it once).
    const code = await server.stop();
    const ended = await server.ended;
    if (code !== 0) throw new Error(`the arm64 server under qemu-user ended ${JSON.stringify(ended)} on SIGTERM:\n${server.output()}`);
  }, 180_000);
});

/** Whether a symbolic link (dangling or not) is at `path`. */
function linkExists(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

describe("the amd64 package, installed with dpkg -i", () => {
  test("installs with its manual and guides, runs as its service user, install.md's set-up runs with runuser and with sudo, and is removed and purged keeping the data", async () => {
    await Bun.write(join(scratch.dir, "employees.jsonl"), readFileSync(join(ROOT, "examples/import/employees.jsonl")));
    expect((await run(["dpkg", "-s", "leaveapi"])).code).not.toBe(0);
    expect((await run(["getent", "passwd", "leaveapi"])).code).not.toBe(0);
    const install = await mustRun(["dpkg", "-i", join(out, `leaveapi_${version}_amd64.deb`)]);
    expect(install.stdout).toContain("its service is enabled, not started");
    try {
      expect((await mustRun(["leaveapi", "--version"])).stdout.trim()).toBe(version);
      expect(statSync("/var/lib/leaveapi").mode & 0o777).toBe(0o750);
      expect((await mustRun(["stat", "-c", "%U:%G %a", "/var/lib/leaveapi"])).stdout.trim()).toBe("leaveapi:leaveapi 750");
      expect((await mustRun(["stat", "-c", "%U:%G %a", "/etc/leaveapi/leaveapi.env"])).stdout.trim()).toBe("root:leaveapi 640");
      expect(existsSync("/etc/systemd/system/multi-user.target.wants/leaveapi.service")).toBe(true);

      // As the service user, on the service's database; the example file must be readable by it.
      await mustRun(["chmod", "0755", scratch.dir]);
      await mustRun(["chmod", "0644", join(scratch.dir, "employees.jsonl")]);
      const asService = ["runuser", "-u", "leaveapi", "--", "leaveapi"];
      const db = ["--db", "/var/lib/leaveapi/leaveapi.sqlite"];
      const client = await setUp((args) => mustRun([...asService, ...db, ...args], { cwd: "/" }));
      const server = await startServer(db, { command: asService, cwd: "/" });
      servers.push(server);
      await tokenAndPage(server, client);
      servers.splice(servers.indexOf(server), 1);
      await server.stop();

      // man leaveapi, and the guides beside it.
      expect((await mustRun(["man", "-w", "leaveapi"])).stdout.trim()).toBe("/usr/share/man/man1/leaveapi.1.gz");
      for (const doc of ["install.md", "cli.md", "api.md"]) expect(existsSync(`/usr/share/doc/leaveapi/${doc}`)).toBe(true);

      // docs/install.md's first-time set-up, as an admin types it (the shorthand, stdin
      // imports), once with `runuser` as root on a machine without sudo would, once with sudo.
      const admin = join(scratch.dir, "admin");
      mkdirSync(admin, { recursive: true });
      for (const name of ["holidays.jsonl", "employees.csv", "leave.jsonl"]) copyFileSync(join(ROOT, "examples/import", name), join(admin, name));
      for (const variant of WITH_SUDO ? ["runuser", "sudo"] : ["runuser"]) {
        for (const file of readdirSync("/var/lib/leaveapi")) rmSync(join("/var/lib/leaveapi", file), { force: true });
        const guide = runnableBlocks(readFileSync(join(ROOT, "docs/install.md"), "utf8"), variant);
        expect(guide.filter((block) => block.variant === variant)).toHaveLength(1);
        expect(guide.find((block) => block.variant !== undefined)?.text).toContain(variant === "sudo" ? "sudo -u leaveapi" : "runuser -u leaveapi");
        writeFileSync(join(admin, `install-blocks-${variant}.sh`), scriptFor(guide, "docs/install.md", ["shopt -s expand_aliases"]));
        const followed = await run(["bash", `install-blocks-${variant}.sh`], { cwd: admin });
        if (followed.code !== 0 || !followed.stdout.includes("::: done"))
          throw new Error(`a docs/install.md block failed (${variant}):\n${followed.stdout}${followed.stderr}`);
        expect(followed.stdout).toContain("imported 3 rows of employees into Acme Ltd");
        expect(followed.stdout).toMatch(/^client_secret: svcs_/m);
        expect((await mustRun(["stat", "-c", "%U", "/var/lib/leaveapi/leaveapi.sqlite"])).stdout.trim()).toBe("leaveapi");
      }

      // Without systemd (docs/install.md, "10. Without systemd"): the supervisor's run script as
      // written, on a port set in the settings file it reads; the PID it leaves is the
      // server itself, as the service user, and SIGTERM stops it cleanly.
      const supervised = runnableBlocks(readFileSync(join(ROOT, "docs/install.md"), "utf8"), "supervisor").filter((b) => b.variant === "supervisor");
      expect(supervised).toHaveLength(1);
      const port = 18000 + (process.pid % 1000);
      writeFileSync("/etc/leaveapi/leaveapi.env", `${readFileSync("/etc/leaveapi/leaveapi.env", "utf8")}\nPORT=${port}\n`);
      const runScript = Bun.spawn(["bash", "-c", supervised[0]!.text], { cwd: "/", stdout: "pipe", stderr: "pipe" });
      const runOutput = Promise.all([new Response(runScript.stdout).text(), new Response(runScript.stderr).text()]);
      const deadline = Date.now() + 30_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/livez`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (runScript.exitCode !== null || Date.now() > deadline) throw new Error(`the supervisor's run script did not serve: ${(await runOutput).join("")}`);
        await Bun.sleep(50);
      }
      expect((await mustRun(["ps", "-o", "user=,comm=", "-p", String(runScript.pid)])).stdout.trim().split(/\s+/)).toEqual(["leaveapi", "leaveapi"]);
      runScript.kill("SIGTERM");
      expect(await runScript.exited).toBe(0);
      expect((await runOutput).join("")).toContain("SIGTERM: finishing in-flight requests");

      // Removed: the program goes and the unit's link with it; settings, data and user stay.
      const wants = "/etc/systemd/system/multi-user.target.wants/leaveapi.service";
      await mustRun(["dpkg", "-r", "leaveapi"]);
      expect(existsSync("/usr/bin/leaveapi")).toBe(false);
      expect(linkExists(wants)).toBe(false);
      expect(existsSync("/etc/leaveapi/leaveapi.env")).toBe(true);
      expect(existsSync("/var/lib/leaveapi/leaveapi.sqlite")).toBe(true);
      expect((await run(["getent", "passwd", "leaveapi"])).code).toBe(0);

      // Purged with data left: the configuration goes; the data and the user that owns it stay.
      const purge = await mustRun(["dpkg", "-P", "leaveapi"]);
      expect(purge.stdout).toContain("the data in /var/lib/leaveapi is kept, and the leaveapi user that owns it");
      expect(existsSync("/etc/leaveapi")).toBe(false);
      expect(existsSync("/var/lib/leaveapi/leaveapi.sqlite")).toBe(true);
      expect((await run(["getent", "passwd", "leaveapi"])).code).toBe(0);
      expect((await mustRun(["stat", "-c", "%U", "/var/lib/leaveapi/leaveapi.sqlite"])).stdout.trim()).toBe("leaveapi");
      expect(linkExists(wants)).toBe(false);

      // Once the admin has deleted the data, a purge removes the user too.
      rmSync("/var/lib/leaveapi", { recursive: true, force: true });
      await mustRun(["dpkg", "-i", join(out, `leaveapi_${version}_amd64.deb`)]);
      await mustRun(["dpkg", "-P", "leaveapi"]);
      expect(existsSync("/var/lib/leaveapi")).toBe(false);
      expect((await run(["getent", "passwd", "leaveapi"])).code).not.toBe(0);
    } finally {
      // The machine as it was: the package gone, and this test's data and user with it.
      await run(["dpkg", "-P", "leaveapi"]);
      rmSync("/var/lib/leaveapi", { recursive: true, force: true });
      await run(["userdel", "leaveapi"]);
    }
  }, 180_000);
});
