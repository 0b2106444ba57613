/**
 * The demo organisation: the generator is deterministic, seeding goes through the real
 * importer, and what the API then serves covers every calendar, status and holiday kind
 * a newcomer should see. One seeded store is shared, read-only, by the API tests.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { countLeaveDays } from "../lib/leave-days.ts";
import { shippedPublicHolidays } from "../lib/shipped-holidays.ts";
import { LEAVE_STATUSES } from "../lib/records.ts";
import { createHandler } from "../server/handler.ts";
import { DEFAULT_DEMO_SEED, demoEmployees, demoHolidays, demoLeave } from "../scripts/demo/demo-data.ts";
import { findDemoOrganisation, seedDemo, type SeededDemo } from "../scripts/demo/seed-demo.ts";
import { ok, walkPages, type BookingJson, type EmployeeJson, type Get, type HolidayJson } from "./data-fixtures.ts";
import { BASE, basicHeader } from "./support.ts";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";

const TODAY = new Date("2026-03-01T09:30:00.000Z");
const NAMED_CALENDARS = ["GB-ENG", "GB-SCT", "US-CA", "DE-BY", "FR"];

let store: SqlAdminStore;
let demo: SeededDemo;
let seedMs: number;
let tokenStatus: number;
let get: Get;

beforeAll(async () => {
  store = openSqliteStore({ filename: ":memory:" });
  await store.migrate();
  const started = performance.now();
  demo = await seedDemo(store, TODAY);
  seedMs = performance.now() - started;
  const handler = createHandler({ store, now: () => TODAY.getTime() + 60_000 });
  const call = (path: string, init: RequestInit = {}) => handler(new Request(BASE + path, init), { remoteAddress: "127.0.0.1" });
  const res = await call("/v1/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(demo.client_id, demo.client_secret) },
    body: "grant_type=client_credentials",
  });
  tokenStatus = res.status;
  const { access_token } = (await res.json()) as { access_token: string };
  get = (path, headers = {}) => call(path, { headers: { Authorization: `Bearer ${access_token}`, ...headers } });
}, 30_000);

async function all<T>(path: string): Promise<T[]> {
  return (await walkPages<T>(get, path)).flatMap((p) => p.data);
}

describe("the demo generator", () => {
  test("gives identical records for the same seed and day, and other records for another seed", () => {
    expect(demoEmployees(TODAY)).toEqual(demoEmployees(new Date(TODAY.getTime())));
    expect(demoLeave(TODAY)).toEqual(demoLeave(new Date(TODAY.getTime())));
    expect(demoHolidays(TODAY)).toEqual(demoHolidays(new Date(TODAY.getTime())));
    expect(demoEmployees(TODAY, DEFAULT_DEMO_SEED + 1)).not.toEqual(demoEmployees(TODAY));
    expect(demoLeave(TODAY, DEFAULT_DEMO_SEED + 1)).not.toEqual(demoLeave(TODAY));
  });

  test("leaves `days` for the importer to compute and includes leave of other categories", () => {
    const bookings = demoLeave(TODAY);
    expect(bookings.every((b) => !("days" in b))).toBe(true);
    const categories = new Set(bookings.map((b) => b.leave_type.category));
    expect([...categories].sort()).toEqual(["annual", "parental", "sick", "unpaid"]);
  });

  test("keeps every timestamp in order and in the past", () => {
    const now = TODAY.toISOString();
    for (const b of demoLeave(TODAY)) {
      expect(b.requested_at < now).toBe(true);
      if (b.leave_type.category !== "sick") expect(b.requested_at < b.start_date).toBe(true);
      if (b.reviewed_at !== null) expect(b.requested_at < b.reviewed_at && b.reviewed_at < now).toBe(true);
      if (b.cancelled_at !== null) expect((b.reviewed_at ?? b.requested_at) < b.cancelled_at && b.cancelled_at < now).toBe(true);
      if (["approved", "rejected", "cancellation_requested"].includes(b.status)) expect(b.reviewed_at).not.toBeNull();
      if (b.status === "pending") expect(b.reviewed_at).toBeNull();
      expect(b.cancelled_at !== null).toBe(b.status === "cancelled");
    }
  });
});

describe("the seeded demo organisation", () => {
  test("seeds in well under ten seconds, with API access on and credentials for every scope", async () => {
    expect(seedMs).toBeLessThan(10_000);
    expect(demo.organisation).toMatchObject({ name: "Demo Ltd", api_enabled: true });
    expect(demo.scopes).toEqual(["employees:read", "holidays:read", "leave:read"]);
    expect(tokenStatus).toBe(200);
    expect(await findDemoOrganisation(store)).toEqual(demo.organisation);
  });

  test("serves at least 200 employees over the five named calendars, active and terminated", async () => {
    const employees = await all<EmployeeJson>("/v1/employees?limit=500");
    expect(employees.length).toBeGreaterThanOrEqual(200);
    const calendars = new Set(employees.map((e) => e.holiday_calendar));
    for (const c of NAMED_CALENDARS) expect(calendars.has(c)).toBe(true);
    expect(new Set(employees.map((e) => e.status))).toEqual(new Set(["active", "terminated"]));
    expect(new Set(employees.map((e) => e.department)).size).toBeGreaterThanOrEqual(6);
    for (const e of employees.filter((x) => x.status === "terminated")) expect(e.leaving_date! < "2026-03-01").toBe(true);
    expect(employees.some((e) => e.start_date! > "2026-03-01")).toBe(true);
  });

  test("serves annual leave only, in every status, with half days, days computed without days off", async () => {
    const employees = new Map((await all<EmployeeJson>("/v1/employees?limit=500")).map((e) => [e.id, e]));
    const byId = new Map<string, BookingJson>();
    for (const year of [2025, 2026]) {
      for (const b of await all<BookingJson>(`/v1/leave-requests?from=${year}-01-01&to=${year}-12-31&limit=500`)) byId.set(b.id, b);
    }
    const bookings = [...byId.values()];
    expect(bookings.length).toBe(demoLeave(TODAY).filter((b) => b.leave_type.category === "annual").length);
    expect(bookings.every((b) => b.leave_type.category === "annual")).toBe(true);
    expect(new Set(bookings.map((b) => b.status))).toEqual(new Set(LEAVE_STATUSES));
    expect(bookings.some((b) => b.start_half_day && b.start_half_period !== null)).toBe(true);
    expect(bookings.some((b) => b.end_half_day && b.end_half_period === "am")).toBe(true);
    expect(bookings.some((b) => b.start_date < "2025-07-01")).toBe(true);
    expect(bookings.some((b) => b.start_date > "2026-06-30")).toBe(true);
    // The days check below covers bookings over closures, not only plain weeks.
    const spans = (b: BookingJson, date: string) => b.start_date <= date && b.end_date >= date;
    expect(bookings.some((b) => spans(b, "2025-12-24"))).toBe(true);
    expect(bookings.some((b) => spans(b, "2025-06-20") && employees.get(b.employee_id)!.department === "Engineering")).toBe(true);
    const closures = demoHolidays(TODAY);
    for (const b of bookings) {
      const person = employees.get(b.employee_id)!;
      const off = new Set<string>();
      for (const year of [2025, 2026]) for (const h of shippedPublicHolidays(person.holiday_calendar!, year)) off.add(h.date);
      for (const c of closures) if (c.applies_to === "all" || c.department === person.department) off.add(c.date);
      expect({ id: b.id, days: b.days }).toEqual({ id: b.id, days: countLeaveDays(b, off) });
      expect(b.days).toBeGreaterThan(0);
    }
  });

  test("lists the Christmas closure for everyone and public holidays of several calendars in December", async () => {
    const { data } = await ok<{ data: HolidayJson[] }>(await get("/v1/holidays?from=2025-12-01&to=2025-12-31"));
    const christmas = data.filter((h) => h.type === "company" && h.name === "Christmas closure");
    expect(christmas.map((h) => h.date)).toEqual(["2025-12-24", "2025-12-26", "2025-12-29", "2025-12-30", "2025-12-31"]);
    expect(christmas.every((h) => h.applies_to === "all" && h.deducts_from_leave && h.department === null)).toBe(true);
    const publicCalendars = new Set(data.filter((h) => h.type === "public").map((h) => h.calendar));
    for (const c of NAMED_CALENDARS) expect(publicCalendars.has(c)).toBe(true);
  });

  test("lists the Engineering offsite as a closure for one department", async () => {
    const { data } = await ok<{ data: HolidayJson[] }>(await get("/v1/holidays?from=2026-06-01&to=2026-06-30&type=company"));
    expect(data).toEqual([
      {
        date: "2026-06-19",
        name: "Engineering offsite",
        type: "company",
        calendar: null,
        applies_to: "department",
        deducts_from_leave: false,
        department: "Engineering",
        location: null,
      },
    ]);
  });
});

describe("leaveapi demo", () => {
  test("seeds a new demo organisation on each run and prints its credentials once", async () => {
    const scratch = scratchDir();
    try {
      const db = ["--db", join(scratch.dir, "demo.sqlite")];
      const first = await runJson<Record<string, unknown>>([...db, "demo"]);
      expect(Object.keys(first).sort()).toEqual(["client_id", "client_secret", "organisation_id", "organisation_name", "scopes"]);
      expect(first).toMatchObject({ organisation_name: "Demo Ltd", scopes: ["employees:read", "holidays:read", "leave:read"] });
      const human = await runCli([...db, "demo"]);
      expect(human.code).toBe(0);
      const clientId = /client_id:\s+(svcc_\w+)/.exec(human.stdout)?.[1];
      const secret = /client_secret:\s+(svcs_[\w-]+)/.exec(human.stdout)?.[1];
      expect(clientId).toBeDefined();
      expect(human.stdout).toContain(`curl -s -u '${clientId}:${secret}' -d grant_type=client_credentials http://127.0.0.1:8080/v1/oauth/token`);
      expect(human.stdout).toContain("shown only now");
      const orgs = await runJson<{ id: string; name: string; api_enabled: boolean }[]>([...db, "org", "list"]);
      expect(orgs.map((o) => [o.name, o.api_enabled])).toEqual([
        ["Demo Ltd", true],
        ["Demo Ltd", true],
      ]);
      expect(orgs.map((o) => o.id)).toContain(first.organisation_id as string);
      const extra = await runCli([...db, "demo", "--seed", "1"]);
      expect(extra.code).toBe(2);
    } finally {
      scratch.dispose();
    }
  }, 30_000);
});
