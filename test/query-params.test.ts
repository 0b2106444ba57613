/**
 * Query parameters of every data endpoint (docs/api.md, "Query parameters" and "Paging,
 * ordering and cursors"): unknown and repeated names, limit, updated_since and date-range
 * syntax, and cursors that were not made for the request they come with. Every failure is
 * 400 invalid_request naming the parameter.
 */
import { describe, expect, test } from "bun:test";
import { authorisedOrganisation, booking, employee, seed } from "./support.ts";
import { ONE_SECOND, expectError, flipChar, freshWorld, ok, type Page } from "./data-fixtures.ts";

const EMPLOYEE_ID = "6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a";
const LEAVE = "/v1/leave-requests?from=2026-03-01&to=2026-03-31";
const HOLIDAYS = "/v1/holidays?from=2026-03-01&to=2026-03-31";
/** One valid request per data endpoint, each already carrying a query string or none. */
const ENDPOINTS = ["/v1/employees", `/v1/employees/${EMPLOYEE_ID}`, LEAVE, HOLIDAYS];
const join = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

describe("unknown and repeated parameters", () => {
  for (const path of ENDPOINTS) {
    test(`${path.split("?")[0]} refuses an unknown parameter and names it`, async () => {
      const { get } = await freshWorld();
      await expectError(await get(join(path, "update_since=2026-01-01T00:00:00Z")), 400, "invalid_request", "update_since");
      await expectError(await get(join(path, "access=1")), 400, "invalid_request", "access");
    });
  }

  const repeats: [string, string, string][] = [
    ["/v1/employees", "limit=1&limit=2", "limit"],
    ["/v1/employees", "status=active&status=active", "status"],
    [LEAVE, "from=2026-03-01", "from"],
    [LEAVE, `employee_id=${EMPLOYEE_ID}&employee_id=${EMPLOYEE_ID}`, "employee_id"],
    [HOLIDAYS, "to=2026-03-31", "to"],
    [HOLIDAYS, "type=public&type=public", "type"],
  ];
  for (const [path, query, param] of repeats) {
    test(`${path.split("?")[0]} refuses ${param} given twice`, async () => {
      const { get } = await freshWorld();
      await expectError(await get(join(path, query)), 400, "invalid_request", param);
    });
  }
});

describe("limit", () => {
  for (const path of ["/v1/employees", LEAVE]) {
    test(`${path.split("?")[0]}: whole numbers 1 to 500 only`, async () => {
      const { get } = await freshWorld();
      for (const bad of ["0", "501", "1.5", "-1", "abc", "", "1e2", "%2B5", "0x10", "1000000"]) {
        await expectError(await get(join(path, `limit=${bad}`)), 400, "invalid_request", "limit");
      }
      for (const good of ["1", "500", "007"]) expect((await get(join(path, `limit=${good}`))).status).toBe(200);
    });
  }
});

describe("updated_since syntax", () => {
  for (const path of ["/v1/employees", LEAVE]) {
    test(`${path.split("?")[0]}: an RFC 3339 date-time with an offset`, async () => {
      const { get } = await freshWorld();
      const bad = [
        "2026-03-01T09:30:00", // no offset
        "2026-03-01",
        "2026-03-01T09:30Z",
        "2026-03-01T25:00:00Z",
        "2026-02-30T09:30:00Z",
        "2026-03-01T09:30:00%2B0200",
        "yesterday",
        "",
      ];
      for (const since of bad) await expectError(await get(join(path, `updated_since=${since}`)), 400, "invalid_request", "updated_since");
      for (const since of ["2026-03-01T09:30:00Z", "2026-03-01t09:30:00.123456z", "2026-03-01T09:30:00-00:30"]) {
        expect((await get(join(path, `updated_since=${since}`))).status).toBe(200);
      }
    });
  }
});

describe("from and to", () => {
  for (const base of ["/v1/leave-requests", "/v1/holidays"]) {
    test(`${base}: both required, strict real dates, from ≤ to, at most 400 days apart`, async () => {
      const { get } = await freshWorld();
      const fails: [string, string][] = [
        ["", "from"],
        ["to=2026-03-31", "from"],
        ["from=2026-03-01", "to"],
        ["from=2026-02-30&to=2026-03-31", "from"],
        ["from=2026-2-1&to=2026-03-31", "from"],
        ["from=20260201&to=2026-03-31", "from"],
        ["from=2026-03-01&to=2026-13-01", "to"],
        ["from=2026-03-01&to=2026-03-01T00:00:00Z", "to"],
        ["from=2026-03-02&to=2026-03-01", "to"],
        ["from=2026-01-01&to=2027-02-06", "to"], // 401 days
      ];
      for (const [query, param] of fails) await expectError(await get(`${base}?${query}`), 400, "invalid_request", param);
      const missing = (await (await get(`${base}?to=2026-03-31`)).json()) as { error_description: string };
      expect(missing.error_description).toContain("'from'");
      for (const query of ["from=2026-01-01&to=2027-02-05", "from=2026-03-01&to=2026-03-01", "from=2028-02-29&to=2028-02-29"]) {
        expect((await get(`${base}?${query}`)).status).toBe(200);
      }
    });
  }
});

