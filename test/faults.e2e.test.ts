/**
 * Faults an operator will meet, each with the real command line (issue 8):
 * - `leaveapi import` killed with SIGKILL half-way through 200,000 rows: the database
 *   opens, passes `leaveapi check`, holds none of that import and every earlier row;
 * - a read-only database file, a read-only file system, a full disk: the import fails
 *   with one clear line (exit 1, no stack trace) and writes nothing, while a running
 *   `leaveapi serve` on the same file goes on answering reads.
 * How the writes are made to fail as root: fault-helpers.ts. SIGTERM under load and the
 * Postgres link cut have their own tests (serve-ops.e2e, pg-outage.e2e).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { CLI, runCli, runJson, scratchDir, startServer } from "./cli-harness.ts";
import { fetchToken, type Provisioned } from "./serve-fixture.ts";
import {
  commandForNobody,
  countImported,
  IS_ROOT,
  isOneClearLine,
  mountTmpfs,
  readOnlyView,
  runLimitedCli,
  snapshotTables,
  writeEmployees,
} from "./fault-helpers.ts";

const EXAMPLES = join(import.meta.dir, "../examples/import");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) undo();
});

/** A database at `file` with one organisation, credentials and the example employees and bookings. */
async function provision(file: string): Promise<Provisioned> {
  const db = ["--db", file];
  const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Faults Ltd"]);
  await runJson([...db, "org", "enable-api", org.id]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);
  await runJson([...db, "import", "--org", org.id, "--kind", "employees", join(EXAMPLES, "employees.jsonl")]);
  await runJson([...db, "import", "--org", org.id, "--kind", "leave", join(EXAMPLES, "leave.jsonl")]);
  return { db, organisationId: org.id, clientId: creds.client_id, clientSecret: creds.client_secret, dispose: () => {} };
}

/** A scratch directory that `nobody` can enter, removed after the test. */
function scratch(): string {
  const s = scratchDir();
  chmodSync(s.dir, 0o755);
  cleanups.push(s.dispose);
  return s.dir;
}

