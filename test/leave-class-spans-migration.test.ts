/**
 * Migration 0012 (adapters/sql/migrations.ts): each span class's longest booking, which a
 * leave page reaches back by (adapters/sql/leave-page/leave-span-plan.ts), is filled from the bookings an
 * earlier version stored, in place of the organisation's one longest span; a page on the
 * upgraded database lists every booking that overlaps its window.
 */
import { expect, test } from "bun:test";
import { sql } from "kysely";
import { POSTGRES, SQLITE } from "../adapters/sql/capabilities.ts";
import { schemaMigrations } from "../adapters/sql/migrations.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import { addDays } from "../lib/dates.ts";
import { testStoreKind } from "./test-stores.ts";
import { booking, createOrganisation, createWorld, employee, seed } from "./support.ts";

test("an upgrade fills each class's longest booking from the bookings stored, and pages find them all", async () => {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const person = employee();
  const from = "2026-03-10";
  // Spans 0, 3, 8 and 9 (classes 0, 2, 4 and 4) and 200 (class 8), each ending on `from`.
  const spans = [0, 3, 8, 9, 200];
  const bookings = spans.map((span) => booking(person.id, { start_date: addDays(from, -span), end_date: from }));
  await seed(world, org, { employees: [person], bookings });
  const db = sqlConnectionOf(world.store);
  // As version 0011 left the schema: one longest span per organisation, no class spans.
  await sql`drop table leave_class_spans`.execute(db);
  await sql`create table leave_spans (organisation_id text primary key references organisations (id), max_span_days integer not null)`.execute(db);
  await sql`insert into leave_spans values (${org}, 200)`.execute(db);
  // Migration 0012 itself, as an upgrade runs it on such a database.
  await schemaMigrations(testStoreKind === "postgres" ? POSTGRES : SQLITE)["0012_leave_class_spans"]!.up(db);

  const filled = await sql<{ span_class: number; max_span_days: number }>`select span_class, max_span_days from leave_class_spans
    where organisation_id = ${org} order by span_class`.execute(db);
  expect(filled.rows.map((r) => [Number(r.span_class), Number(r.max_span_days)])).toEqual([
    [0, 0],
    [2, 3],
    [4, 9],
    [8, 200],
  ]);
  const tables =
    testStoreKind === "postgres" ? sql`select 1 from pg_tables where tablename = 'leave_spans'` : sql`select 1 from sqlite_master where name = 'leave_spans'`;
  expect((await tables.execute(db)).rows).toEqual([]);
  const page = await world.store.listOverlappingLeave({ organisationId: org, filters: { from, to: from }, limit: 100 });
  expect(page.map((b) => b.id).sort()).toEqual(bookings.map((b) => b.id).sort());
});