describe("cursors", () => {
  /** Three employees with bookings, and the next_cursor of the first page of each list. */
  async function withCursors() {
    const ctx = await freshWorld();
    const people = [employee(), employee(), employee()];
    for (const person of people) {
      await seed(ctx.world, ctx.organisationId, { employees: [person], bookings: [booking(person.id)] });
      ctx.world.clock.advance(ONE_SECOND);
    }
    const employees = (await ok<Page<unknown>>(await ctx.get("/v1/employees?limit=1"))).next_cursor!;
    const leave = (await ok<Page<unknown>>(await ctx.get(`${LEAVE}&limit=1`))).next_cursor!;
    expect(employees).toMatch(/^[A-Za-z0-9_-]+$/);
    return { ...ctx, people, employees, leave };
  }

  test("a cursor works only unchanged", async () => {
    const { get, employees, leave } = await withCursors();
    expect((await get(`/v1/employees?limit=1&cursor=${employees}`)).status).toBe(200);
    const broken = [
      flipChar(employees, 3),
      flipChar(employees, 20),
      flipChar(employees, employees.length - 2),
      employees.slice(0, -4),
      employees.slice(4),
      `${employees}AAAA`,
      "garbage",
      "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "not%20a%20cursor",
      "%2B%2F%3D",
      "",
      "A".repeat(2000),
    ];
    for (const cursor of broken) {
      await expectError(await get(`/v1/employees?limit=1&cursor=${cursor}`), 400, "invalid_request", "cursor");
      await expectError(await get(`${LEAVE}&limit=1&cursor=${cursor}`), 400, "invalid_request", "cursor");
    }
    await expectError(await get(`${LEAVE}&cursor=${flipChar(leave, 10)}`), 400, "invalid_request", "cursor");
  });

  test("a cursor from another endpoint is refused", async () => {
    const { get, employees, leave } = await withCursors();
    await expectError(await get(`${LEAVE}&cursor=${employees}`), 400, "invalid_request", "cursor");
    await expectError(await get(`/v1/employees?cursor=${leave}`), 400, "invalid_request", "cursor");
  });

  test("an employees cursor is bound to status and updated_since", async () => {
    const { get, employees } = await withCursors();
    for (const filter of ["status=active", "updated_since=2026-03-01T00:00:00Z"]) {
      await expectError(await get(`/v1/employees?${filter}&cursor=${employees}`), 400, "invalid_request", "cursor");
    }
    const filtered = (await ok<Page<unknown>>(await get("/v1/employees?status=active&limit=1"))).next_cursor!;
    expect((await get(`/v1/employees?status=active&cursor=${filtered}`)).status).toBe(200);
    await expectError(await get(`/v1/employees?cursor=${filtered}`), 400, "invalid_request", "cursor");
    await expectError(await get(`/v1/employees?status=terminated&cursor=${filtered}`), 400, "invalid_request", "cursor");
  });

  test("a leave cursor is bound to from, to, status, employee_id and updated_since", async () => {
    const { get, leave, people } = await withCursors();
    const others = [
      "/v1/leave-requests?from=2026-03-02&to=2026-03-31",
      "/v1/leave-requests?from=2026-03-01&to=2026-04-30",
      `${LEAVE}&status=approved`,
      `${LEAVE}&employee_id=${people[0]!.id}`,
      `${LEAVE}&updated_since=2026-03-01T00:00:00Z`,
    ];
    for (const path of others) await expectError(await get(`${path}&cursor=${leave}`), 400, "invalid_request", "cursor");
    expect((await get(`${LEAVE}&limit=7&cursor=${leave}`)).status).toBe(200);
  });

  test("a cursor from another organisation is refused", async () => {
    const { world, employees, leave } = await withCursors();
    const other = await authorisedOrganisation(world);
    const person = employee();
    await seed(world, other.organisationId, { employees: [person, employee()], bookings: [booking(person.id)] });
    await expectError(await other.get(`/v1/employees?limit=1&cursor=${employees}`), 400, "invalid_request", "cursor");
    await expectError(await other.get(`${LEAVE}&limit=1&cursor=${leave}`), 400, "invalid_request", "cursor");
  });
});

describe("the edges of the calendar", () => {
  test("year 0000 is not a date; 0001-01-01 and 9999-12-31 are, on every store", async () => {
    const { get, organisationId, world } = await freshWorld();
    await seed(world, organisationId, { employees: [employee({ start_date: null })] });
    await expectError(await get("/v1/leave-requests?from=0000-12-31&to=0001-01-01"), 400, "invalid_request", "from");
    expect((await get("/v1/leave-requests?from=0001-01-01&to=0001-12-31")).status).toBe(200);
    expect((await get("/v1/leave-requests?from=9999-01-01&to=9999-12-31")).status).toBe(200);
    expect((await get("/v1/holidays?from=0001-01-01&to=0001-12-31")).status).toBe(200);
  });
});
