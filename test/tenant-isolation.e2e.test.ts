/**
 * Tenant isolation as a property (docs/api.md, "Rules for every record"; issue 8): random
 * employees, bookings, closure days and imported public holidays for three organisations,
 * which share employee, booking and leave-type ids on purpose (the keys are per
 * organisation). Then, for each organisation, every endpoint with every filter combination,
 * paged to the end: every record belongs to the asker, lists hold exactly the asker's
 * matching records, another organisation's employee id is 404, and another organisation's
 * cursor is 400.
 *
 * Every name a record carries starts with its organisation's marker, so a record that
 * strays into another organisation's answer is seen at once. FUZZ_SEED replays a run.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { LEAVE_STATUSES } from "../lib/records.ts";
import type { ClosureDayInput, EmployeeInput, LeaveBookingInput } from "../lib/admin-store.ts";
import { addDays } from "../lib/dates.ts";
import { ANNUAL, SICK, authorisedOrganisation, booking, createWorld, employee, seed, type TestWorld } from "./support.ts";
import { walkPages, type BookingJson, type EmployeeJson, type Get, type HolidayJson } from "./data-fixtures.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const RUNS = Number(process.env.ISOLATION_RUNS ?? 12);
const YEAR_START = "2026-01-01";
/** Ids every organisation draws from, so that the same id names different records in different organisations. */
const EMPLOYEE_IDS = Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-0000000000${String(i).padStart(2, "0")}`);
const bookingId = (employeeSlot: number, i: number) => `00000000-0000-4000-9000-0000000000${employeeSlot}${i}`;
const EMPLOYEE_STATUSES = ["active", "terminated", "on_leave"] as const;
const CALENDARS = ["GB-ENG", "US-CA", "DE-BY"] as const;

const bookingArb = fc.record({
  start: fc.integer({ min: -40, max: 400 }),
  length: fc.integer({ min: 0, max: 20 }),
  status: fc.constantFrom(...LEAVE_STATUSES),
  annual: fc.boolean(),
});
const employeeArb = fc.record({
  slot: fc.nat({ max: EMPLOYEE_IDS.length - 1 }),
  status: fc.constantFrom(...EMPLOYEE_STATUSES),
  department: fc.constantFrom("Engineering", "Sales", null),
  calendar: fc.constantFrom(...CALENDARS),
  start: fc.option(fc.integer({ min: -400, max: 300 })),
  bookings: fc.array(bookingArb, { maxLength: 3 }),
});
const organisationArb = fc.record({
  employees: fc.uniqueArray(employeeArb, { maxLength: 6, selector: (e) => e.slot }),
  closures: fc.array(fc.record({ day: fc.integer({ min: 0, max: 364 }), department: fc.constantFrom("Engineering", "Sales", null) }), { maxLength: 4 }),
  publicHolidays: fc.option(fc.record({ calendar: fc.constantFrom(...CALENDARS), days: fc.uniqueArray(fc.integer({ min: 0, max: 364 }), { maxLength: 4 }) })),
});
type OrganisationData = typeof organisationArb extends fc.Arbitrary<infer T> ? T : never;

interface Seeded {
  id: string;
  marker: string;
  get: Get;
  employees: EmployeeInput[];
  bookings: LeaveBookingInput[];
  /** When its records were written: their updated_at. */
  seededAt: string;
}

/** Writes one organisation's generated data, every name carrying `marker`. */
async function seedOrganisation(world: TestWorld, index: number, data: OrganisationData): Promise<Seeded> {
  const org = await authorisedOrganisation(world);
  const marker = `org${index}-${org.organisationId.slice(0, 8)}`;
  const employees = data.employees.map((e) =>
    employee({
      id: EMPLOYEE_IDS[e.slot]!,
      first_name: marker,
      status: e.status,
      department: e.department,
      holiday_calendar: e.calendar,
      start_date: e.start === null ? null : addDays(YEAR_START, e.start),
    }),
  );
  const bookings = data.employees.flatMap((e) =>
    e.bookings.map((b, i) =>
      booking(EMPLOYEE_IDS[e.slot]!, {
        id: bookingId(e.slot, i),
        leave_type_id: b.annual ? ANNUAL.id : SICK.id,
        start_date: addDays(YEAR_START, b.start),
        end_date: addDays(YEAR_START, b.start + b.length),
        status: b.status,
      }),
    ),
  );
  const closures: ClosureDayInput[] = data.closures.map((c, i) => ({
    id: `00000000-0000-4000-a000-0000000000${String(i).padStart(2, "0")}`,
    date: addDays(YEAR_START, c.day),
    name: `${marker} closure`,
    applies_to: c.department === null ? "all" : "department",
    department: c.department,
    location: null,
    deducts_from_leave: true,
  }));
  const publicHolidays = data.publicHolidays
    ? [
        {
          calendar: data.publicHolidays.calendar,
          year: 2026,
          rows: data.publicHolidays.days.map((d) => ({ date: addDays(YEAR_START, d), name: `${marker} public` })),
        },
      ]
    : [];
  // Same leave-type ids in every organisation, names of their own.
  const leaveTypes = [
    { ...ANNUAL, name: `${marker} annual` },
    { ...SICK, name: `${marker} sick` },
  ];
  await seed(world, org.organisationId, { employees, leaveTypes, bookings, closures, publicHolidays });
  return { id: org.organisationId, marker, get: org.get, employees, bookings, seededAt: new Date(world.clock.now()).toISOString() };
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

async function listAll<T>(get: Get, path: string): Promise<T[]> {
  return (await walkPages<T>(get, path)).flatMap((p) => p.data);
}

/** Every employees answer: the asker's records only, exactly those that match. */
async function checkEmployees(x: Seeded, others: Seeded[], updatedSince: string[]): Promise<void> {
  for (const status of [undefined, ...EMPLOYEE_STATUSES]) {
    for (const since of [undefined, ...updatedSince]) {
      const query = new URLSearchParams({ limit: "2", ...(status ? { status } : {}), ...(since ? { updated_since: since } : {}) });
      const data = await listAll<EmployeeJson>(x.get, `/v1/employees?${query}`);
      for (const e of data) expect(e.first_name).toBe(x.marker);
      const matching = since !== undefined && since > x.seededAt ? [] : x.employees.filter((e) => !status || e.status === status);
      expect(sorted(data.map((e) => e.id))).toEqual(sorted(matching.map((e) => e.id)));
    }
  }
  for (const id of EMPLOYEE_IDS) {
    const res = await x.get(`/v1/employees/${id}`);
    const own = x.employees.some((e) => e.id === id);
    expect({ id, status: res.status }).toEqual({ id, status: own ? 200 : 404 });
    if (own) expect(((await res.json()) as { data: EmployeeJson }).data.first_name).toBe(x.marker);
  }
  // A cursor is bound to its organisation: another one's cursor is refused, never followed.
  const first = (await (await x.get("/v1/employees?limit=1")).json()) as { next_cursor: string | null };
  for (const other of others) {
    if (first.next_cursor !== null) expect((await other.get(`/v1/employees?limit=1&cursor=${first.next_cursor}`)).status).toBe(400);
  }
}

const overlaps = (b: LeaveBookingInput, from: string, to: string) => b.start_date <= to && b.end_date >= from;

async function checkLeave(x: Seeded, others: Seeded[]): Promise<void> {
  const employeeFilters = [undefined, ...new Set([...x.employees, ...others.flatMap((o) => o.employees)].map((e) => e.id))];
  for (const [from, to] of [
    ["2026-01-01", "2026-12-31"],
    ["2025-11-01", "2026-02-28"],
    ["2026-06-01", "2026-06-30"],
  ] as const) {
    for (const status of [undefined, ...LEAVE_STATUSES]) {
      for (const employeeId of employeeFilters) {
        const query = new URLSearchParams({ from, to, limit: "2", ...(status ? { status } : {}), ...(employeeId ? { employee_id: employeeId } : {}) });
        const data = await listAll<BookingJson>(x.get, `/v1/leave-requests?${query}`);
        for (const b of data) expect(b.leave_type.name).toBe(`${x.marker} annual`);
        const expected = x.bookings.filter(
          (b) => b.leave_type_id === ANNUAL.id && overlaps(b, from, to) && (!status || b.status === status) && (!employeeId || b.employee_id === employeeId),
        );
        expect(sorted(data.map((b) => `${b.employee_id}/${b.id}`))).toEqual(sorted(expected.map((b) => `${b.employee_id}/${b.id}`)));
      }
    }
  }
}

async function checkHolidays(x: Seeded): Promise<void> {
  for (const calendar of [undefined, ...CALENDARS]) {
    for (const type of [undefined, "public", "company"]) {
      const query = new URLSearchParams({ from: "2026-01-01", to: "2026-12-31", ...(calendar ? { calendar } : {}), ...(type ? { type } : {}) });
      const res = await x.get(`/v1/holidays?${query}`);
      expect(res.status).toBe(200);
      for (const h of ((await res.json()) as { data: HolidayJson[] }).data) {
        if (h.type === "company") expect(h.name).toBe(`${x.marker} closure`);
        // Shipped public holidays carry no marker; an imported one must be the asker's own.
        else if (h.name.startsWith("org")) expect(h.name).toBe(`${x.marker} public`);
      }
    }
  }
}

test(`every answer to an organisation holds only its own records, on every endpoint and filter (${RUNS} random data sets)`, async () => {
  const property = fc.asyncProperty(fc.tuple(organisationArb, organisationArb, organisationArb), async (data) => {
    const world = await createWorld();
    try {
      // Each organisation written 15 minutes after the last, so updated_since tells them apart
      // while every token (3600 s) is still live when the checks run.
      const orgs: Seeded[] = [];
      for (const [i, d] of data.entries()) {
        orgs.push(await seedOrganisation(world, i, d));
        world.clock.advance(15 * 60_000);
      }
      const stamps = orgs.map((o) => o.seededAt);
      for (const x of orgs) {
        const others = orgs.filter((o) => o !== x);
        await checkEmployees(x, others, stamps);
        await checkLeave(x, others);
        await checkHolidays(x);
      }
    } finally {
      await world.store.close();
    }
  });
  await fc.assert(property, { seed: SEED, numRuns: RUNS });
}, 300_000);
