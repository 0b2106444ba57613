/**
 * Migration 0010 (adapters/sql/migrations.ts; docs/api.md, "Personal data"): the deleted employees and
 * bookings an earlier version kept, soft-deleted with every field, are erased when the
 * database is upgraded, with the bookings of deleted employees; the live ones and the
 * tombstones of the deletions feed stay.
 */
import { expect, test } from "bun:test";
import { sql } from "kysely";
import { POSTGRES, SQLITE } from "../adapters/sql/capabilities.ts";
import { schemaMigrations } from "../adapters/sql/migrations.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import { testStoreKind } from "./test-stores.ts";
import { booking, createOrganisation, createWorld, employee, seed } from "./support.ts";

test("an upgrade erases what older versions kept of deleted employees and bookings, and nothing else", async () => {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const [gone, kept] = [employee({ first_name: "Legacy" }), employee({ first_name: "Kept" })];
  const theirs = booking(gone.id);
  const ownDeleted = booking(kept.id, { start_date: "2026-04-06", end_date: "2026-04-06", days: 1 });
  const live = booking(kept.id, { start_date: "2026-05-04", end_date: "2026-05-04", days: 1 });
  await seed(world, org, { employees: [gone, kept], bookings: [theirs, ownDeleted, live] });
  const db = sqlConnectionOf(world.store);
  // As an earlier version left them: rows marked deleted, every field kept.
  await sql`update employees set deleted_at = 1 where id = ${gone.id}`.execute(db);
  await sql`update leave_bookings set deleted_at = 1 where id = ${ownDeleted.id}`.execute(db);
  await sql`insert into deletions (organisation_id, resource, id, deleted_at) values (${org}, 'employees', ${gone.id}, 1)`.execute(db);
  // Migration 0010 itself, as an upgrade runs it on such a database.
  await schemaMigrations(testStoreKind === "postgres" ? POSTGRES : SQLITE)["0010_deleted_records_erased"]!.up(db);

  const employees = await sql<{ first_name: string }>`select first_name from employees where organisation_id = ${org}`.execute(db);
  expect(employees.rows.map((r) => r.first_name)).toEqual(["Kept"]);
  const bookings = await sql<{ id: string }>`select id from leave_bookings where organisation_id = ${org}`.execute(db);
  expect(bookings.rows.map((r) => r.id)).toEqual([live.id]);
  const tombstones = await sql<{ id: string }>`select id from deletions where organisation_id = ${org}`.execute(db);
  expect(tombstones.rows.map((r) => r.id)).toEqual([gone.id]);
});