/** Reads /v1/employees over and over until stopped; resolves with every status seen. */
function keepReading(baseUrl: string, token: string): { stop: () => Promise<number[]> } {
  const statuses: number[] = [];
  let reading = true;
  const loop = (async () => {
    while (reading) {
      const res = await fetch(`${baseUrl}/v1/employees?limit=50`, { headers: { Authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  })();
  return {
    stop: async () => {
      reading = false;
      await loop;
      return statuses;
    },
  };
}

/**
 * Serves `file`, reads from it while `attempt` runs and after, and returns what `attempt`
 * returned: the reads must all have been answered 200, and there must have been some.
 */
async function whileServing<T>(p: Provisioned, attempt: () => Promise<T>): Promise<T> {
  // One client reads back to back: without the per-client budget, or it would meet it.
  const server = await startServer(p.db, { serveArgs: ["--read-rate-limit", "0"] });
  try {
    const token = await fetchToken(server.baseUrl, p);
    const reader = keepReading(server.baseUrl, token);
    const outcome = await attempt();
    const after = await fetch(`${server.baseUrl}/v1/employees`, { headers: { Authorization: `Bearer ${token}` } });
    const statuses = await reader.stop();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set([...statuses, after.status])).toEqual(new Set([200]));
    // Writes the server itself makes (a token) still work once the import has given up.
    expect((await fetchToken(server.baseUrl, p)).startsWith("svct_")).toBe(true);
    return outcome;
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe("SIGKILL in the middle of a large import", () => {
  test("the database opens, passes leaveapi check, holds none of that import and all earlier data", async () => {
    const dir = scratch();
    const file = join(dir, "killed.sqlite");
    const p = await provision(file);
    const before = snapshotTables(file);
    const bulk = join(dir, "bulk.jsonl");
    writeEmployees(bulk, "KILL", 200_000);

    const importer = Bun.spawn([...CLI, ...p.db, "import", "--org", p.organisationId, "--kind", "employees", bulk], { stdout: "ignore", stderr: "ignore" });
    // Progress: the open transaction's pages spill into the -wal file as the import goes on.
    const wal = `${file}-wal`;
    const deadline = Date.now() + 120_000;
    while (importer.exitCode === null && Date.now() < deadline && !(existsSync(wal) && statSync(wal).size > 4 * 1024 * 1024)) await Bun.sleep(10);
    expect(importer.exitCode).toBeNull();
    importer.kill("SIGKILL");
    await importer.exited;
    expect(importer.signalCode).toBe("SIGKILL");

    const check = await runCli([...p.db, "check"]);
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    expect(check.stdout).toStartWith("ok: ");
    expect(countImported(file, "KILL")).toBe(0);
    expect(snapshotTables(file)).toEqual(before);
    // ... and it is a working database: the same file imports and serves again.
    const again = await runJson<{ created: number }>([...p.db, "import", "--org", p.organisationId, "--kind", "employees", join(EXAMPLES, "employees.jsonl")]);
    expect(again.created).toBe(0);
  }, 180_000);
});

describe("a database that cannot be written", () => {
  const NEW_ROWS = 2_000;

  test("a read-only file: the import fails with one clear line and writes nothing; reads go on", async () => {
    const dir = scratch();
    const file = join(dir, "readonly.sqlite");
    const p = await provision(file);
    const rows = join(dir, "rows.jsonl");
    writeEmployees(rows, "RO", NEW_ROWS);
    const command = await commandForNobody(dir);
    const result = await whileServing(p, async () => {
      chmodSync(file, 0o444);
      cleanups.push(() => chmodSync(file, 0o644));
      return runLimitedCli([...p.db, "import", "--org", p.organisationId, "--kind", "employees", rows], { unprivileged: { command } });
    });
    expect(result.code).toBe(1);
    expect(isOneClearLine(result.stderr, file)).toBe(true);
    expect(result.stderr).toMatch(/readonly|read-only|unable to open/);
    expect(countImported(file, "RO")).toBe(0);
  }, 120_000);

  test(`a read-only file system (${IS_ROOT ? "a read-only bind mount" : "no write permission"}): one clear line, nothing written; reads go on`, async () => {
    const dir = scratch();
    const live = join(dir, "live");
    const file = join(live, "db.sqlite");
    mkdirSync(live);
    const p = await provision(file);
    const rows = join(dir, "rows.jsonl");
    writeEmployees(rows, "ROFS", NEW_ROWS);
    const result = await whileServing(p, async () => {
      const view = readOnlyView(live, join(dir, "view"));
      cleanups.push(view.undo);
      const through = join(view.path, "db.sqlite");
      return { through, ...(await runLimitedCli(["--db", through, "import", "--org", p.organisationId, "--kind", "employees", rows])) };
    });
    expect(result.code).toBe(1);
    expect(isOneClearLine(result.stderr, result.through)).toBe(true);
    expect(result.stderr).toMatch(/readonly|read-only|unable to open/);
    expect(countImported(file, "ROFS")).toBe(0);
  }, 60_000);

  test(`a full disk (${IS_ROOT ? "a 2 MB tmpfs" : "a file size limit"}): one clear line, nothing written; reads go on`, async () => {
    const dir = scratch();
    const disk = join(dir, "disk");
    if (IS_ROOT) cleanups.push(mountTmpfs(disk, 2 * 1024 * 1024));
    else mkdirSync(disk);
    const file = join(disk, "db.sqlite");
    const p = await provision(file);
    const rows = join(dir, "rows.jsonl");
    writeEmployees(rows, "FULL", 30_000);
    const result = await whileServing(p, () =>
      runLimitedCli([...p.db, "import", "--org", p.organisationId, "--kind", "employees", rows], IS_ROOT ? {} : { maxFileBytes: 2 * 1024 * 1024 }),
    );
    expect(result.code).toBe(1);
    expect(isOneClearLine(result.stderr, file)).toBe(true);
    expect(result.stderr).toMatch(/database or disk is full|disk I\/O error/);
    expect(result.stderr).toEndWith("nothing was written\n");
    expect(countImported(file, "FULL")).toBe(0);
    expect((await runCli([...p.db, "check"])).code).toBe(0);
  }, 60_000);
});
