/**
 * Records kept as JSON text (adapters/sql/record-bodies.ts, docs/embedding.md "Pages as
 * JSON text"): a record's text joined from its kept body is exactly JSON.stringify of its
 * v1 JSON, whatever its values; the SQL store declines to answer as text a page that meets
 * a record with no body, which is then written from its records; and `migrate` writes the
 * bodies again whenever what a body holds changed (adapters/sql/render-bodies.ts). Runs on SQLite, and
 * on Postgres with LEAVEAPI_TEST_STORE=postgres.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { sql } from "kysely";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import { employeeBody, employeeText, leaveBody, leaveText, leaveTypeText, listTextOf } from "../adapters/sql/record-bodies.ts";
import { BODIES_VERSION } from "../adapters/sql/render-bodies.ts";
import { listEmployeePage } from "../lib/employee-pages.ts";
import { listLeavePage } from "../lib/leave-pages.ts";
import { employeeJson, leaveBookingJson, type EmployeeRecord, type LeaveBookingRecord } from "../lib/records.ts";
import type { ListText } from "../lib/store.ts";
import { ANNUAL, authorisedOrganisation, booking, createWorld, employee, seed } from "./support.ts";
import { aLeaveBooking, anEmployee } from "../testing/record-builders.ts";
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

// Through the record builders, so a field added to the field list gets its default here.
const employeeArb: fc.Arbitrary<EmployeeRecord> = fc
  .record({
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
  })
  .map((fields) => anEmployee(fields));

const bookingArb: fc.Arbitrary<LeaveBookingRecord> = fc
  .record({
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
  })
  .map((fields) => aLeaveBooking(fields));

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

  test("a list's text is JSON.stringify of its first `limit` records, with whether more follow and the last one's position", () => {
    fc.assert(
      fc.property(fc.array(employeeArb, { maxLength: 6 }), fc.integer({ min: 1, max: 5 }), (records, limit) => {
        const text = listTextOf(
          records,
          limit,
          (e) => [e.updated_at, e.id],
          (e) => JSON.stringify(employeeJson(e)),
        );
        const page = records.slice(0, limit);
        const last = page[page.length - 1];
        expect(text).toEqual({
          json: JSON.stringify(page.map(employeeJson)),
          count: page.length,
          hasMore: records.length > limit,
          last: last ? [last.updated_at, last.id] : null,
        });
      }),
    );
  });
});

/** What `listText` must answer for a query, from the store's records for one more. */
function expectedText<R extends { id: string }>(records: R[], limit: number, json: (r: R) => unknown, key: (r: R) => string | number): ListText {
  return listTextOf(
    records,
    limit,
    (r) => [key(r), r.id],
    (r) => JSON.stringify(json(r)),
  );
}

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
  const employeesQuery = { organisationId: ORG, filters: {}, limit: 2 };
  const leaveQuery = { organisationId: ORG, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 2 };

  async function expectTextsMatchRecords(store: Awaited<ReturnType<typeof seededStore>>["store"]) {
    const employees = await store.listEmployees({ ...employeesQuery, limit: 3 });
    expect(employees.length).toBe(3);
    expect(await store.listText!({ list: "employees", query: employeesQuery })).toEqual(expectedText(employees, 2, employeeJson, (e) => e.updated_at));
    const bookings = await store.listOverlappingLeave({ ...leaveQuery, limit: 3 });
    expect(bookings.length).toBe(3);
    expect(await store.listText!({ list: "leave-requests", query: leaveQuery })).toEqual(expectedText(bookings, 2, leaveBookingJson, (b) => b.start_date));
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
    const q = { organisationId: other, filters: { from: "2027-03-01", to: "2027-03-31" }, limit: 500 };
    const records = await store.listOverlappingLeave({ ...q, limit: 501 });
    expect(records.length).toBe(501);
    expect(await store.listText!({ list: "leave-requests", query: q })).toEqual(expectedText(records, 500, leaveBookingJson, (b) => b.start_date));
  });

  test("a page that meets a record with no body is not answered as text, and the API writes it from the records, to the same bytes", async () => {
    const { store, db, people, bookings } = await seededStore();
    const whole = { limit: 10 };
    const range = { from: "2026-01-01", to: "2026-12-31" };
    const employeesBefore = (await listEmployeePage(store, ORG, whole)).text;
    const leaveBefore = (await listLeavePage(store, ORG, { ...range, ...whole })).text;
    await sql`update employees set rendered = null where id = ${people[1]!.id}`.execute(db);
    await sql`update leave_bookings set rendered = null where id = ${bookings[1]!.id}`.execute(db);
    expect(await store.listText!({ list: "employees", query: { organisationId: ORG, filters: {}, limit: 10 } })).toBeNull();
    expect(await store.listText!({ list: "leave-requests", query: { organisationId: ORG, filters: range, limit: 10 } })).toBeNull();
    expect((await listEmployeePage(store, ORG, whole)).text).toBe(employeesBefore);
    expect((await listLeavePage(store, ORG, { ...range, ...whole })).text).toBe(leaveBefore);
  });

  test("a migrated database records the version of the bodies it holds", async () => {
    const { db } = await seededStore();
    const { rows } = await sql<{
      name: string;
      value: string;
    }>`select name, value from installation where name in ('bodies_version', 'render_pending')`.execute(db);
    expect(rows).toEqual([{ name: "bodies_version", value: BODIES_VERSION }]);
  });

  test("migrate writes every body again when what a body holds changed, and then not again", async () => {
    const { store, db } = await seededStore();
    const stale = `"first_name":"stale"`;
    await sql`update employees set rendered = ${stale}`.execute(db);
    await sql`update leave_bookings set rendered = null`.execute(db);
    await sql`update installation set value = 'an older field list' where name = 'bodies_version'`.execute(db);
    await store.migrate();
    const { rows } = await sql<{ id: string; rendered: string | null }>`select id, rendered from employees where organisation_id = ${ORG}`.execute(db);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.rendered === null || r.rendered === stale)).toEqual([]);
    const { rows: version } = await sql<{ value: string }>`select value from installation where name = 'bodies_version'`.execute(db);
    expect(version).toEqual([{ value: BODIES_VERSION }]);
    await expectTextsMatchRecords(store);
    // The version matches now: a body made wrong by hand stays wrong, so migrate did not walk the tables.
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
    const q = { organisationId, filters: { from: "2026-01-01", to: "2026-12-31" }, limit: 10 };
    const records = await world.store.listOverlappingLeave({ ...q, limit: 11 });
    expect(await world.store.listText!({ list: "leave-requests", query: q })).toEqual(expectedText(records, 10, leaveBookingJson, (b) => b.start_date));
  });
});
