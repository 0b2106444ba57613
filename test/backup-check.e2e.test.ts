/**
 * `leaveapi backup` and `leaveapi check` as an operator runs them: real child processes
 * against a SQLite file that a running `leaveapi serve` and an import are using.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, openSync, readFileSync, statSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir, startServer } from "./cli-harness.ts";
import pg from "pg";
import { describeDatabaseUrl } from "../scripts/open-store.ts";
import { PG_ADMIN_URL, testStoreKind } from "./test-stores.ts";

const ROOT = join(import.meta.dir, "..");
const BULK_ROWS = 20_000;

let scratch: ReturnType<typeof scratchDir>;
let dbFile: string;
let db: string[];
let orgId: string;

beforeAll(async () => {
  scratch = scratchDir();
  dbFile = join(scratch.dir, "live.sqlite");
  db = ["--db", dbFile];
  orgId = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Backup Ltd"])).id;
  await runJson([...db, "org", "enable-api", orgId]);
  await runJson([...db, "import", "--org", orgId, "--kind", "employees", join(ROOT, "examples/import/employees.jsonl")]);
});
afterAll(() => scratch.dispose());

/** Opens a copy as the server would find it, and reports what it holds. */
function inspectCopy(file: string): { integrity: string; bulkRows: number; employees: number } {
  const copy = new Database(file, { readonly: true, strict: true });
  try {
    const integrity = copy
      .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
      .all()
      .map((r) => r.integrity_check)
      .join("\n");
    const count = (where: string) => copy.query<{ n: number }, []>(`select count(*) as n from employees ${where}`).get()!.n;
    return { integrity, bulkRows: count("where external_id like 'BULK-%'"), employees: count("") };
  } finally {
    copy.close();
  }
}

