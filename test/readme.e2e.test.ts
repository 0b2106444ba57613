/**
 * The README as a newcomer follows it: every shell block marked `<!-- runnable -->` runs,
 * in order, in one shell, in a fresh copy of the repository (the files git tracks, as a
 * clone has them) after `npm ci`, with Node and npm on PATH and no Bun. A block marked
 * `<!-- runnable: serves -->` starts a server that keeps running: it is started in the
 * background and the next block runs once the server answers on the README's port. The
 * blocks run in a network namespace of their own, so the README's fixed port 8080 is free
 * whatever else this machine runs, and nothing they do can reach past loopback.
 *
 * A block that fails fails the test, with everything the shell printed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathWithoutBun } from "./node-only-path.ts";
import { runnableBlocks, scriptFor } from "./runnable-blocks.ts";

const ROOT = join(import.meta.dir, "..");

async function run(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: `${stdout}${stderr}` };
}

/** The files a clone of this working tree has, with their current contents (HEAD itself in CI's clean clone). */
function copyTrackedFiles(to: string): void {
  const listed = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT });
  if (listed.exitCode !== 0) throw new Error(`git ls-files failed: ${listed.stderr.toString()}`);
  for (const path of listed.stdout.toString().split("\0")) {
    if (path === "" || !existsSync(join(ROOT, path))) continue;
    mkdirSync(dirname(join(to, path)), { recursive: true });
    cpSync(join(ROOT, path), join(to, path));
  }
}

const scratch = mkdtempSync(join(tmpdir(), "leaveapi-readme-"));
const clone = join(scratch, "leaveapi");
// Only Node and npm, and none of the settings this test run may have in its environment.
const NEWCOMER = { PATH: pathWithoutBun(), DATABASE_URL: "", LEAVEAPI_DB: "", LEAVEAPI_TEST_STORE: "", CI: "" };

beforeAll(async () => {
  copyTrackedFiles(clone);
  const install = await run(["npm", "ci", "--no-audit", "--no-fund"], clone, NEWCOMER);
  if (install.code !== 0) throw new Error(`npm ci in a fresh clone failed:\n${install.output}`);
}, 600_000);
afterAll(() => rm(scratch, { recursive: true, force: true }), 120_000);

test("the markers find the README's runnable blocks, a server among them", () => {
  const blocks = runnableBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  expect(blocks.filter((b) => b.serves).length).toBeGreaterThanOrEqual(1);
  expect(() => runnableBlocks("<!-- runnable -->\n```ts\nx\n```\n")).toThrow("must stand right above");
});

test("README.md's runnable blocks run in order in a fresh clone with no Bun on PATH", async () => {
  const blocks = runnableBlocks(readFileSync(join(clone, "README.md"), "utf8"));
  writeFileSync(join(clone, "readme-blocks.sh"), scriptFor(blocks, "README.md"));
  // A network namespace of its own: loopback only, the README's port free.
  const result = await run(["unshare", "--net", "bash", "-c", "ip link set lo up && exec bash readme-blocks.sh"], clone, NEWCOMER);
  if (result.code !== 0 || !result.output.includes("::: done")) {
    throw new Error(`a README block failed (exit ${result.code}); the shell printed:\n${result.output}`);
  }
  // The client, from plain Node, read the employees the set-up imported.
  for (const name of ["Ada Lovelace", "Grace Hopper", "Alan Turing"]) expect(result.output).toContain(name);
}, 300_000);
