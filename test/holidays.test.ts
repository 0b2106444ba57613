/**
 * GET /v1/holidays: observed calendars, shipped and imported public holidays, company
 * closures, the `calendar` and `type` filters and the order of entries (docs/api.md,
 * "Holidays").
 */
import { describe, expect, test } from "bun:test";
import { authorisedOrganisation, employee, seed } from "./support.ts";
import { closure, expectError, freshWorld, ok, softDelete, type HolidayJson } from "./data-fixtures.ts";

const YEAR_2026 = "/v1/holidays?from=2026-01-01&to=2026-12-31";
const CHRISTMAS_WEEK = "/v1/holidays?from=2026-12-21&to=2026-12-31";

const holidays = async (get: (p: string) => Promise<Response>, path: string) => (await ok<{ data: HolidayJson[] }>(await get(path))).data;
const calendarsIn = (entries: HolidayJson[]) => [...new Set(entries.filter((e) => e.type === "public").map((e) => e.calendar))];
const brief = (entries: HolidayJson[]) => entries.map((e) => `${e.date} ${e.type} ${e.calendar ?? "-"} ${e.name}`);

describe("public holidays of observed calendars", () => {
  test("shipped entries have the public shape, substitute days included", async () => {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, { employees: [employee({ holiday_calendar: "GB-ENG" })] });
    const body = await ok<{ data: HolidayJson[] }>(await ctx.get(CHRISTMAS_WEEK));
    expect(Object.keys(body)).toEqual(["data"]);
    expect(body.data).toEqual([
      {
        date: "2026-12-25",
        name: "Christmas Day",
        type: "public",
        calendar: "GB-ENG",
        applies_to: "calendar",
        deducts_from_leave: false,
        department: null,
        location: null,
      },
      {
        date: "2026-12-26",
        name: "Boxing Day",
        type: "public",
        calendar: "GB-ENG",
        applies_to: "calendar",
        deducts_from_leave: false,
        department: null,
        location: null,
      },
      {
        date: "2026-12-28",
        name: "Boxing Day (substitute day)",
        type: "public",
        calendar: "GB-ENG",
        applies_to: "calendar",
        deducts_from_leave: false,
        department: null,
        location: null,
      },
    ]);
  });

  test("regional calendars come from the dataset too", async () => {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, { employees: [employee({ holiday_calendar: "DE-BY" })] });
    const data = await holidays(ctx.get, "/v1/holidays?from=2026-01-01&to=2026-01-31");
    expect(brief(data)).toEqual(["2026-01-01 public DE-BY Neujahr", "2026-01-06 public DE-BY Heilige Drei Könige"]);
  });

  test("observed = calendars of non-deleted employees whose employment overlaps the range", async () => {
    const ctx = await freshWorld();
    const other = await authorisedOrganisation(ctx.world);
    const deleted = employee({ holiday_calendar: "US" });
    await seed(ctx.world, ctx.organisationId, {
      employees: [
        employee({ holiday_calendar: "GB-ENG", start_date: null }),
        employee({ holiday_calendar: "GB-ENG" }),
        employee({ holiday_calendar: "DE-BY", leaving_date: "2025-12-31" }), // left before from
        employee({ holiday_calendar: "FR", start_date: "2027-01-01" }), // starts after to
        employee({ holiday_calendar: "IE", start_date: "2026-12-31", leaving_date: null }), // starts on to
        employee({ holiday_calendar: "NL", leaving_date: "2026-01-01" }), // leaves on from
        employee({ holiday_calendar: null }),
        deleted,
      ],
    });
    await seed(ctx.world, other.organisationId, { employees: [employee({ holiday_calendar: "ES" })] });
    await softDelete(ctx.world, ctx.organisationId, { employees: [deleted.id] });
    const data = await holidays(ctx.get, YEAR_2026);
    expect(calendarsIn(data).sort()).toEqual(["GB-ENG", "IE", "NL"]);
    expect(data.filter((e) => e.calendar === "GB-ENG")).toHaveLength(9);
  });
});

