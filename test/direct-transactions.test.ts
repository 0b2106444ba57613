/**
 * Group commit on the direct connection (adapters/sql/direct-transactions.ts): the work
 * asked for in one turn commits in one transaction, each piece in its own savepoint.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DirectRunner } from "../adapters/sql/compiled-queries.ts";
import { inDirectTransaction } from "../adapters/sql/direct-transactions.ts";

/** The group's first statement: a write that changes nothing and takes t's file's lock. */
const LOCK = "delete from t where 0";

const dirs: string[] = [];
const databases: Database[] = [];
afterEach(() => {
  for (const db of databases.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true });
});

/** A WAL file with a table, and two connections to it: the direct one's runner and another. */
function twoConnections(busyTimeoutMs = 5000) {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-direct-"));
  dirs.push(dir);
  const open = () => {
    const db = new Database(join(dir, "db.sqlite"), { create: true, strict: true });
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    db.exec("PRAGMA journal_mode = WAL");
    databases.push(db);
    return db;
  };
  const direct = open();
  const other = open();
  direct.exec("create table t (n integer primary key)");
  const run: DirectRunner = (sql, parameters) => direct.query(sql).all(...(parameters as number[]));
  const insert = (n: number) => () => run("insert into t (n) values (?) returning n", [n]);
  const seen = () =>
    other
      .query<{ n: number }, []>("select n from t order by n")
      .all()
      .map((r) => r.n);
  return { run, insert, other, seen };
}

describe("inDirectTransaction", () => {
  test("work asked for in one turn runs in order, each seeing the earlier ones, and resolves with its own value", async () => {
    const { run, insert, seen } = twoConnections();
    const count = () => (run("select count(*) as c from t", []) as { c: number }[])[0]!.c;
    const answers = await Promise.all([
      inDirectTransaction(run, LOCK, insert(1)),
      inDirectTransaction(run, LOCK, count),
      inDirectTransaction(run, LOCK, insert(2)),
    ]);
    expect(answers).toEqual([[{ n: 1 }], 1, [{ n: 2 }]]);
    expect(seen()).toEqual([1, 2]);
  });

  test("a piece that throws is rolled back alone and rejects only its own caller", async () => {
    const { run, insert, seen } = twoConnections();
    const failing = () => {
      run("insert into t (n) values (?)", [7]);
      throw new Error("refused");
    };
    const [first, failed, duplicate, last] = await Promise.allSettled([
      inDirectTransaction(run, LOCK, insert(1)),
      inDirectTransaction(run, LOCK, failing),
      inDirectTransaction(run, LOCK, insert(1)),
      inDirectTransaction(run, LOCK, insert(3)),
    ]);
    expect(first.status).toBe("fulfilled");
    expect(failed).toMatchObject({ status: "rejected", reason: new Error("refused") });
    expect(duplicate.status).toBe("rejected");
    expect(last.status).toBe("fulfilled");
    expect(seen()).toEqual([1, 3]);
  });

  test("when the write lock cannot be had, every piece of the batch rejects and nothing is written", async () => {
    const { run, insert, other, seen } = twoConnections(0);
    other.exec("begin immediate");
    const settled = await Promise.allSettled([inDirectTransaction(run, LOCK, insert(1)), inDirectTransaction(run, LOCK, insert(2))]);
    other.exec("commit");
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect(seen()).toEqual([]);
    // The next batch starts afresh.
    await inDirectTransaction(run, LOCK, insert(3));
    expect(seen()).toEqual([3]);
  });

  test("takes the lock of the file its lock statement writes, and of no other attached file", async () => {
    const { run, insert, other, seen } = twoConnections(0);
    // Another file attached to both connections, its lock held by the other connection.
    const dir = mkdtempSync(join(tmpdir(), "leaveapi-direct-other-"));
    dirs.push(dir);
    const attach = `attach database '${join(dir, "other.sqlite")}' as elsewhere`;
    run(attach, []);
    other.exec(attach);
    other.exec("create table elsewhere.u (n integer)");
    other.exec("begin");
    other.exec("insert into elsewhere.u values (1)");
    await inDirectTransaction(run, LOCK, insert(1));
    other.exec("commit");
    expect(seen()).toEqual([1]);
  });
});
