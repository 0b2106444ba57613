/**
 * GET /v1/leave-requests: the exact booking shape, annual leave only, tenancy and deletes,
 * inclusive overlap, filters, (start_date, id) order and paging (docs/api.md: "Rules for
 * every record", "Paging, ordering and cursors", "Incremental sync", "Leave bookings").
 */
import { describe, expect, test } from "bun:test";
import { ANNUAL, SICK, authorisedOrganisation, booking, employee, seed } from "./support.ts";
import type { LeaveBookingInput } from "../lib/admin-store.ts";
import { LEAVE_STATUSES } from "../lib/records.ts";
import { aLeaveBookingJson } from "../testing/record-builders.ts";
import { DATE, DATE_TIME, ONE_SECOND, UUID_LOWER, expectError, freshWorld, ok, softDelete, walkPages, type BookingJson, type Page } from "./data-fixtures.ts";

const MARCH = "/v1/leave-requests?from=2026-03-01&to=2026-03-31";

/** A world with one employee and the given bookings of theirs (built from overrides). */
async function withBookings(...overrides: Partial<LeaveBookingInput>[]) {
  const ctx = await freshWorld();
  const person = employee();
  const bookings = overrides.map((o) => booking(person.id, o));
  await seed(ctx.world, ctx.organisationId, { employees: [person], bookings });
  return { ...ctx, person, bookings };
}

const list = async (get: (p: string) => Promise<Response>, path: string) => (await ok<Page<BookingJson>>(await get(path))).data.map((b) => b.id);

describe("booking records", () => {
  test("carry exactly the v1 fields, formatted as the contract says", async () => {
    const { get, person, bookings } = await withBookings({
      start_half_day: true,
      start_half_period: "pm",
      days: 4.5,
      reviewed_at: Date.parse("2026-02-02T08:15:30.250Z"),
    });
    const page = await ok<Page<BookingJson>>(await get(MARCH));
    expect(page).toEqual({
      has_more: false,
      next_cursor: null,
      data: [
        // Every field the test names; any other declared field is as the builder leaves it, null where it may be.
        aLeaveBookingJson({
          id: bookings[0]!.id,
          employee_id: person.id,
          leave_type: { id: ANNUAL.id, name: "Annual leave", category: "annual", is_paid: true },
          start_date: "2026-03-02",
          end_date: "2026-03-06",
          start_half_day: true,
          start_half_period: "pm",
          end_half_day: false,
          end_half_period: null,
          days: 4.5,
          status: "approved",
          requested_at: "2026-02-01T10:00:00.000Z",
          reviewed_at: "2026-02-02T08:15:30.250Z",
          cancelled_at: null,
          updated_at: "2026-03-01T09:30:00.000Z",
        }),
      ],
    });
    const raw = (await (await get(MARCH)).text()).match(/"days":([^,]+),/)?.[1];
    expect(raw).toBe("4.5");
    const b = page.data[0]!;
    for (const id of [b.id, b.employee_id, b.leave_type.id]) expect(id).toMatch(UUID_LOWER);
    for (const d of [b.start_date, b.end_date]) expect(d).toMatch(DATE);
    expect(b.updated_at).toMatch(DATE_TIME);
  });

  test("a half period is null unless its half-day flag is set", async () => {
    const { get } = await withBookings({ start_half_day: false, start_half_period: "am", end_half_day: true, end_half_period: "am", days: 4.5 });
    const [b] = (await ok<Page<BookingJson>>(await get(MARCH))).data;
    expect(b).toMatchObject({ start_half_day: false, start_half_period: null, end_half_day: true, end_half_period: "am" });
  });
});

describe("what is never returned", () => {
  test("bookings of another organisation", async () => {
    const ctx = await freshWorld();
    const other = await authorisedOrganisation(ctx.world);
    const theirs = employee();
    await seed(ctx.world, other.organisationId, { employees: [theirs], bookings: [booking(theirs.id)] });
    expect(await list(ctx.get, MARCH)).toEqual([]);
    expect(await list(ctx.get, `${MARCH}&employee_id=${theirs.id}`)).toEqual([]);
    expect(await list(other.get, MARCH)).toHaveLength(1);
  });

  test("deleted bookings, not even to updated_since", async () => {
    const { world, organisationId, get, bookings } = await withBookings({}, {});
    world.clock.advance(ONE_SECOND);
    await softDelete(world, organisationId, { bookings: [bookings[0]!.id] });
    expect(await list(get, MARCH)).toEqual([bookings[1]!.id]);
    expect(await list(get, `${MARCH}&updated_since=2026-03-01T09:30:01Z`)).toEqual([]);
  });

  test("bookings of a deleted employee", async () => {
    const { world, organisationId, get, person } = await withBookings({});
    world.clock.advance(ONE_SECOND);
    await softDelete(world, organisationId, { employees: [person.id] });
    expect(await list(get, MARCH)).toEqual([]);
    expect(await list(get, `${MARCH}&employee_id=${person.id}`)).toEqual([]);
  });

  test("bookings whose leave type is not annual", async () => {
    const { get, bookings, person } = await withBookings({ leave_type_id: SICK.id }, {});
    expect(await list(get, MARCH)).toEqual([bookings[1]!.id]);
    expect(await list(get, `${MARCH}&employee_id=${person.id}&status=approved`)).toEqual([bookings[1]!.id]);
  });
});