describe("company closures", () => {
  test("have the company shape and applies_to all, department or location", async () => {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, {
      closures: [
        closure({ date: "2026-12-24", name: "Christmas Eve", applies_to: "all", deducts_from_leave: true }),
        closure({ date: "2026-12-29", name: "Stocktake", applies_to: "department", department: "Warehouse", deducts_from_leave: false }),
        closure({ date: "2026-12-30", name: "Office move", applies_to: "location", location: "Leeds", deducts_from_leave: true }),
        closure({ date: "2026-11-30", name: "Outside the range" }),
      ],
    });
    // Nobody observes a calendar, so only closures come back.
    expect(await holidays(ctx.get, CHRISTMAS_WEEK)).toEqual([
      {
        date: "2026-12-24",
        name: "Christmas Eve",
        type: "company",
        calendar: null,
        applies_to: "all",
        deducts_from_leave: true,
        department: null,
        location: null,
      },
      {
        date: "2026-12-29",
        name: "Stocktake",
        type: "company",
        calendar: null,
        applies_to: "department",
        deducts_from_leave: false,
        department: "Warehouse",
        location: null,
      },
      {
        date: "2026-12-30",
        name: "Office move",
        type: "company",
        calendar: null,
        applies_to: "location",
        deducts_from_leave: true,
        department: null,
        location: "Leeds",
      },
    ]);
  });

  test("another organisation's closures are never shown", async () => {
    const ctx = await freshWorld();
    const other = await authorisedOrganisation(ctx.world);
    await seed(ctx.world, other.organisationId, { closures: [closure()] });
    expect(await holidays(ctx.get, CHRISTMAS_WEEK)).toEqual([]);
    expect(await holidays(other.get, CHRISTMAS_WEEK)).toHaveLength(1);
  });
});

describe("order and filters", () => {
  async function mixed() {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, {
      employees: [employee({ holiday_calendar: "GB-SCT" }), employee({ holiday_calendar: "GB-ENG" })],
      closures: [
        closure({ date: "2026-12-25", name: "Zoo trip" }),
        closure({ date: "2026-12-25", name: "Annual party", applies_to: "department", department: "Sales" }),
        closure({ date: "2026-12-24", name: "Christmas Eve" }),
      ],
    });
    return ctx;
  }

  test("by date, then public before company, then calendar, then name", async () => {
    const ctx = await mixed();
    const data = await holidays(ctx.get, "/v1/holidays?from=2026-12-24&to=2026-12-26");
    expect(brief(data)).toEqual([
      "2026-12-24 company - Christmas Eve",
      "2026-12-25 public GB-ENG Christmas Day",
      "2026-12-25 public GB-SCT Christmas Day",
      "2026-12-25 company - Annual party",
      "2026-12-25 company - Zoo trip",
      "2026-12-26 public GB-ENG Boxing Day",
      "2026-12-26 public GB-SCT Boxing Day",
    ]);
  });

  test("type=public and type=company keep one kind", async () => {
    const ctx = await mixed();
    const pub = await holidays(ctx.get, `${CHRISTMAS_WEEK}&type=public`);
    const company = await holidays(ctx.get, `${CHRISTMAS_WEEK}&type=company`);
    expect(pub.length).toBeGreaterThan(0);
    expect(pub.every((e) => e.type === "public")).toBe(true);
    expect(brief(company)).toEqual(["2026-12-24 company - Christmas Eve", "2026-12-25 company - Annual party", "2026-12-25 company - Zoo trip"]);
    await expectError(await ctx.get(`${CHRISTMAS_WEEK}&type=closure`), 400, "invalid_request", "type");
  });

  test("calendar=X returns X's public holidays only, observed or not", async () => {
    const ctx = await mixed();
    const fr = await holidays(ctx.get, `${CHRISTMAS_WEEK}&calendar=FR`);
    expect(brief(fr)).toEqual(["2026-12-25 public FR Noël"]);
    const eng = await holidays(ctx.get, `${CHRISTMAS_WEEK}&calendar=GB-ENG`);
    expect(calendarsIn(eng)).toEqual(["GB-ENG"]);
    expect(eng.every((e) => e.type === "public")).toBe(true);
    expect(await holidays(ctx.get, `${CHRISTMAS_WEEK}&calendar=GB-ENG&type=public`)).toEqual(eng);
    expect(await holidays(ctx.get, `${CHRISTMAS_WEEK}&calendar=GB-ENG&type=company`)).toEqual([]);
  });

  test("a calendar key with no data is an empty list; a malformed key a 400", async () => {
    const ctx = await mixed();
    for (const key of ["ZZ", "GB-XYZ"]) expect(await holidays(ctx.get, `${CHRISTMAS_WEEK}&calendar=${key}`)).toEqual([]);
    for (const bad of ["gb", "GBR", "GB-", "GB-ENGL", "GB_ENG", "gb-eng", ""]) {
      await expectError(await ctx.get(`${CHRISTMAS_WEEK}&calendar=${bad}`), 400, "invalid_request", "calendar");
    }
  });
});

