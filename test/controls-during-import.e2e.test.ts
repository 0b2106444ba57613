/**
 * The controls never wait (DECISIONS §2; issue 35): while `leaveapi import` loads 300,000
 * bookings, and while its dry run reads them, `credentials revoke`, `credentials rotate`,
 * `org disable-api` and `org enable-api` each finish within 2 s, and a running `leaveapi
 * serve` refuses the revoked or switched-off tokens within 3 s. On SQLite the test first
 * waits until the import holds the data file's write lock (a probe that finds it busy),
 * so the controls run against a held lock; before the controls moved to the tokens file
 * (adapters/sql/access-controls.ts) they waited for it and failed after the busy timeout.
 * On SQLite and on Postgres, through the real command line and a real socket.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { generate } from "../bench/generate.ts";
import { CLI, fetchAccessToken, runCli, runJson, scratchDir, startServer } from "./cli-harness.ts";
import { pollUntil, scratchDatabases } from "./pg-scratch.ts";

const BOOKINGS = 300_000;
const CONTROL_MS = 2000;
const EFFECT_MS = 3000;

const scratch = scratchDir();
afterAll(() => scratch.dispose());
const files = generate({ out: join(scratch.dir, "files"), employees: 3000, bookings: BOOKINGS, seed: 35 });
const newDatabase = scratchDatabases("controls");

type Credentials = { client_id: string; client_secret: string };

/** Whether another connection holds the SQLite file's write lock now: a write that changes nothing, with no wait. */
function sqliteLockHeld(file: string): boolean {
  const db = new Database(file);
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("BEGIN");
    try {
      db.exec("DELETE FROM publications WHERE 0");
      return false;
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
      throw error;
    } finally {
      db.exec("ROLLBACK");
    }
  } finally {
    db.close();
  }
}

async function timed(args: string[]): Promise<{ ms: number; code: number; stderr: string }> {
  const started = performance.now();
  const result = await runCli(args);
  return { ms: performance.now() - started, code: result.code, stderr: result.stderr };
}

async function controlsDuringImport(dbArgs: string[], sqliteFile: string | null, dryRun: boolean): Promise<void> {
  const org = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", `Busy ${dryRun ? "dry" : "real"}`])).id;
  await runJson([...dbArgs, "org", "enable-api", org]);
  const revoked = await runJson<Credentials>([...dbArgs, "credentials", "create", "--org", org]);
  const rotated = await runJson<Credentials>([...dbArgs, "credentials", "create", "--org", org]);
  const other = await runJson<Credentials>([...dbArgs, "credentials", "create", "--org", org]);
  await runJson([...dbArgs, "import", "--org", org, "--kind", "employees", (await files).employees]);
  const server = await startServer(dbArgs);
  try {
    const statusWith = async (token: string) =>
      (await fetch(`${server.baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${token}` } })).status;
    const revokedToken = await fetchAccessToken(server.baseUrl, revoked);
    const otherToken = await fetchAccessToken(server.baseUrl, other);
    expect(await statusWith(revokedToken)).toBe(200);
    expect(await statusWith(otherToken)).toBe(200);

    const importing = Bun.spawn([...CLI, ...dbArgs, "import", "--org", org, "--kind", "leave", (await files).leave, ...(dryRun ? ["--dry-run"] : [])], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "" },
    });
    const importOutput = Promise.all([new Response(importing.stdout).text(), new Response(importing.stderr).text()]);
    // A real SQLite import holds the data file's write lock while it writes: the controls must meet it held.
    if (sqliteFile !== null && !dryRun) await pollUntil("the import holds the write lock", 60_000, async () => (sqliteLockHeld(sqliteFile) ? true : undefined));
    else await Bun.sleep(500);

    // A writer that must wait for the import says whom it waits for (issue 35), and then does its work.
    const erasing = sqliteFile !== null && !dryRun ? runCli([...dbArgs, "erase", "--org", org, "--employee", "E000001", "--yes"]) : null;

    const revoke = await timed([...dbArgs, "credentials", "revoke", revoked.client_id]);
    const refusedAfterRevoke = await pollUntil("the revoked token refused", EFFECT_MS, async () =>
      (await statusWith(revokedToken)) === 401 ? true : undefined,
    );
    const rotate = await timed([...dbArgs, "credentials", "rotate", rotated.client_id]);
    const disable = await timed([...dbArgs, "org", "disable-api", org]);
    const refusedAfterDisable = await pollUntil("the switched-off token refused", EFFECT_MS, async () =>
      (await statusWith(otherToken)) === 401 ? true : undefined,
    );
    const enable = await timed([...dbArgs, "org", "enable-api", org]);
    const lockStillHeld = sqliteFile !== null && !dryRun ? sqliteLockHeld(sqliteFile) : null;
    const stillImporting = importing.exitCode === null;

    for (const control of [revoke, rotate, disable, enable]) {
      expect({ code: control.code, stderr: control.stderr }).toEqual({ code: 0, stderr: "" });
      expect(control.ms).toBeLessThan(CONTROL_MS);
    }
    expect(refusedAfterRevoke.elapsedMs).toBeLessThan(EFFECT_MS);
    expect(refusedAfterDisable.elapsedMs).toBeLessThan(EFFECT_MS);
    // Switching access on again brings no token back, and the revoked client gets none.
    expect(await statusWith(otherToken)).toBe(401);
    expect(await statusWith(revokedToken)).toBe(401);
    const fresh = await fetchAccessToken(server.baseUrl, other);
    expect(await statusWith(fresh)).toBe(200);
    const refusedClient = await fetch(`${server.baseUrl}/v1/oauth/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`${revoked.client_id}:${revoked.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(refusedClient.status).toBe(401);
    // The controls ran while the import did (and on SQLite's real import, while it held the lock).
    expect(stillImporting).toBe(true);
    if (lockStillHeld !== null) expect(lockStillHeld).toBe(true);
    console.log(
      `controls during ${dryRun ? "a dry run" : "an import"} of ${BOOKINGS} bookings, ${sqliteFile === null ? "postgres" : "sqlite"}: ` +
        `revoke ${revoke.ms.toFixed(0)} ms, rotate ${rotate.ms.toFixed(0)} ms, disable ${disable.ms.toFixed(0)} ms, enable ${enable.ms.toFixed(0)} ms; ` +
        `refused after ${refusedAfterRevoke.elapsedMs} ms and ${refusedAfterDisable.elapsedMs} ms`,
    );

    expect(await importing.exited).toBe(0);
    if (erasing !== null) {
      const erased = await erasing;
      expect({ code: erased.code, stderr: erased.stderr }).toEqual({
        code: 0,
        stderr: expect.stringMatching(/^leaveapi: waiting for the import of leave into Busy real \(process \d+, started [^)]+\) to finish before erasing /),
      });
    }
    const [stdout] = await importOutput;
    expect(stdout).toContain(dryRun ? "dry run: nothing was written" : `imported ${BOOKINGS} rows`);
    // Once the import has ended, the state holds and the revoked token stays refused.
    expect(await statusWith(revokedToken)).toBe(401);
    const clients = await runJson<{ client_id: string; revoked_at: string | null }[]>([...dbArgs, "credentials", "list", "--org", org]);
    expect(clients.find((c) => c.client_id === revoked.client_id)?.revoked_at).not.toBeNull();
  } finally {
    await server.stop();
  }
}

