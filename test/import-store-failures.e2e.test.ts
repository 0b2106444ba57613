/**
 * When the database itself fails under an import, one line says what happened, in words,
 * and nothing is written (docs/cli.md, "Errors and transactions"; issue 35.6):
 *
 * - Postgres, on either client library: an administrator terminates the import's backend
 *   mid-import (`pg_terminate_backend`). It used to print some thirty lines of the driver's stack,
 *   from an "error" event of a checked-out client that nothing listened to.
 * - SQLite: the temporary directory (SQLITE_TMPDIR), where a large import stages its new
 *   bookings, fills up. It used to be told as a full database.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeStoreFailure } from "../scripts/import/store-failure.ts";
import { CLI, runCli, runJson, scratchDir } from "./cli-harness.ts";
import { IS_ROOT, mountTmpfs } from "./fault-helpers.ts";
import { pollUntil, queryDatabase, scratchDatabases } from "./pg-scratch.ts";
import { PG_ADMIN_URL, POSTGRES_DRIVERS } from "./test-stores.ts";

const scratch = scratchDir();
const unmounts: (() => void)[] = [];
afterAll(() => {
  for (const unmount of unmounts.splice(0)) unmount();
  scratch.dispose();
});
const newDatabase = scratchDatabases("terminated");

const people = (count: number, prefix = "E") =>
  `${Array.from({ length: count }, (_, i) => JSON.stringify({ external_id: `${prefix}${i}`, first_name: "Ann", last_name: `Lee ${i}`, status: "active" })).join("\n")}\n`;

for (const driver of POSTGRES_DRIVERS) {
  test(`Postgres (${driver}): the import's backend terminated mid-import gives one line naming why, no driver stack, nothing written`, async () => {
    const url = await newDatabase();
    const database = new URL(url).pathname.slice(1);
    const org = (await runJson<{ id: string }>(["--database-url", url, "org", "create", "--name", "Terminated Ltd"])).id;
    const file = join(scratch.dir, "many.jsonl");
    writeFileSync(file, people(200_000));
    const proc = Bun.spawn([...CLI, "--database-url", url, "import", "--org", org, "--kind", "employees", file], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", LEAVEAPI_PG_DRIVER: driver },
    });
    const output = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    // Once the import writes its rows, inside its transaction, its backends are terminated.
    await pollUntil("the import writing employees", 30_000, async () => {
      const writing = await queryDatabase(
        PG_ADMIN_URL,
        `select pid from pg_stat_activity where datname = $1 and xact_start is not null and query ilike '%"employees"%'`,
        [database],
      );
      return writing.length > 0 ? true : undefined;
    });
    await queryDatabase(PG_ADMIN_URL, "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()", [database]);
    const [stdout, stderr, code] = await output;
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    // Under a statement the server's own words come back; between two, the driver's.
    const why =
      "terminating connection due to administrator command|Connection terminated unexpectedly|Client has encountered a connection error and is not queryable|Connection closed";
    expect(stderr).toMatch(
      new RegExp(
        `^leaveapi: import failed on the postgres database ${RegExp.escape(url)}: the database connection was closed by the server \\((${why})\\); nothing was written\n$`,
      ),
    );
    expect(await queryDatabase(url, "select count(*)::int as n from employees")).toEqual([{ n: 0 }]);
  }, 90_000);
}

const bookings = (count: number) =>
  `${Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      external_id: `L${i}`,
      employee_external_id: `E${i % 50}`,
      leave_type: { name: "Annual leave", category: "annual", is_paid: true },
      start_date: "2026-01-05",
      end_date: "2026-01-06",
      status: "approved",
      days: 1,
    }),
  ).join("\n")}\n`;

test(`SQLite: a full temporary directory (${IS_ROOT ? "a 1 MB tmpfs" : "told apart from the database's disk"}) is named as such, SQLITE_TMPDIR with it, not as a full database`, async () => {
  const db = join(scratch.dir, "temp-full.sqlite");
  const temp = join(scratch.dir, "sqlite-tmp");
  if (!IS_ROOT) {
    // No file system can be made small without root: the decision itself, on a real
    // SQLITE_FULL, with SQLITE_TMPDIR on a file system of its own (/dev/shm).
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    expect(describeStoreFailure(full, { kind: "sqlite", label: db }, { SQLITE_TMPDIR: "/dev/shm" })).toStartWith(
      "SQLite's temporary directory /dev/shm (SQLITE_TMPDIR) is full",
    );
    return;
  }
  unmounts.push(mountTmpfs(temp, 1024 * 1024));
  const org = (await runJson<{ id: string }>(["--db", db, "org", "create", "--name", "Temp Ltd"])).id;
  const staff = join(scratch.dir, "staff.jsonl");
  writeFileSync(staff, people(50));
  await runJson(["--db", db, "import", "--org", org, "--kind", "employees", staff]);
  const leave = join(scratch.dir, "leave.jsonl");
  writeFileSync(leave, bookings(30_000));
  const result = await runCli(["--db", db, "import", "--org", org, "--kind", "leave", leave], { env: { SQLITE_TMPDIR: temp } });
  expect(result).toEqual({
    code: 1,
    stdout: "",
    stderr:
      `leaveapi: import failed on the sqlite database ${db}: SQLite's temporary directory ${temp} (SQLITE_TMPDIR) is full: a large import keeps its new rows there ` +
      "before it sorts them in, about twice the file's size; free space there, or set SQLITE_TMPDIR to a directory on a disk with room; nothing was written\n",
  });
  // With room for its temporary files, the same file imports.
  mkdirSync(join(scratch.dir, "roomy"));
  expect(await runJson(["--db", db, "import", "--org", org, "--kind", "leave", leave], { env: { SQLITE_TMPDIR: join(scratch.dir, "roomy") } })).toMatchObject({
    ok: true,
    created: 30_000,
  });
}, 60_000);
