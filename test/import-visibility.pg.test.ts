/**
 * On Postgres an import ends with VACUUM (ANALYZE) (adapters/sql/import-transaction.ts): the
 * pages it wrote are marked all-visible at once, so the leave page's index-only scan
 * reads no table row, whether or not autovacuum runs (it is off on some servers, and
 * late on any after a large load).
 */
import { expect, test } from "bun:test";
import { sql } from "kysely";
import { POSTGRES } from "../adapters/sql/capabilities.ts";
import { spanClassExpression } from "../adapters/sql/leave-page/leave-span-classes.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import { ANNUAL, booking, employee } from "./support.ts";
import { openPostgresSchemaStore, releaseTestStore } from "./test-stores.ts";

test("Postgres: after an import, the tables it wrote are all-visible and a leave page fetches no table row", async () => {
  const store = await openPostgresSchemaStore();
  try {
    const org = crypto.randomUUID();
    await store.createOrganisation({ id: org, name: "Visibility", api_enabled: true, created_at: 0 });
    const people = Array.from({ length: 20 }, () => employee());
    const bookings = Array.from({ length: 2000 }, (_, i) => booking(people[i % 20]!.id, { start_date: "2026-03-02", end_date: "2026-03-06" }));
    await store.runImport(async (w) => {
      await w.upsertLeaveTypes(org, [ANNUAL], 1000);
      await w.upsertEmployees(org, people, 1000);
      await w.upsertLeaveBookings(org, bookings, 1000);
    });
    const db = sqlConnectionOf(store);
    const { rows } = await sql<{ relname: string; relpages: number; relallvisible: number }>`
      select relname, relpages, relallvisible from pg_class
      where relnamespace = current_schema()::regnamespace and relname in ('employees', 'leave_bookings') order by relname`.execute(db);
    expect(rows.map((r) => r.relname)).toEqual(["employees", "leave_bookings"]);
    for (const r of rows) {
      expect(r.relpages).toBeGreaterThan(0);
      expect(r.relallvisible).toBe(r.relpages);
    }
    const plan = await db.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      await sql`set local enable_bitmapscan = off`.execute(tx);
      // One arm of the page (adapters/sql/leave-page/leave-page-queries.ts): the bookings span 4 days, class 3.
      const explained = await sql<{ "QUERY PLAN": string }>`explain (analyze, costs off)
        select id, rendered from leave_bookings where organisation_id = ${org} and (${sql.raw(spanClassExpression(POSTGRES))}) = 3
          and start_date >= '2026-03-01' and deleted_at is null order by start_date, id limit 101`.execute(tx);
      return explained.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Index Only Scan using leave_bookings_page/);
    expect(plan).toMatch(/Heap Fetches: 0\b/);
  } finally {
    await releaseTestStore(store);
  }
});