test("a command that gives up on a held SQLite lock says the database is busy, not unreachable", async () => {
  const file = join(scratch.dir, "busy.sqlite");
  const org = (await runJson<{ id: string }>(["--db", file, "org", "create", "--name", "Busy"])).id;
  const holder = new Database(file);
  holder.exec("BEGIN");
  holder.exec("DELETE FROM publications WHERE 0");
  try {
    const renamed = await runCli(["--db", file, "org", "rename", org, "--name", "Renamed"]);
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain("leaveapi: the database is busy: another process (an import or a command) held its write lock");
    expect(renamed.stderr).not.toContain("unreachable");
  } finally {
    holder.exec("ROLLBACK");
    holder.close();
  }
}, 30_000);

describe("the controls during an import of 300,000 bookings and its dry run", () => {
  for (const dryRun of [true, false]) {
    test(`SQLite, ${dryRun ? "dry run" : "import"}`, async () => {
      const file = join(scratch.dir, `controls-${dryRun}.sqlite`);
      await controlsDuringImport(["--db", file], file, dryRun);
    }, 240_000);

    test(`Postgres, ${dryRun ? "dry run" : "import"}`, async () => {
      await controlsDuringImport(["--database-url", await newDatabase()], null, dryRun);
    }, 240_000);
  }
});

test("a backup taken while the data file's lock is held holds the controls set meanwhile", async () => {
  const file = join(scratch.dir, "backup.sqlite");
  const db = ["--db", file];
  const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Backed up"])).id;
  await runJson([...db, "org", "enable-api", org]);
  const client = await runJson<Credentials>([...db, "credentials", "create", "--org", org]);
  const holder = new Database(file);
  holder.exec("BEGIN");
  holder.exec("DELETE FROM publications WHERE 0");
  try {
    await runJson([...db, "credentials", "revoke", client.client_id]);
    await runJson([...db, "org", "disable-api", org]);
    // Not in the data file yet: its lock is held, as an import holds it.
    const inData = new Database(file, { readonly: true });
    expect(inData.query("select revoked_at from api_clients").get()).toEqual({ revoked_at: null });
    inData.close();
    await runJson([...db, "backup", join(scratch.dir, "copy.sqlite")]);
  } finally {
    holder.exec("ROLLBACK");
    holder.close();
  }
  const copy = new Database(join(scratch.dir, "copy.sqlite"), { readonly: true });
  try {
    expect(copy.query<{ revoked: number }, []>("select revoked_at is not null as revoked from api_clients").get()).toEqual({ revoked: 1 });
    expect(copy.query("select api_enabled from organisations").get()).toEqual({ api_enabled: 0 });
  } finally {
    copy.close();
  }
}, 30_000);