function writeBulkEmployees(file: string): void {
  const lines: string[] = [];
  for (let i = 1; i <= BULK_ROWS; i++) {
    const n = String(i).padStart(5, "0");
    lines.push(
      JSON.stringify({
        external_id: `BULK-${n}`,
        first_name: `First${n}`,
        last_name: `Last${n}`,
        status: "active",
        start_date: "2024-01-15",
        holiday_calendar: "GB-ENG",
      }),
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}

describe("backup", () => {
  test("copies taken while serve answers and a 20k-row import runs each hold all of the import or none of it", async () => {
    const bulk = join(scratch.dir, "bulk.jsonl");
    writeBulkEmployees(bulk);
    const credentials = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", orgId]);
    // One client reads back to back: without the per-client budget, or it would meet it.
    const server = await startServer(db, { serveArgs: ["--read-rate-limit", "0"] });
    const statuses: number[] = [];
    let reading = true;
    try {
      const tokenResponse = await fetch(`${server.baseUrl}/v1/oauth/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${credentials.client_id}:${credentials.client_secret}`)}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "grant_type=client_credentials",
      });
      expect(tokenResponse.status).toBe(200);
      const { access_token } = (await tokenResponse.json()) as { access_token: string };
      const reader = (async () => {
        while (reading) {
          const response = await fetch(`${server.baseUrl}/v1/employees?limit=200`, { headers: { authorization: `Bearer ${access_token}` } });
          statuses.push(response.status);
          await response.arrayBuffer();
        }
      })();

      const importer = Bun.spawn([process.execPath, join(ROOT, "scripts/cli.ts"), ...db, "import", "--org", orgId, "--kind", "employees", bulk], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "" },
      });
      const copies: string[] = [];
      let takenDuringImport = 0;
      while (importer.exitCode === null) {
        const copy = join(scratch.dir, `during-${copies.length}.sqlite`);
        const result = await runJson<{ source: string; backup: string; bytes: number }>([...db, "backup", copy]);
        expect(result).toEqual({ source: dbFile, backup: copy, bytes: statSync(copy).size });
        copies.push(copy);
        if (importer.exitCode === null) takenDuringImport++;
      }
      expect(await importer.exited).toBe(0);
      const after = join(scratch.dir, "after.sqlite");
      await runJson([...db, "backup", after]);
      reading = false;
      await reader;

      // The copies must have overlapped the import, or this test would prove nothing.
      expect(takenDuringImport).toBeGreaterThan(0);
      for (const copy of copies) {
        const seen = inspectCopy(copy);
        expect(seen.integrity).toBe("ok");
        expect([0, BULK_ROWS]).toContain(seen.bulkRows);
        expect(seen.employees).toBe(seen.bulkRows + 3);
      }
      expect(inspectCopy(after)).toEqual({ integrity: "ok", bulkRows: BULK_ROWS, employees: BULK_ROWS + 3 });
      expect((await runCli(["--db", after, "check"])).code).toBe(0);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
    } finally {
      reading = false;
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);

  test("a copy holds no part of a write transaction still open, and all of it once committed", async () => {
    const writer = new Database(dbFile, { strict: true });
    writer.exec("PRAGMA busy_timeout = 5000");
    const before = join(scratch.dir, "open-tx.sqlite");
    const committed = join(scratch.dir, "committed.sqlite");
    const rateRows = (file: string) => {
      const copy = new Database(file, { readonly: true, strict: true });
      try {
        return copy.query<{ n: number }, []>("select count(*) as n from installation where name like 'backup-test-%'").get()!.n;
      } finally {
        copy.close();
      }
    };
    try {
      writer.exec("BEGIN IMMEDIATE");
      const insert = writer.prepare("insert into installation (name, value) values (?, ?)");
      for (let i = 0; i < 1000; i++) insert.run(`backup-test-${i}`, String(i));
      // The writer holds its lock while the backup runs in another process.
      expect((await runCli([...db, "backup", before])).code).toBe(0);
      writer.exec("COMMIT");
      expect((await runCli([...db, "backup", committed])).code).toBe(0);
    } finally {
      if (writer.inTransaction) writer.exec("ROLLBACK");
      writer.close();
    }
    expect(rateRows(before)).toBe(0);
    expect(rateRows(committed)).toBe(1000);
  }, 30_000);

  test("an existing FILE is refused unless --force, and left as it was", async () => {
    const target = join(scratch.dir, "existing.sqlite");
    writeFileSync(target, "precious");
    const refused = await runCli([...db, "backup", target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already exists");
    expect(refused.stderr).toContain("--force");
    expect(readFileSync(target, "utf8")).toBe("precious");

    // A database kept private gives a private copy (the umask would give 0644).
    chmodSync(dbFile, 0o600);
    const forced = await runCli([...db, "backup", "--force", target]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(target);
    expect(inspectCopy(target).integrity).toBe("ok");
    expect(statSync(target).mode & 0o777).toBe(0o600);
  }, 30_000);

  test("a missing database is an error, never created", async () => {
    const missing = join(scratch.dir, "missing.sqlite");
    const result = await runCli(["--db", missing, "backup", join(scratch.dir, "never.sqlite")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no SQLite database at ${missing}`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(scratch.dir, "never.sqlite"))).toBe(false);
  });

  test("on Postgres it points to pg_dump without showing the password", async () => {
    const result = await runCli(["--database-url", "postgres://leave:s3cret-pw@db.internal:5432/leaveapi", "backup", "x.dump"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pg_dump");
    expect(result.stderr).toContain("postgres://leave:***@db.internal:5432/leaveapi");
    expect(result.stderr).not.toContain("s3cret-pw");
  });
});

describe("check", () => {
  test("a healthy file: exit 0 and ok", async () => {
    const result = await runCli([...db, "check"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith("ok");
    expect(await runJson([...db, "check"])).toEqual({ database: dbFile, ok: true, problems: [] });
  });

  test("a copy with a damaged page: exit 1, the problem named, no stack trace", async () => {
    const healthy = join(scratch.dir, "to-damage.sqlite");
    await runJson([...db, "backup", healthy]);
    const damaged = join(scratch.dir, "damaged.sqlite");
    copyFileSync(healthy, damaged);
    const probe = new Database(healthy, { readonly: true });
    const pageSize = probe.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
    probe.close();
    // Page 3 is a b-tree page in every leaveapi database; garbage over its header is what a bad disk leaves.
    const fd = openSync(damaged, "r+");
    writeSync(fd, new Uint8Array(64).fill(0xde), 0, 64, 2 * pageSize);
    closeSync(fd);

    const result = await runCli(["--db", damaged, "check"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/integrity|malformed/);
    expect(result.stderr).toContain(`problem in sqlite database ${damaged}`);
    expect(result.stderr).not.toMatch(/\n\s+at |unexpected failure/);

    const json = await runCli(["--db", damaged, "check", "--json"]);
    expect(json.code).toBe(1);
    const body = JSON.parse(json.stdout) as { database: string; ok: boolean; problems: string[] };
    expect(body.database).toBe(damaged);
    expect(body.ok).toBe(false);
    expect(body.problems.length).toBeGreaterThan(0);

    // A damaged database is not backed up as if it were sound.
    const backup = await runCli(["--db", damaged, "backup", join(scratch.dir, "from-damaged.sqlite")]);
    expect(backup.code).toBe(1);
    expect(backup.stderr).not.toMatch(/\n\s+at |unexpected failure/);
    expect(existsSync(join(scratch.dir, "from-damaged.sqlite"))).toBe(false);
  });

  test("a missing file: exit 1, never created", async () => {
    const missing = join(scratch.dir, "absent.sqlite");
    const result = await runCli(["--db", missing, "check"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no SQLite database at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  test("an unreachable Postgres: exit 1 naming the connection problem", async () => {
    const result = await runCli(["--database-url", "postgres://leave:pw@127.0.0.1:1/leaveapi", "check"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot query the database");
    expect(result.stderr).not.toContain(":pw@");
  });
});

// Postgres is there only in the Postgres run (LEAVEAPI_TEST_STORE=postgres); the SQLite run must not need it.
if (testStoreKind === "postgres") {
  describe("check on Postgres", () => {
    const name = `leaveapi_check_${process.pid}`;
    const admin = async (text: string) => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    };
    beforeAll(() => admin(`create database ${name}`));
    afterAll(() => admin(`drop database if exists ${name} with (force)`));

    test("behind on migrations until migrated, then ok", async () => {
      const u = new URL(PG_ADMIN_URL);
      u.pathname = `/${name}`;
      const url = u.toString();
      const behind = await runCli(["--database-url", url, "check", "--json"]);
      expect(behind.code).toBe(1);
      expect((JSON.parse(behind.stdout) as { problems: string[] }).problems[0]).toContain("not yet applied");
      await runJson(["--database-url", url, "migrate"]);
      expect(await runJson(["--database-url", url, "check"])).toEqual({ database: describeDatabaseUrl(url), ok: true, problems: [] });
    }, 30_000);
  });
}

describe("--help", () => {
  test.each([["backup"], ["check"]])("%s --help prints its usage and exits 0", async (command) => {
    const result = await runCli([command, "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`usage: leaveapi ${command}`);
  });
});
