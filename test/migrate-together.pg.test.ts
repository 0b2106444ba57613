/**
 * Two processes that migrate one new Postgres database at once (two `leaveapi serve`
 * started together, test/pg-migrate.e2e.test.ts) both finish: Kysely's migration lock
 * runs the migrations once, and what comes after them, the kept bodies' version
 * (adapters/sql/render-bodies.ts), is written by both without either failing on the
 * other's row.
 */
import { expect, test } from "bun:test";
import { sql } from "kysely";
import { openPostgresStore } from "../adapters/postgres.ts";
import { BODIES_VERSION } from "../adapters/sql/render-bodies.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import { freshSchemaName, testRunDatabaseUrl } from "./test-stores.ts";

test("two stores migrating one new schema at once both succeed, and record the bodies' version once", async () => {
  const connectionString = await testRunDatabaseUrl();
  const schema = freshSchemaName();
  const stores = [openPostgresStore({ connectionString, schema, poolSize: 2 }), openPostgresStore({ connectionString, schema, poolSize: 2 })];
  try {
    for (let round = 0; round < 5; round++) {
      // As a new database is after its migrations: no version recorded yet, so both write it.
      if (round > 0) await sql`delete from installation where name = 'bodies_version'`.execute(sqlConnectionOf(stores[0]!));
      const outcomes = await Promise.allSettled(stores.map((s) => s.migrate()));
      expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "ok"))).toEqual(["ok", "ok"]);
      const { rows } = await sql<{ value: string }>`select value from installation where name = 'bodies_version'`.execute(sqlConnectionOf(stores[0]!));
      expect(rows.map((r) => r.value)).toEqual([BODIES_VERSION]);
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
}, 60_000);
