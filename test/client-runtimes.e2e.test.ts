/**
 * `leaveapi/client` on the runtimes it promises besides Bun: Node.js (the version on the
 * machine; the package needs 20+), from a bundle of client/ as an npm consumer would load
 * it, and Deno, from the TypeScript source. Each runs the same probe against a running
 * `leaveapi serve` and must read what Bun's client reads.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "../client/index.ts";
import { runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

const ROOT = join(import.meta.dir, "..");
let server: RunningServer;
let scratch: ReturnType<typeof scratchDir>;
let env: Record<string, string>;

beforeAll(async () => {
  scratch = scratchDir();
  const db = ["--db", join(scratch.dir, "runtimes.sqlite")];
  const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Runtimes Ltd"])).id;
  await runJson([...db, "org", "enable-api", org]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org]);
  for (const kind of ["employees", "leave"]) await runJson([...db, "import", "--org", org, "--kind", kind, join(ROOT, `examples/import/${kind}.jsonl`)]);
  server = await startServer(db);
  env = { PROBE_URL: server.baseUrl, PROBE_ID: creds.client_id, PROBE_SECRET: creds.client_secret };
}, 30_000);

afterAll(async () => {
  expect(await server.stop()).toBe(0);
  scratch.dispose();
});

/** Reads with the client and prints what it saw; `env` comes from the runtime's own API. */
const PROBE = `
const api = createClient({ baseUrl: env.PROBE_URL, clientId: env.PROBE_ID, clientSecret: env.PROBE_SECRET });
const employees = [];
for await (const e of api.employees({ limit: 1 })) employees.push(e.id);
const synced = await api.sync({ from: "2026-01-01", to: "2027-12-31" });
let refused = "";
try { await api.getEmployee("00000000-0000-4000-8000-000000000000"); } catch (e) { refused = e.name + " " + e.status + " " + e.error; }
console.log(JSON.stringify({ employees, leave: synced.leaveRequests.map((b) => b.id).sort(), full: synced.full, refused }));
`;

async function expected() {
  const api = createClient({ baseUrl: env.PROBE_URL!, clientId: env.PROBE_ID!, clientSecret: env.PROBE_SECRET! });
  const employees: string[] = [];
  for await (const e of api.employees()) employees.push(e.id);
  const synced = await api.sync({ from: "2026-01-01", to: "2027-12-31" });
  return { employees, leave: synced.leaveRequests.map((b) => b.id).sort(), full: true, refused: "LeaveApiError 404 not_found" };
}

async function run(command: string[]): Promise<unknown> {
  const proc = Bun.spawn(command, { cwd: scratch.dir, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command[0]} exited ${code}: ${stderr}`);
  return JSON.parse(stdout);
}

test("Node.js runs a bundle of the client", async () => {
  const built = await Bun.build({ entrypoints: [join(ROOT, "client/index.ts")], target: "node", format: "esm", outdir: scratch.dir, naming: "client.mjs" });
  expect(built.success).toBe(true);
  writeFileSync(join(scratch.dir, "probe.mjs"), `import { createClient } from "./client.mjs";\nconst env = process.env;\n${PROBE}`);
  expect(await run(["node", join(scratch.dir, "probe.mjs")])).toEqual(await expected());
}, 30_000);

test("Deno runs the client from its TypeScript source", async () => {
  writeFileSync(
    join(scratch.dir, "probe.ts"),
    `// @ts-nocheck\nimport { createClient } from "${join(ROOT, "client/index.ts")}";\nconst env = Deno.env.toObject();\n${PROBE}`,
  );
  expect(await run([join(ROOT, "node_modules/.bin/deno"), "run", "--no-config", "--allow-net", "--allow-env", join(scratch.dir, "probe.ts")])).toEqual(
    await expected(),
  );
}, 60_000);
