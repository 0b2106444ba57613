/**
 * The overlap scan runs once per span class and merges the classes (adapters/sql/leave-page/leave-span-classes.ts).
 * Bookings of every class, some crossing class edges, against brute force: for windows
 * that start before, inside and after them, every page at several limits must be exactly
 * the overlapping bookings in (start_date, id) order. Runs on SQLite and on Postgres.
 */
import { describe, expect, test } from "bun:test";
import { addDays } from "../lib/dates.ts";
import type { LeaveBookingRecord } from "../lib/records.ts";
import { classMaxSpan, classSpansOf, LAST_BOUNDED_CLASS, NO_SPANS, planLeaveScan } from "../adapters/sql/leave-page/leave-span-plan.ts";
import { booking, createOrganisation, createWorld, employee, seed, type TestWorld } from "./support.ts";

// Spans on both sides of every class edge, and some beyond the last bounded class.
const SPANS = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511, 512, 700, 1500];
const FIRST = "2024-01-01";

let world: TestWorld;
let org: string;
let bookings: { id: string; start_date: string; end_date: string }[];

function expected(from: string, to: string): string[] {
  return bookings
    .filter((b) => b.start_date <= to && b.end_date >= from)
    .sort((a, b) => (a.start_date < b.start_date ? -1 : a.start_date > b.start_date ? 1 : a.id < b.id ? -1 : 1))
    .map((b) => b.id);
}

async function allPages(from: string, to: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let last: LeaveBookingRecord | undefined;
  for (;;) {
    const page = await world.store.listOverlappingLeave({
      organisationId: org,
      filters: { from, to },
      limit,
      ...(last ? { after: { startDate: last.start_date, id: last.id } } : {}),
    });
    expect(page.length).toBeLessThanOrEqual(limit);
    seen.push(...page.map((b) => b.id));
    if (page.length < limit) return seen;
    last = page.at(-1);
  }
}

describe("the overlap scan over span classes", () => {
  // Stores close after each test (preload.ts), so the test that reads seeds its own.
  async function seedAllClasses() {
    world = await createWorld();
    org = await createOrganisation(world);
    const person = employee();
    const inputs = [];
    let day = 0;
    for (let round = 0; round < 3; round++) {
      for (const span of SPANS) {
        // Starts spread over two years, several bookings sharing a start date.
        day = (day + 37) % 730;
        const start = addDays(FIRST, day);
        inputs.push(booking(person.id, { start_date: start, end_date: addDays(start, span), days: 1 }));
      }
    }
    await seed(world, org, { employees: [person], bookings: inputs });
    bookings = inputs.map((b) => ({ id: b.id, start_date: b.start_date, end_date: b.end_date }));
  }

  test("the class edges are where the scan's reach assumes them", () => {
    expect(classMaxSpan(0)).toBe(0);
    expect(classMaxSpan(1)).toBe(1);
    expect(classMaxSpan(LAST_BOUNDED_CLASS)).toBe(511);
  });

  test("a page scans only the classes that hold a booking, each from its own longest booking", () => {
    const classes = (...spans: number[]) => planLeaveScan({ from: "2026-03-01" }, classSpansOf(spans)).map((arm) => arm.spanClass);
    expect(classes(0)).toEqual([0]);
    expect(classes(0, 1)).toEqual([0, 1]);
    expect(classes(5)).toEqual([3]);
    expect(classes(0, 8, 9, 200)).toEqual([0, 4, 8]);
    expect(classes(511, 512)).toEqual([9, 10]);
    // No booking at all: class 0 from `from`, which a query needs and where it reads nothing.
    expect(planLeaveScan({ from: "2026-03-01" }, NO_SPANS)).toEqual([{ spanClass: 0, startDate: "2026-03-01" }]);
    // A class reaches back by its longest booking (9 days), not by the 15 its class could hold.
    expect(planLeaveScan({ from: "2026-03-01" }, classSpansOf([8, 9]))).toEqual([{ spanClass: 4, startDate: addDays("2026-03-01", -9) }]);
    // The last class reaches back by the longest booking itself.
    expect(planLeaveScan({ from: "2026-03-01" }, classSpansOf([1500])).at(-1)).toEqual({ spanClass: 10, startDate: addDays("2026-03-01", -1500) });
  });

  test("an organisation whose bookings are all short finds them all, past every class it does not scan", async () => {
    const shortWorld = await createWorld();
    const shortOrg = await createOrganisation(shortWorld, `short spans ${crypto.randomUUID()}`);
    const person = employee();
    const inputs = [0, 1, 2, 3, 0, 2].map((span, i) => booking(person.id, { start_date: addDays(FIRST, i * 2), end_date: addDays(FIRST, i * 2 + span) }));
    await seed(shortWorld, shortOrg, { employees: [person], bookings: inputs });
    const page = await shortWorld.store.listOverlappingLeave({
      organisationId: shortOrg,
      filters: { from: addDays(FIRST, 3), to: addDays(FIRST, 8) },
      limit: 100,
    });
    const want = inputs.filter((b) => b.end_date >= addDays(FIRST, 3) && b.start_date <= addDays(FIRST, 8)).map((b) => b.id);
    expect(page.map((b) => b.id).sort()).toEqual(want.sort());
    expect(want.length).toBe(4);
  });

  const windows: [string, string][] = [];
  for (let offset = -40; offset < 2400; offset += 97) {
    const from = addDays(FIRST, offset);
    windows.push([from, addDays(from, 30)], [from, from]);
  }
  test(`finds exactly the overlapping bookings in order, over ${windows.length} windows and three limits`, async () => {
    await seedAllClasses();
    let nonEmpty = 0;
    for (const [from, to] of windows) {
      const want = expected(from, to);
      if (want.length > 0) nonEmpty++;
      for (const limit of [1, 4, 100]) expect(await allPages(from, to, limit)).toEqual(want);
    }
    // The windows must actually meet bookings of the long classes, or this proves little.
    expect(nonEmpty).toBeGreaterThan(windows.length / 2);
  });
});
