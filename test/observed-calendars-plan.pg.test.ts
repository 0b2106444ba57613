/**
 * observedCalendars (adapters/sql/observed-calendars.ts) reads a few entries of the
 * partial index of migration 0005 per calendar instead of every employee. That holds only
 * while the planner can use the index for each of the query's reads, so on SQLite and on
 * Postgres this checks the migrated index is there and that every read of employees in
 * the query's plan is a search of that index alone.
 */
import { describe, expect, test } from "bun:test";
import { sql, type Kysely, type RawBuilder } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { nextCalendarSql, observedCalendarsSql } from "../adapters/sql/observed-calendars.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { openPostgresSchemaStore, releaseTestStore } from "./test-stores.ts";

const query = observedCalendarsSql(sql.val("org"), sql.val("2026-01-01"), sql.val("2026-12-31"));

describe("SQLite: observedCalendars reads only the migrated calendar index", () => {
  test("sqlite_master holds the partial index of 0005", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'employees_observed_calendars'`.execute(sqlConnectionOf(store));
      expect(rows.map((r) => r.sql)).toEqual([
        `CREATE INDEX "employees_observed_calendars" on "employees" ("organisation_id", "holiday_calendar", "start_date", "leaving_date", "deleted_at") where "deleted_at" is null and "holiday_calendar" is not null`,
      ]);
    } finally {
      await store.close();
    }
  });

  test("the skip-scan and both overlap reads each search that index, covering", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    try {
      await store.migrate();
      const { rows } = await sql<{ detail: string }>`explain query plan ${query}`.execute(sqlConnectionOf(store));
      const reads = rows.map((r) => r.detail).filter((d) => /\b(SCAN|SEARCH) e(mployees)?\b/.test(d));
      expect(reads).toEqual([
        "SEARCH e USING COVERING INDEX employees_observed_calendars (organisation_id=? AND holiday_calendar>?)",
        "SEARCH e USING COVERING INDEX employees_observed_calendars (organisation_id=? AND holiday_calendar>?)",
        "SEARCH e USING COVERING INDEX employees_observed_calendars (organisation_id=? AND holiday_calendar=? AND start_date=?)",
        "SEARCH e USING COVERING INDEX employees_observed_calendars (organisation_id=? AND holiday_calendar=? AND start_date<?)",
      ]);
    } finally {
      await store.close();
    }
  });
});

describe("Postgres: observedCalendars reads only the migrated calendar index", () => {
  /**
   * The plan on 5,000 employees of `org` over five calendars, some gone, some without a
   * start date, with statistics: on empty tables the planner's choice between indexes is a
   * tie it may settle either way.
   */
  async function plan(db: Kysely<Tables>, query: RawBuilder<unknown>): Promise<string> {
    await sql`insert into organisations (id, name, api_enabled, created_at) values ('org', 'Org', true, 0)`.execute(db);
    await sql`
      insert into employees (organisation_id, id, status, start_date, leaving_date, holiday_calendar, content_digest, updated_at, deleted_at)
      select 'org', 'e' || i, 'active', case when i % 50 <> 0 then date '2010-01-01' + i % 4000 end,
        case when i % 4 = 0 then date '2016-01-01' + i % 2000 end, (array['DE-BY', 'FR', 'GB-ENG', 'GB-SCT', 'US'])[1 + i % 5],
        'digest', i, case when i % 100 = 0 then i end
      from generate_series(1, 5000) as i`.execute(db);
    await sql`analyze employees`.execute(db);
    const { rows } = await sql<{ "QUERY PLAN": string }>`explain ${query}`.execute(db);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  }

  test("pg_indexes holds the partial index of 0005", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const { rows } = await sql<{ indexdef: string }>`
        select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'employees_observed_calendars'`.execute(sqlConnectionOf(store));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.indexdef).toMatch(
        /ON \S*employees USING btree \(organisation_id, holiday_calendar, start_date, leaving_date, deleted_at\) WHERE \(\(deleted_at IS NULL\) AND \(holiday_calendar IS NOT NULL\)\)$/,
      );
    } finally {
      await releaseTestStore(store);
    }
  });

  test("both overlap reads are index-only scans of that index, the second read backwards", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const text = await plan(sqlConnectionOf(store), query);
      const reads = text.split("\n").filter((line) => / on employees e/.test(line));
      expect(reads.map((line) => line.replace(/^\s*->\s*/, "").replace(/\s*\(cost=.*$/, ""))).toEqual([
        "Index Only Scan using employees_observed_calendars on employees e",
        "Index Only Scan using employees_observed_calendars on employees e_1",
        "Index Only Scan Backward using employees_observed_calendars on employees e_2",
      ]);
      expect(text).toContain("Index Cond: ((organisation_id = 'org'::text) AND (holiday_calendar = c.calendar) AND (start_date IS NULL))");
      expect(text).toContain("Index Cond: ((organisation_id = 'org'::text) AND (holiday_calendar = c.calendar) AND (start_date <= '2026-12-31'::date))");
    } finally {
      await releaseTestStore(store);
    }
  });

  // EXPLAIN does not print the plan of the recursive step's subquery, so it is planned alone.
  test("a step of the skip-scan is one index-only search of that index, in its order", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const text = await plan(sqlConnectionOf(store), nextCalendarSql(sql.val("org"), sql.val("gb-eng")));
      expect(text).toMatch(/^Limit .*\n\s*->\s*Index Only Scan using employees_observed_calendars on employees e /);
      expect(text).toContain("Index Cond: ((organisation_id = 'org'::text) AND (holiday_calendar > 'gb-eng'::text))");
      expect(text).not.toContain("Sort");
    } finally {
      await releaseTestStore(store);
    }
  });
});
