/**
 * Records kept as JSON text (lib/record-text.ts, docs/embedding.md "Pages as JSON text"):
 * a record's text joined from its kept body is exactly JSON.stringify of its v1 JSON,
 * whatever its values; the SQL store serves a record that has no body yet (written before
 * migration 0006) the old way; and `migrate` renders the missing bodies when the
 * installation asks for it. Runs on SQLite, and on Postgres with LEAVEAPI_TEST_STORE=postgres.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { sql } from "kysely";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import type { Page } from "../lib/keyset-page.ts";
import { employeeBody, employeeText, leaveBody, leaveText, leaveTypeText, pageOf, pageText } from "../lib/record-text.ts";
import { employeeJson, leaveBookingJson, type EmployeeRecord, type LeaveBookingRecord } from "../lib/records.ts";
import { ANNUAL, authorisedOrganisation, booking, createWorld, employee, seed } from "./support.ts";
import { closeTestStores, openTestStore, testStoreKind } from "./test-stores.ts";

afterAll(closeTestStores);

const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom('"', "\\", "\n\t\u0000\u001f", "</script>", "\u2028"),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const instant = fc.integer({ min: 0, max: 253402300799999 });
const date = fc.constantFrom("2026-03-02", "1900-01-01", "2199-12-31");

const employeeArb: fc.Arbitrary<EmployeeRecord> = fc.record({
  id: fc.uuid(),
  first_name: maybe(text),
  last_name: maybe(text),
  preferred_name: maybe(text),
  job_title: maybe(text),
  department: maybe(text),
  status: text,
  start_date: maybe(date),
  leaving_date: maybe(date),
  holiday_calendar: maybe(text),
  updated_at: instant,
});

const bookingArb: fc.Arbitrary<LeaveBookingRecord> = fc.record({
  id: fc.uuid(),
  employee_id: fc.uuid(),
  leave_type: fc.record({ id: fc.uuid(), name: text, category: fc.constantFrom("annual", "sick"), is_paid: fc.boolean() }),
  start_date: date,
  end_date: date,
  start_half_day: fc.boolean(),
  start_half_period: maybe(fc.constantFrom("am" as const, "pm" as const)),
  end_half_day: fc.boolean(),
  end_half_period: maybe(fc.constantFrom("am" as const, "pm" as const)),
  days: fc.integer({ min: 0, max: 800 }).map((n) => n / 2),
  status: fc.constantFrom("approved" as const, "pending" as const, "cancelled" as const),
  requested_at: maybe(instant),
  reviewed_at: maybe(instant),
  cancelled_at: maybe(instant),
  updated_at: instant,
});

describe("a record's text is its JSON to the byte", () => {
  test("employees, whatever their text fields hold", () => {
    fc.assert(
      fc.property(employeeArb, (e) => {
        expect(employeeText(e.id, employeeBody(e), e.updated_at)).toBe(JSON.stringify(employeeJson(e)));
      }),
    );
  });

  test("bookings: half-day periods without their flag, half days, instants, the embedded leave type", () => {
    fc.assert(
      fc.property(bookingArb, (b) => {
        expect(leaveText(b.id, b.employee_id, leaveTypeText(b.leave_type), leaveBody(b), b.updated_at)).toBe(JSON.stringify(leaveBookingJson(b)));
      }),
    );
  });

  test("a page's text is JSON.stringify of the page, and reads back as it", () => {
    fc.assert(
      fc.property(fc.array(employeeArb, { maxLength: 5 }), fc.boolean(), maybe(fc.string()), (records, has_more, next_cursor) => {
        const data = records.map((e) => JSON.stringify(employeeJson(e)));
        const page: Page<unknown> = { has_more, next_cursor, data: records.map(employeeJson) };
        const asText = pageText({ has_more, next_cursor, data });
        expect(asText.pageJson).toBe(JSON.stringify(page));
        expect(pageOf(asText)).toEqual(page);
      }),
    );
  });
});

describe("the SQL store and records without a body", () => {
  const NOW = Date.parse("2026-03-01T09:30:00.000Z");
  const ORG = "0a000000-0000-4000-8000-00000000000a";

  async function seededStore() {
    const store = await openTestStore();
    await store.createOrganisation({ id: ORG, name: `record-text ${crypto.randomUUID()}`, api_enabled: true, created_at: NOW });
    const people = [employee({ first_name: 'Zoë "Z"' }), employee({ first_name: null }), employee()];
    const bookings = [booking(people[0]!.id), booking(people[1]!.id, { start_half_day: true, start_half_period: "pm", days: 4.5 }), booking(people[2]!.id)];
    await store.runImport(async (w) => {
      await w.upsertEmployees(ORG, people, NOW);
      await w.upsertLeaveTypes(ORG, [ANNUAL], NOW);
      await w.upsertLeaveBookings(ORG, bookings, NOW);
    });
    return { store, db: sqlConnectionOf(store), people, bookings };
  }
  const employeesQuery = { organisationId: ORG, limit: 10 };
  const leaveQuery = { organisationId: ORG, from: "2026-01-01", to: "2026-12-31", limit: 10 };

  async function expectTextsMatchRecords(store: Awaited<ReturnType<typeof seededStore>>["store"]) {
    const employees = await store.listEmployees(employeesQuery);
    expect(employees.length).toBe(3);
    expect(await store.listEmployeesText!(employeesQuery)).toEqual(
      employees.map((e) => ({ key: e.updated_at, id: e.id, json: JSON.stringify(employeeJson(e)) })),
    );
    const bookings = await store.listOverlappingLeave(leaveQuery);
    expect(bookings.length).toBe(3);
    expect(await store.listOverlappingLeaveText!(leaveQuery)).toEqual(
      bookings.map((b) => ({ key: b.start_date, id: b.id, json: JSON.stringify(leaveBookingJson(b)) })),
    );
  }

  test("an import writes every record's body", async () => {
    const { db } = await seededStore();
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from employees where rendered is null`.execute(db);
    expect(Number(rows[0]!.n)).toBe(0);
    const { rows: bookings } = await sql<{ n: number | string }>`select count(*) as n from leave_bookings where rendered is null`.execute(db);
    expect(Number(bookings[0]!.n)).toBe(0);
  });

  // SQLite alone builds the booking indexes afresh on a first large import (adapters/sql/staged-inserts.ts);
  // Postgres writes the same rows one batch at a time, which the other cases here cover.
  test.skipIf(testStoreKind !== "sqlite")("a first import large enough to build the booking indexes afresh writes every body too", async () => {
    const { store, db, people } = await seededStore();
    const many = Array.from({ length: 12_000 }, (_, i) =>
      booking(people[i % 3]!.id, {
        start_date: `2027-${String(1 + (i % 12)).padStart(2, "0")}-0${1 + (i % 9)}`,
        end_date: `2027-${String(1 + (i % 12)).padStart(2, "0")}-1${i % 9}`,
      }),
    );
    const other = "0b000000-0000-4000-8000-00000000000b";
    await store.createOrganisation({ id: other, name: `record-text large ${crypto.randomUUID()}`, api_enabled: true, created_at: NOW });
    await store.runImport(async (w) => {
      await w.upsertEmployees(other, people, NOW);
      await w.upsertLeaveTypes(other, [ANNUAL], NOW);
      await w.upsertLeaveBookings(other, many, NOW);
    });
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from leave_bookings where rendered is null`.execute(db);
    expect(Number(rows[0]!.n)).toBe(0);
    const q = { organisationId: other, from: "2027-03-01", to: "2027-03-31", limit: 500 };
    const records = await store.listOverlappingLeave(q);
    expect(records.length).toBe(500);
    expect((await store.listOverlappingLeaveText!(q)).map((r) => r.json)).toEqual(records.map((b) => JSON.stringify(leaveBookingJson(b))));
  });

  test("a page that meets a record with no body is read the old way, to the same text", async () => {
    const { store, db, people, bookings } = await seededStore();
    await sql`update employees set rendered = null where id = ${people[1]!.id}`.execute(db);
    await sql`update leave_bookings set rendered = null where id = ${bookings[1]!.id}`.execute(db);
    await expectTextsMatchRecords(store);
  });

  test("migrate renders the missing bodies when the installation asks, and then no longer asks", async () => {
    const { store, db } = await seededStore();
    await sql`update employees set rendered = null`.execute(db);
    await sql`update leave_bookings set rendered = null`.execute(db);
    const stale = `"first_name":"stale"`;
    await sql`insert into installation (name, value) values ('render_pending', 'test')`.execute(db);
    await store.migrate();
    const { rows } = await sql<{ id: string; rendered: string | null }>`select id, rendered from employees where organisation_id = ${ORG}`.execute(db);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.rendered === null)).toEqual([]);
    const { rows: pending } = await sql`select name from installation where name = 'render_pending'`.execute(db);
    expect(pending).toEqual([]);
    await expectTextsMatchRecords(store);
    // Not asked again: a body made wrong by hand stays wrong, so migrate did not walk the tables.
    await sql`update employees set rendered = ${stale}`.execute(db);
    await store.migrate();
    const { rows: after } = await sql<{ rendered: string }>`select rendered from employees where deleted_at is null`.execute(db);
    expect(after.every((r) => r.rendered === stale)).toBe(true);
  });
});

describe("what a client reads of pages served as text", () => {
  test("a renamed leave type shows in its bookings at once, with their updated_at moved, though their bodies stayed", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    const person = employee();
    await seed(world, organisationId, {
      employees: [person],
      leaveTypes: [ANNUAL],
      bookings: [booking(person.id), booking(person.id, { start_date: "2026-03-09", end_date: "2026-03-10", days: 2 })],
    });
    const read = async () =>
      (await (await get("/v1/leave-requests?from=2026-01-01&to=2026-12-31")).json()) as { data: { leave_type: { name: string }; updated_at: string }[] };
    const before = await read();
    expect(before.data.map((b) => b.leave_type.name)).toEqual(["Annual leave", "Annual leave"]);
    world.clock.advance(60_000);
    await seed(world, organisationId, { leaveTypes: [{ ...ANNUAL, name: "Holiday" }] });
    const after = await read();
    expect(after.data.map((b) => b.leave_type.name)).toEqual(["Holiday", "Holiday"]);
    expect(after.data.every((b, i) => b.updated_at > before.data[i]!.updated_at)).toBe(true);
    // The store's text and its records agree to the byte after the rename too.
    const q = { organisationId, from: "2026-01-01", to: "2026-12-31", limit: 10 };
    const records = await world.store.listOverlappingLeave(q);
    expect((await world.store.listOverlappingLeaveText!(q)).map((t) => t.json)).toEqual(records.map((b) => JSON.stringify(leaveBookingJson(b))));
  });
});
