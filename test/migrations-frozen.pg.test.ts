/**
 * Migration 0006 froze the leave page index as literal SQL (adapters/sql/migrations.ts);
 * the page query builds its span-class expression from live code
 * (adapters/sql/leave-page/leave-span-classes.ts). The planner uses the index only when the two are
 * the same expression, so on SQLite and on Postgres this reads the index the migrated
 * database holds, checks it is exactly LEAVE_PAGE_INDEX_COLUMNS over spanClassExpression(),
 * and checks that a page's scan of one class plans on it.
 */
import { describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { POSTGRES, SQLITE, type SqlCapabilities } from "../adapters/sql/capabilities.ts";
import { LEAVE_PAGE_INDEX_COLUMNS, spanClassExpression } from "../adapters/sql/leave-page/leave-span-classes.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { openPostgresSchemaStore, releaseTestStore } from "./test-stores.ts";

/** The index's columns as the page query names them: the span class as its expression. */
const indexColumns = (caps: SqlCapabilities) => LEAVE_PAGE_INDEX_COLUMNS.map((c) => (c === "span_class" ? `(${spanClassExpression(caps)})` : c));

/** One arm of the leave page as text (adapters/sql/leave-page/leave-page-queries.ts): one class, its keyset range, the overlap test. */
const armQuery = (caps: SqlCapabilities) =>
  sql.raw(`select id, employee_id, leave_type_id, start_date, updated_at, rendered from leave_bookings
    where organisation_id = 'org' and (${spanClassExpression(caps)}) = 3
      and start_date >= '2026-01-01' and start_date <= '2026-02-01' and end_date >= '2026-01-10' and deleted_at is null
    order by start_date, id limit 100`);

describe("SQLite: the migrated page index is the page query's", () => {
  test("sqlite_master holds the index over exactly the page query's expression and columns", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const db = sqlConnectionOf(store);
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'leave_bookings_page'`.execute(db);
      expect(rows.map((r) => r.sql)).toEqual([`CREATE INDEX leave_bookings_page on leave_bookings (${indexColumns(SQLITE).join(", ")})`]);
    } finally {
      await store.close();
    }
  });

  test("a page's scan of one class searches that index, covering, with no sort", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const db = sqlConnectionOf(store);
      const { rows } = await sql<{ detail: string }>`explain query plan ${armQuery(SQLITE)}`.execute(db);
      expect(rows.map((r) => r.detail)).toEqual([
        "SEARCH leave_bookings USING COVERING INDEX leave_bookings_page (organisation_id=? AND <expr>=? AND start_date>? AND start_date<?)",
      ]);
    } finally {
      await store.close();
    }
  });
});

describe("SQLite: the employees page reads one index", () => {
  test("a page as text, with a status filter and past a cursor, is a covering search of employees_page", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const db = sqlConnectionOf(store);
      const { rows } = await sql<{ detail: string }>`explain query plan
        select id, updated_at, rendered from employees
        where organisation_id = 'org' and deleted_at is null and status = 'active' and (updated_at, id) > (0, '')
        order by updated_at, id limit 101`.execute(db);
      expect(rows.map((r) => r.detail)).toEqual(["SEARCH employees USING COVERING INDEX employees_page (organisation_id=? AND (updated_at,id)>(?,?))"]);
    } finally {
      await store.close();
    }
  });
});

describe("SQLite: a restricted employees page led by its departments or calendars", () => {
  test("merges one covering search per value, of the index that leads with it, with no sort", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const db = sqlConnectionOf(store);
      for (const [column, index] of [
        ["department", "employees_by_department"],
        ["holiday_calendar", "employees_by_calendar"],
      ] as const) {
        const arm = (value: string) => `select id, updated_at, rendered from employees
          where organisation_id = 'org' and ${column} = '${value}' and deleted_at is null and status = 'active' and (updated_at, id) > (0, '')`;
        const { rows } = await sql<{ detail: string }>`explain query plan
          ${sql.raw(`${arm("a")} union all ${arm("b")} order by updated_at, id limit 101`)}`.execute(db);
        const search = `SEARCH employees USING COVERING INDEX ${index} (organisation_id=? AND ${column}=? AND (updated_at,id)>(?,?))`;
        expect(rows.map((r) => r.detail)).toEqual(["MERGE (UNION ALL)", "LEFT", search, "RIGHT", search]);
      }
    } finally {
      await store.close();
    }
  });
});

describe("Postgres: the migrated page index is the page query's", () => {
  /** An index's definition as pg_indexes prints it: Postgres keeps the parsed expression, not its text. */
  async function indexDefinition(db: Kysely<Tables>, index: string): Promise<string | undefined> {
    const { rows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where schemaname = current_schema() and indexname = ${index}`.execute(db);
    return rows[0]?.indexdef;
  }

  test("pg_indexes holds the index over exactly the page query's expression and columns", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const db = sqlConnectionOf(store);
      const stored = await indexDefinition(db, "leave_bookings_page");
      // So an index built now from the page query's own expression must print the same.
      let expected: string | undefined;
      const rollBack = new Error("roll back the expected index");
      await db
        .transaction()
        .execute(async (tx) => {
          await sql.raw(`create index leave_bookings_expected on leave_bookings (${indexColumns(POSTGRES).join(", ")})`).execute(tx);
          expected = (await indexDefinition(tx, "leave_bookings_expected"))?.replace("leave_bookings_expected", "leave_bookings_page");
          throw rollBack;
        })
        .catch((error) => {
          if (error !== rollBack) throw error;
        });
      expect(stored).toContain("ELSE 10");
      expect(stored).toBe(expected!);
    } finally {
      await releaseTestStore(store);
    }
  });

  test("a page's scan of one class is an index-only scan of that index on the span class", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const db = sqlConnectionOf(store);
      const plan = await db.transaction().execute(async (tx) => {
        // The tables are empty, so the planner must be told not to prefer reading them whole.
        await sql`set local enable_seqscan = off`.execute(tx);
        await sql`set local enable_bitmapscan = off`.execute(tx);
        const { rows } = await sql<{ "QUERY PLAN": string }>`explain ${armQuery(POSTGRES)}`.execute(tx);
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
      expect(plan).toMatch(/Index Only Scan using leave_bookings_page on leave_bookings/);
      expect(plan).toMatch(/Index Cond: \(\(organisation_id = 'org'::text\) AND \(\(CASE WHEN .* END\) = 3\)/);
      expect(plan).not.toMatch(/Sort/);
    } finally {
      await releaseTestStore(store);
    }
  });
});
