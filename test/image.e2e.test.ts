/**
 * The container image (issue 38; docs/install.md, "Containers"): `npm run image` builds it
 * with buildah from the release binary, and it runs with podman as an admin would: a
 * volume for /var/lib/leaveapi, admin commands with `podman exec`, a token and a page over
 * the published port, the HEALTHCHECK passing, `podman stop` a clean exit 0, and the data
 * still there for a second container on the same volume. Also what it holds: one layer,
 * a non-root user, the binary and its C library only.
 *
 * This machine's podman (in a container itself) needs `--runtime runc` and a
 * containers.conf with `default_ulimits = []` (it cannot raise the open-files limit); the
 * test passes both, the product needs neither. .ci/run installs buildah, podman, runc.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { fetchAccessToken, scratchDir } from "./cli-harness.ts";
import { requireTools } from "./required-tools.ts";

const ROOT = join(import.meta.dir, "..");
const version = packageJson.version;
const scratch = scratchDir();
const suffix = `${process.pid}-${Date.now()}`;
const TAG = `localhost/leaveapi-image-test:${suffix}`;
const VOLUME = `leaveapi-image-test-${suffix}`;
const containers: string[] = [];
const env = { ...process.env, CONTAINERS_CONF: join(scratch.dir, "containers.conf") };
const PODMAN = ["podman", "--runtime", "runc"];

async function run(command: string[], stdin?: string) {
  const proc = Bun.spawn(command, { cwd: ROOT, env, stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function mustRun(command: string[], stdin?: string) {
  const result = await run(command, stdin);
  if (result.code !== 0) throw new Error(`${command.join(" ")} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return result;
}

beforeAll(async () => {
  requireTools("test/image.e2e.test.ts", [
    { command: "buildah", debian: "buildah" },
    { command: "podman", debian: "podman" },
    { command: "runc", debian: "runc" },
    { command: "readelf", debian: "binutils" },
  ]);
  writeFileSync(env.CONTAINERS_CONF, "[containers]\ndefault_ulimits = []\n");
  await mustRun([process.execPath, "scripts/release.ts", "--only", "x64", "--outdir", join(scratch.dir, "release")]);
  const binary = join(scratch.dir, "release", `leaveapi-${version}-linux-x64`);
  await mustRun([process.execPath, "scripts/image.ts", "--binary", binary, "--tag", TAG, "--archive", join(scratch.dir, "image.tar")]);
}, 600_000);

afterAll(async () => {
  for (const name of containers) await run([...PODMAN, "rm", "--force", name]);
  await run(["podman", "volume", "rm", "--force", VOLUME]);
  await run(["podman", "rmi", "--force", TAG]);
  scratch.dispose();
}, 120_000);

/** Starts a container on the volume, publishing 8080 on a free port of 127.0.0.1; resolves with its name and base URL once /livez answers. */
async function start(name: string): Promise<{ name: string; baseUrl: string }> {
  containers.push(name);
  await mustRun([...PODMAN, "run", "--detach", "--name", name, "--publish", "127.0.0.1::8080", "--volume", `${VOLUME}:/var/lib/leaveapi`, TAG]);
  const port = (await mustRun(["podman", "port", name, "8080/tcp"])).stdout.trim().split(":").at(-1);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answered = await fetch(`${baseUrl}/livez`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (answered) return { name, baseUrl };
    if (Date.now() > deadline) throw new Error(`the container never answered /livez:\n${(await run(["podman", "logs", name])).stdout}`);
    await Bun.sleep(100);
  }
}

async function page(baseUrl: string, client: { client_id: string; client_secret: string }): Promise<unknown[]> {
  const token = await fetchAccessToken(baseUrl, client);
  const res = await fetch(`${baseUrl}/v1/employees?limit=2`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown[] }).data;
}

describe("the container image", () => {
  test("one layer; runs as the leaveapi user; /var/lib/leaveapi a volume; a HEALTHCHECK of /livez; the binary and its C library", async () => {
    const inspect = JSON.parse((await mustRun(["podman", "image", "inspect", TAG])).stdout)[0];
    expect(inspect.RootFS.Layers).toHaveLength(1);
    expect(inspect.Config.User).toBe("10001:10001");
    expect(Object.keys(inspect.Config.Volumes)).toEqual(["/var/lib/leaveapi"]);
    expect(inspect.Config.Entrypoint).toEqual(["/usr/bin/leaveapi"]);
    expect(inspect.Healthcheck?.Test).toEqual(["CMD", "/usr/bin/leaveapi", "healthcheck"]);
    // What the image holds besides the binary, from the docker-archive npm run image wrote.
    const listing = (await mustRun(["sh", "-c", `tar -xOf ${join(scratch.dir, "image.tar")} --wildcards '*.tar' | tar -tvf -`])).stdout;
    const files = listing
      .split("\n")
      .filter((line) => line.startsWith("-"))
      .map((line) => line.split(/\s+/).at(-1)!.replace(/^\.\//, ""))
      .sort();
    expect(files).toEqual(
      [
        "etc/group",
        "etc/passwd",
        "lib/x86_64-linux-gnu/libc.so.6",
        "lib/x86_64-linux-gnu/libdl.so.2",
        "lib/x86_64-linux-gnu/libm.so.6",
        "lib/x86_64-linux-gnu/libpthread.so.0",
        "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "usr/bin/leaveapi",
        "usr/share/doc/leaveapi/THIRD-PARTY-NOTICES.txt",
        "usr/share/doc/libc6/copyright",
      ].sort(),
    );
    expect(listing).toMatch(/^lrwxrwxrwx 0\/0 .* (?:\.\/)?lib64\/ld-linux-x86-64\.so\.2 -> \/lib\/x86_64-linux-gnu\/ld-linux-x86-64\.so\.2$/m);
    expect(listing).toMatch(/^drwxr-x--- 10001\/10001 .* \.?\/?var\/lib\/leaveapi\/?$/m);
  });

  test("podman run with a volume: admin commands, a token and a page; healthy; podman stop exits 0; the data survives a second run", async () => {
    const first = await start(`leaveapi-image-test-1-${suffix}`);
    const exec = (args: string[], stdin?: string) =>
      mustRun([...PODMAN, "exec", ...(stdin === undefined ? [] : ["-i"]), first.name, "leaveapi", ...args], stdin);
    const org = (JSON.parse((await exec(["org", "create", "--name", "Contained Ltd", "--json"])).stdout) as { id: string }).id;
    await exec(["org", "enable-api", org]);
    await exec(["import", "--org", org, "--kind", "employees", "-"], readFileSync(join(ROOT, "examples/import/employees.jsonl"), "utf8"));
    const client = JSON.parse((await exec(["credentials", "create", "--org", org, "--json"])).stdout) as { client_id: string; client_secret: string };
    expect(await page(first.baseUrl, client)).toHaveLength(2);
    expect((await run([...PODMAN, "healthcheck", "run", first.name])).code).toBe(0);

    await mustRun([...PODMAN, "stop", "--time", "20", first.name]);
    const state = JSON.parse((await mustRun(["podman", "inspect", first.name])).stdout)[0].State;
    expect(state.ExitCode).toBe(0);
    expect((await mustRun(["podman", "logs", first.name])).stdout).toContain("SIGTERM: finishing in-flight requests");
    await mustRun([...PODMAN, "rm", first.name]);

    const second = await start(`leaveapi-image-test-2-${suffix}`);
    expect(await page(second.baseUrl, client)).toHaveLength(2);
    await mustRun([...PODMAN, "stop", "--time", "20", second.name]);
  }, 180_000);
});