describe("imported public holidays", () => {
  test("replace the shipped set for that calendar and year, for that organisation only", async () => {
    const ctx = await freshWorld();
    const other = await authorisedOrganisation(ctx.world);
    await seed(ctx.world, ctx.organisationId, {
      employees: [employee({ holiday_calendar: "GB-ENG" }), employee({ holiday_calendar: "GB-SCT" })],
      publicHolidays: [{ calendar: "GB-ENG", year: 2026, rows: [{ date: "2026-12-31", name: "Founders' Day" }] }],
    });
    await seed(ctx.world, other.organisationId, { employees: [employee({ holiday_calendar: "GB-ENG" })] });
    const range = "/v1/holidays?from=2026-12-24&to=2027-01-01";
    const mine = await holidays(ctx.get, range);
    expect(brief(mine.filter((e) => e.calendar === "GB-ENG"))).toEqual([
      "2026-12-31 public GB-ENG Founders' Day",
      "2027-01-01 public GB-ENG New Year's Day", // 2027 still shipped
    ]);
    expect(mine.filter((e) => e.calendar === "GB-SCT").map((e) => e.date)).toContain("2026-12-25");
    expect(brief(await holidays(ctx.get, `${range}&calendar=GB-ENG`))).toEqual(brief(mine.filter((e) => e.calendar === "GB-ENG")));
    const theirs = await holidays(other.get, range);
    expect(brief(theirs)).toEqual([
      "2026-12-25 public GB-ENG Christmas Day",
      "2026-12-26 public GB-ENG Boxing Day",
      "2026-12-28 public GB-ENG Boxing Day (substitute day)",
      "2027-01-01 public GB-ENG New Year's Day",
    ]);
  });
});

describe("the years the shipped dataset covers (1900-2199)", () => {
  test("the year-1 request that once never answered gets only imported and closure entries", async () => {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, {
      employees: [employee({ holiday_calendar: "CN", start_date: null })],
      closures: [closure({ date: "0001-06-01", name: "Founding" })],
      publicHolidays: [{ calendar: "KR", year: 1, rows: [{ date: "0001-03-01", name: "Imported" }] }],
    });
    for (const calendar of ["CN", "KR", "VN", "TW"]) {
      const data = await holidays(ctx.get, `/v1/holidays?from=0001-01-01&to=0001-12-31&calendar=${calendar}`);
      expect(brief(data)).toEqual(calendar === "KR" ? ["0001-03-01 public KR Imported"] : []);
    }
    expect(brief(await holidays(ctx.get, "/v1/holidays?from=0001-01-01&to=0001-12-31"))).toEqual(["0001-06-01 company - Founding"]);
  });

  test("a range across 1899/1900 and 2199/2200 gets shipped entries for the covered years only", async () => {
    const ctx = await freshWorld();
    const early = await holidays(ctx.get, "/v1/holidays?from=1899-12-01&to=1900-01-31&calendar=GB-ENG");
    expect(early.length).toBeGreaterThan(0);
    expect(early.every((e) => e.date >= "1900-01-01")).toBe(true);
    const late = await holidays(ctx.get, "/v1/holidays?from=2199-12-01&to=2200-01-31&calendar=GB-ENG");
    expect(late.map((e) => e.date)).toContain("2199-12-25");
    expect(late.every((e) => e.date <= "2199-12-31")).toBe(true);
  });
});
