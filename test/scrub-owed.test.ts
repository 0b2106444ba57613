/**
 * The scrub of what deleted records left (adapters/sql/erasure.ts) as `serve` runs it,
 * while another process holds the SQLite data file: it never waits (the server has one
 * thread, and every request would wait with it), leaves the scrub owed, and finishes it
 * once the file is free. An import with deletions marks its scrub owed in its own
 * transaction (`markScrubOwed`), so a scrub after its commit that cannot finish is not lost.
 */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { sql } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { markScrubOwed, scrubDeleted } from "../adapters/sql/erasure.ts";
import { sqlConnectionOf, sqlContextOf } from "../adapters/sql/sql-admin-store.ts";
import { scratchDir } from "./cli-harness.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());

async function owedMark(file: string): Promise<string | null> {
  const db = new Database(file, { readonly: true });
  try {
    const row = db.query("select value from installation where name = 'scrub_pending'").get() as { value: string } | null;
    return row?.value ?? null;
  } finally {
    db.close();
  }
}

test("with another process holding the write lock, serve's scrub returns at once, owed, and finishes once the lock is free", async () => {
  const file = join(scratch.dir, "held.sqlite");
  const store = openSqliteStore({ filename: file, busyTimeoutMs: 5000 });
  await store.migrate();
  const ctx = sqlContextOf(store);
  await markScrubOwed(sqlConnectionOf(store), "sqlite", 1_000);
  const other = new Database(file);
  other.exec("begin immediate");
  try {
    const started = performance.now();
    expect(await scrubDeleted(ctx, { wait: false, onlyIfOwed: true })).toEqual({ complete: false });
    // Far under the 5 s busy timeout: it did not wait for the writer.
    expect(performance.now() - started).toBeLessThan(1000);
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(sqlConnectionOf(store));
    expect(Object.values(rows[0]!)[0]).toBe(5000);
  } finally {
    other.exec("rollback");
    other.close();
  }
  expect(await owedMark(file)).toBe("1000");
  expect(await scrubDeleted(ctx, { wait: false, onlyIfOwed: true })).toEqual({ complete: true });
  expect(await owedMark(file)).toBeNull();
  await store.close();
});

test("a mark already there keeps its instant: the scrub has been owed since then", async () => {
  const file = join(scratch.dir, "twice.sqlite");
  const store = openSqliteStore({ filename: file });
  await store.migrate();
  await markScrubOwed(sqlConnectionOf(store), "sqlite", 1_000);
  await markScrubOwed(sqlConnectionOf(store), "sqlite", 2_000);
  expect(await owedMark(file)).toBe("1000");
  await store.close();
});