describe("overlap with [from, to], both bounds inclusive", () => {
  test("ending on from or starting on to is in; a day outside is out", async () => {
    const { get, bookings } = await withBookings(
      { start_date: "2026-03-05", end_date: "2026-03-10" }, // ends on from
      { start_date: "2026-03-20", end_date: "2026-03-25" }, // starts on to
      { start_date: "2026-03-02", end_date: "2026-03-09" }, // ends the day before from
      { start_date: "2026-03-21", end_date: "2026-03-23" }, // starts the day after to
      { start_date: "2026-03-01", end_date: "2026-03-31" }, // covers the whole range
    );
    const ids = await list(get, "/v1/leave-requests?from=2026-03-10&to=2026-03-20");
    expect(new Set(ids)).toEqual(new Set([bookings[0]!.id, bookings[1]!.id, bookings[4]!.id]));
  });

  test("a six-month booking that starts long before from is still returned", async () => {
    const ctx = await freshWorld();
    const person = employee();
    const long = booking(person.id, { start_date: "2025-10-01", end_date: "2026-03-31", days: 120 });
    await seed(ctx.world, ctx.organisationId, { employees: [person], bookings: [long] });
    // A later, short booking must not narrow the scan again.
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { bookings: [booking(person.id, { start_date: "2026-03-23", end_date: "2026-03-23", days: 1 })] });
    const ids = await list(ctx.get, "/v1/leave-requests?from=2026-03-20&to=2026-03-25");
    expect(ids[0]).toBe(long.id);
    expect(ids).toHaveLength(2);
  });
});

describe("filters", () => {
  test("status keeps each of the five values exactly", async () => {
    const { get, bookings } = await withBookings(...LEAVE_STATUSES.map((status) => ({ status })));
    for (const [i, status] of LEAVE_STATUSES.entries()) {
      expect(await list(get, `${MARCH}&status=${status}`)).toEqual([bookings[i]!.id]);
    }
    for (const bad of ["APPROVED", "approved%20", "canceled", ""]) {
      await expectError(await get(`${MARCH}&status=${bad}`), 400, "invalid_request", "status");
    }
  });

  test("employee_id keeps one employee's bookings; unknown is an empty list, malformed a 400", async () => {
    const ctx = await freshWorld();
    const [a, b] = [employee(), employee()];
    const [ba, bb] = [booking(a.id), booking(b.id)];
    await seed(ctx.world, ctx.organisationId, { employees: [a, b], bookings: [ba, bb] });
    expect(await list(ctx.get, `${MARCH}&employee_id=${a.id}`)).toEqual([ba.id]);
    expect(await list(ctx.get, `${MARCH}&employee_id=${b.id.toUpperCase()}`)).toEqual([bb.id]);
    const unknown = await ctx.get(`${MARCH}&employee_id=6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a`);
    expect(await ok(unknown)).toEqual({ has_more: false, next_cursor: null, data: [] });
    await expectError(await ctx.get(`${MARCH}&employee_id=nobody`), 400, "invalid_request", "employee_id");
  });

  test("updated_since keeps bookings changed at or after the instant", async () => {
    const ctx = await freshWorld();
    const person = employee();
    const [old, fresh] = [booking(person.id), booking(person.id)];
    await seed(ctx.world, ctx.organisationId, { employees: [person], bookings: [old] });
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { bookings: [fresh] });
    expect(await list(ctx.get, `${MARCH}&updated_since=2026-03-01T09:30:01.000Z`)).toEqual([fresh.id]);
    expect(await list(ctx.get, `${MARCH}&updated_since=2026-03-01T10:30:00%2B01:00`)).toHaveLength(2);
    expect(await list(ctx.get, `${MARCH}&updated_since=2026-03-01T10:30:01+01:00`)).toEqual([fresh.id]);
  });

  test("renaming a leave type bumps the updated_at of its bookings", async () => {
    const { world, organisationId, get, bookings } = await withBookings({});
    world.clock.advance(5 * ONE_SECOND);
    await seed(world, organisationId, { leaveTypes: [{ ...ANNUAL, name: "Holiday" }, SICK] });
    const page = await ok<Page<BookingJson>>(await get(`${MARCH}&updated_since=2026-03-01T09:30:05Z`));
    expect(page.data.map((b) => b.id)).toEqual([bookings[0]!.id]);
    expect(page.data[0]).toMatchObject({ updated_at: "2026-03-01T09:30:05.000Z", leave_type: { name: "Holiday" } });
  });
});

describe("order and paging", () => {
  test("ascending (start_date, id), whatever the order of writing", async () => {
    const { get } = await withBookings(
      { start_date: "2026-03-16", end_date: "2026-03-16" },
      { start_date: "2026-03-09", end_date: "2026-03-09" },
      { start_date: "2026-03-09", end_date: "2026-03-10" },
      { start_date: "2026-03-02", end_date: "2026-03-20" },
    );
    const { data } = await ok<Page<BookingJson>>(await get(MARCH));
    const keys = data.map((b) => `${b.start_date}/${b.id}`);
    expect(keys).toEqual([...keys].sort());
    expect(data.map((b) => b.start_date)).toEqual(["2026-03-02", "2026-03-09", "2026-03-09", "2026-03-16"]);
  });

  test("walking the pages returns every booking once; an exact multiple ends cleanly", async () => {
    const starts = ["2026-03-02", "2026-03-03", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"];
    const { get, bookings } = await withBookings(...starts.map((d) => ({ start_date: d, end_date: d, days: 1 })));
    const pages = await walkPages<BookingJson>(get, `${MARCH}&limit=2`);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 2]);
    expect(pages[2]).toMatchObject({ has_more: false, next_cursor: null });
    const seen = pages.flatMap((p) => p.data.map((b) => b.id));
    expect(seen).toHaveLength(bookings.length);
    expect(new Set(seen)).toEqual(new Set(bookings.map((b) => b.id)));
    const uneven = await walkPages<BookingJson>(get, `${MARCH}&limit=4`);
    expect(uneven.map((p) => p.data.length)).toEqual([4, 2]);
    expect(uneven.flatMap((p) => p.data.map((b) => b.id))).toEqual(seen);
  });
});
