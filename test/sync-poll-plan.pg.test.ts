/**
 * A sync poll of an unchanged organisation (a leave page with `updated_since` after its
 * last change) is answered from one or two index seeks, not a scan of every booking in its
 * range (adapters/sql/leave-page/leave-page-queries.ts, `nothingChangedSince`; at a
 * million bookings that scan took 110 ms, bench/RESULTS.md). That holds only while the
 * planner seeks: on SQLite and on Postgres this checks each question's plan is a search of
 * the index that leads with (organisation_id, updated_at).
 */
import { describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { POSTGRES, SQLITE, type SqlCapabilities } from "../adapters/sql/capabilities.ts";
import type { QueryDefinition } from "../adapters/sql/compiled-queries.ts";
import { bookingChangedQuery, employeeChangedQuery } from "../adapters/sql/leave-page/leave-page-sql.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { openPostgresSchemaStore, releaseTestStore } from "./test-stores.ts";

type Question = QueryDefinition<{ organisationId: string; since: number }, unknown>;

/** The question's SQL for `db`, asked as a poll asks it: since after every stamp (the generated ones run to 50,000). */
function compiled(question: Question, db: Kysely<Tables>, caps: SqlCapabilities) {
  return question.build({ organisationId: sql.val("org"), since: sql.val(10_000_000) }, db, caps).compile();
}

describe("SQLite: a sync poll's questions seek their indexes", () => {
  const cases: [string, Question, string][] = [
    ["a booking changed since", bookingChangedQuery, "SEARCH leave_bookings USING INDEX leave_bookings_by_update (organisation_id=? AND updated_at>?)"],
    ["an employee changed since", employeeChangedQuery, "SEARCH employees USING COVERING INDEX employees_page (organisation_id=? AND updated_at>?)"],
  ];
  for (const [name, question, plan] of cases) {
    test(name, async () => {
      const store = openSqliteStore({ filename: ":memory:" });
      try {
        await store.migrate();
        const db = sqlConnectionOf(store);
        const query = compiled(question, db, SQLITE);
        const { rows } = await sql<{ detail: string }>`explain query plan ${sql.raw(query.sql)}`.execute(db);
        // The compiled statement's parameters are bound by position: EXPLAIN plans them the same as values.
        expect(rows.map((r) => r.detail)).toEqual([plan]);
      } finally {
        await store.close();
      }
    });
  }
});

describe("Postgres: a sync poll's questions seek their indexes", () => {
  test("on 5,000 employees and 50,000 bookings, with statistics, each is an index scan", async () => {
    const store = await openPostgresSchemaStore();
    try {
      const db = sqlConnectionOf(store);
      await sql`insert into organisations (id, name, api_enabled, created_at) values ('org', 'Org', true, 0)`.execute(db);
      await sql`insert into leave_types (organisation_id, id, name, category, is_paid, updated_at) values ('org', 't', 'Annual', 'annual', true, 0)`.execute(
        db,
      );
      await sql`
        insert into employees (organisation_id, id, status, content_digest, updated_at)
        select 'org', 'e' || i, 'active', 'digest', i from generate_series(1, 5000) as i`.execute(db);
      await sql`
        insert into leave_bookings (organisation_id, id, employee_id, leave_type_id, start_date, end_date, start_half_day, end_half_day, status, days, content_digest, updated_at)
        select 'org', 'b' || i, 'e' || (1 + i % 5000), 't', date '2026-01-01' + i % 365, date '2026-01-01' + i % 365, false, false, 'approved', 1, 'digest', i
        from generate_series(1, 50000) as i`.execute(db);
      await sql`analyze employees`.execute(db);
      await sql`analyze leave_bookings`.execute(db);
      const plans: string[] = [];
      for (const question of [bookingChangedQuery, employeeChangedQuery]) {
        const query = compiled(question, db, POSTGRES);
        const { rows } = await sql<{
          "QUERY PLAN": string;
        }>`explain ${sql.raw(query.sql.replace(/\$(\d+)/g, (_, n) => sql.lit(query.parameters[Number(n) - 1]).compile(db).sql))}`.execute(db);
        plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"));
      }
      expect(plans[0]).toMatch(/Index (Only )?Scan using leave_bookings_by_update on \S*leave_bookings/);
      expect(plans[1]).toMatch(/Index (Only )?Scan using employees_by_update on \S*employees/);
      for (const plan of plans) expect(plan).not.toMatch(/Seq Scan|Sort/);
    } finally {
      await releaseTestStore(store);
    }
  });
});
