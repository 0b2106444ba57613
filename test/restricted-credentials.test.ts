/**
 * Restricted credentials (docs/api.md, "Restricted credentials"): a credential limited to
 * some departments and calendars reads only their employees, those employees' leave and
 * the holidays that apply to them; one limited to some fields reads the rest as null. A
 * restriction's change answers older syncs with 410 and refuses older cursors. Runs on the
 * test store (SQLite; Postgres through test/postgres-suites.ts).
 */
import { describe, expect, test } from "bun:test";
import { mintClient } from "../lib/credentials.ts";
import { apiKeys, EMPLOYEE_FIELDS } from "../lib/record-fields.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { clearedRestriction, parseRestriction, type CredentialRestriction } from "../lib/restriction.ts";
import { aClosureDayInput } from "../testing/record-builders.ts";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { createHandler } from "../server/handler.ts";
import { BASE, booking, createOrganisation, createWorld, employee, fakeClock, requestToken, seed, type TestWorld } from "./support.ts";
import { conformToDocument } from "./openapi-conformance.ts";
import { expectError, ok, ONE_SECOND, type BookingJson, type EmployeeJson, type HolidayJson, type Page } from "./data-fixtures.ts";

/** A client of the organisation with `restriction`, and a GET with its token. */
async function restrictedClient(world: TestWorld, organisationId: string, restriction?: CredentialRestriction) {
  const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], "restricted", world.clock.now());
  await world.store.createClient(restriction ? { ...client, restriction } : client);
  const { body } = await requestToken(world, { organisationId, clientId: client.client_id, clientSecret: secret });
  const token = body.access_token as string;
  return { clientId: client.client_id, get: (path: string) => world.call(path, { headers: { Authorization: `Bearer ${token}` } }) };
}

/** An organisation of four: two in Sales (GB-ENG and DE), one in Engineering (GB-SCT), one in Sales with no calendar. */
async function organisation(given?: TestWorld) {
  const world = given ?? (await createWorld());
  const organisationId = await createOrganisation(world);
  const sales = employee({ first_name: "Sally", department: "Sales", holiday_calendar: "GB-ENG" });
  const salesDe = employee({ first_name: "Dieter", department: "Sales", holiday_calendar: "DE" });
  const eng = employee({ first_name: "Enid", department: "Engineering", holiday_calendar: "GB-SCT" });
  const noCalendar = employee({ first_name: "Nora", department: "Sales", holiday_calendar: null });
  await seed(world, organisationId, {
    employees: [sales, salesDe, eng, noCalendar],
    bookings: [booking(sales.id, { start_date: "2026-04-06", end_date: "2026-04-10" }), booking(eng.id, { start_date: "2026-04-07", end_date: "2026-04-08" })],
    closures: [
      aClosureDayInput({ date: "2026-12-24", name: "Everyone", applies_to: "all" }),
      aClosureDayInput({ date: "2026-12-23", name: "Sales party", applies_to: "department", department: "Sales" }),
      aClosureDayInput({ date: "2026-12-22", name: "Eng offsite", applies_to: "department", department: "Engineering" }),
      aClosureDayInput({ date: "2026-12-21", name: "Leeds office", applies_to: "location", location: "Leeds" }),
    ],
  });
  world.clock.advance(ONE_SECOND);
  return { world, organisationId, sales, salesDe, eng, noCalendar };
}

const ids = (page: Page<{ id: string }>) => page.data.map((r) => r.id).sort();

describe("a credential restricted to departments and calendars", () => {
  test("reads only the employees it selects; the others are 404 and absent", async () => {
    const { world, organisationId, sales, salesDe, eng, noCalendar } = await organisation();
    const bySales = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
    expect(ids(await ok<Page<EmployeeJson>>(await bySales.get("/v1/employees")))).toEqual([sales.id, salesDe.id, noCalendar.id].sort());
    await expectError(await bySales.get(`/v1/employees/${eng.id}`), 404, "not_found");
    expect((await ok<{ data: EmployeeJson }>(await bySales.get(`/v1/employees/${sales.id}`))).data.first_name).toBe("Sally");
    // Both lists: department and calendar.
    const bySalesEng = await restrictedClient(
      world,
      organisationId,
      parseRestriction({ departments: "Sales,Engineering", calendars: "GB-ENG" }, world.clock.now()),
    );
    expect(ids(await ok<Page<EmployeeJson>>(await bySalesEng.get("/v1/employees")))).toEqual([sales.id]);
    await expectError(await bySalesEng.get(`/v1/employees/${noCalendar.id}`), 404, "not_found");
  });

  test("reads only its employees' leave, even when asked for another's by employee_id", async () => {
    const { world, organisationId, sales, eng } = await organisation();
    const bySales = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
    const page = await ok<Page<BookingJson>>(await bySales.get("/v1/leave-requests?from=2026-01-01&to=2026-12-31"));
    expect(page.data.map((b) => b.employee_id)).toEqual([sales.id]);
    const probe = await ok<Page<BookingJson>>(await bySales.get(`/v1/leave-requests?from=2026-01-01&to=2026-12-31&employee_id=${eng.id}`));
    expect(probe.data).toEqual([]);
  });

  test("reads the holidays of the calendars its employees observe and the closure days that apply to them", async () => {
    const { world, organisationId } = await organisation();
    const bySales = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
    const { data } = await ok<{ data: HolidayJson[] }>(await bySales.get("/v1/holidays?from=2026-01-01&to=2026-12-31"));
    expect([...new Set(data.filter((h) => h.type === "public").map((h) => h.calendar))].sort()).toEqual(["DE", "GB-ENG"]);
    expect(data.filter((h) => h.type === "company").map((h) => h.name)).toEqual(["Sales party", "Everyone"]);
    // A calendar none of its employees observes answers nothing, though the organisation observes it.
    expect((await ok<{ data: HolidayJson[] }>(await bySales.get("/v1/holidays?from=2026-01-01&to=2026-12-31&calendar=GB-SCT"))).data).toEqual([]);
    const byCalendar = await restrictedClient(world, organisationId, parseRestriction({ calendars: "GB-SCT" }, world.clock.now()));
    const scot = await ok<{ data: HolidayJson[] }>(await byCalendar.get("/v1/holidays?from=2026-01-01&to=2026-12-31"));
    expect(scot.data.filter((h) => h.type === "company").map((h) => h.name)).toEqual(["Eng offsite", "Everyone"]);
    expect(new Set(scot.data.filter((h) => h.type === "public").map((h) => h.calendar))).toEqual(new Set(["GB-SCT"]));
  });

  test("a sync sees an employee who entered the selection with their bookings, however old", async () => {
    const { world, organisationId, eng } = await organisation();
    const bySales = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
    world.clock.advance(ONE_SECOND);
    const since = new Date(world.clock.now()).toISOString();
    world.clock.advance(ONE_SECOND);
    await seed(world, organisationId, { employees: [{ ...eng, department: "Sales" }] });
    expect(ids(await ok<Page<EmployeeJson>>(await bySales.get(`/v1/employees?updated_since=${since}`)))).toEqual([eng.id]);
    const leave = await ok<Page<BookingJson>>(await bySales.get(`/v1/leave-requests?from=2026-01-01&to=2026-12-31&updated_since=${since}`));
    expect(leave.data.map((b) => b.employee_id)).toEqual([eng.id]);
  });
});

describe("a credential restricted to fields", () => {
  test("reads every other field as null, id and updated_at always, and cannot filter by a field it may not read", async () => {
    const { world, organisationId, sales } = await organisation();
    const named = await restrictedClient(world, organisationId, parseRestriction({ fields: "first_name,last_name" }, world.clock.now()));
    const { data } = await ok<{ data: EmployeeJson }>(await named.get(`/v1/employees/${sales.id}`));
    // Every field of the list, so that a field added later is held to the restriction too.
    const everyFieldNull = Object.fromEntries(apiKeys(EMPLOYEE_FIELDS).map((name) => [name, null]));
    expect(data).toEqual({ ...everyFieldNull, id: sales.id, first_name: "Sally", last_name: "Lovelace", updated_at: data.updated_at } as EmployeeJson);
    const page = await ok<Page<EmployeeJson>>(await named.get("/v1/employees"));
    expect(page.data.every((e) => e.department === null && e.status === null && e.first_name !== null)).toBe(true);
    await expectError(await named.get("/v1/employees?status=active"), 400, "invalid_request", "status");
  });
});

describe("changing a restriction", () => {
  test("answers older syncs with 410 sync_expired and refuses older cursors", async () => {
    const { world, organisationId } = await organisation();
    const client = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
    const first = await ok<Page<EmployeeJson>>(await client.get("/v1/employees?limit=1"));
    expect(first.next_cursor).not.toBeNull();
    const before = new Date(world.clock.now()).toISOString();
    world.clock.advance(ONE_SECOND);
    await world.store.restrictClient!(client.clientId, parseRestriction({ departments: "Engineering" }, world.clock.now()));
    await expectError(await client.get(`/v1/employees?updated_since=${before}`), 410, "sync_expired", "updated_since");
    await expectError(await client.get(`/v1/leave-requests?from=2026-01-01&to=2026-12-31&updated_since=${before}`), 410, "sync_expired", "updated_since");
    await expectError(await client.get(`/v1/deletions?resource=employees&updated_since=${before}`), 410, "sync_expired", "updated_since");
    await expectError(await client.get(`/v1/employees?limit=1&cursor=${first.next_cursor}`), 400, "invalid_request", "cursor");
    // Cleared, it reads everyone, and its syncs from before still start afresh.
    world.clock.advance(ONE_SECOND);
    const beforeClear = new Date(world.clock.now()).toISOString();
    world.clock.advance(ONE_SECOND);
    await world.store.restrictClient!(client.clientId, clearedRestriction(world.clock.now()));
    expect((await ok<Page<EmployeeJson>>(await client.get("/v1/employees"))).data).toHaveLength(4);
    await expectError(await client.get(`/v1/employees?updated_since=${beforeClear}`), 410, "sync_expired", "updated_since");
  });

  test("a restriction of fields alone reads the organisation's own deletions feed", async () => {
    const { world, organisationId, eng } = await organisation();
    const named = await restrictedClient(world, organisationId, parseRestriction({ fields: "first_name" }, world.clock.now()));
    world.clock.advance(ONE_SECOND);
    const since = new Date(world.clock.now()).toISOString();
    await world.store.runImport((w) => w.deleteEmployees(organisationId, [eng.id], world.clock.now()));
    expect((await ok<Page<{ id: string }>>(await named.get(`/v1/deletions?resource=employees&updated_since=${since}`))).data.map((d) => d.id)).toEqual([
      eng.id,
    ]);
  });
});

/** The same world on the memory store: its restricted reads are the reference a host's store can follow. */
async function memoryWorld(): Promise<TestWorld> {
  const clock = fakeClock();
  const store = createMemoryStore(undefined, { now: clock.now });
  const handler = conformToDocument(createHandler({ store, now: clock.now }));
  const call = (path: string, init: RequestInit = {}) => handler(new Request(BASE + path, init), { remoteAddress: "127.0.0.1" });
  // The helpers ask only for what every AdminStore has.
  return { store: store as unknown as TestWorld["store"], clock, handler, call };
}

for (const [name, makeWorld] of [
  ["the test store", () => createWorld()],
  ["the memory store", memoryWorld],
] as const) {
  describe(`a restricted client's deletions feed, on ${name}`, () => {
    test("names those who left its selection, with their bookings, and never anyone it could not have seen", async () => {
      const { world, organisationId, sales, salesDe, eng, noCalendar } = await organisation(await makeWorld());
      await seed(world, organisationId, { bookings: [booking(salesDe.id, { start_date: "2026-05-04", end_date: "2026-05-05" })] });
      const salesBooking = booking(sales.id, { start_date: "2026-04-06", end_date: "2026-04-10" });
      const bySales = await restrictedClient(world, organisationId, parseRestriction({ departments: "Sales" }, world.clock.now()));
      const seen = await ok<Page<BookingJson>>(await bySales.get("/v1/leave-requests?from=2026-01-01&to=2026-12-31"));
      const deBooking = seen.data.find((b) => b.employee_id === salesDe.id)!.id;
      world.clock.advance(ONE_SECOND);
      const since = new Date(world.clock.now()).toISOString();
      world.clock.advance(ONE_SECOND);
      // Dieter moves out, Nora is deleted, Enid (never in Sales) is deleted with her booking.
      await seed(world, organisationId, { employees: [{ ...salesDe, department: "Engineering" }] });
      await world.store.runImport((w) => w.deleteEmployees(organisationId, [noCalendar.id, eng.id], world.clock.now()));
      const feed = async (resource: string) =>
        (await ok<Page<{ id: string }>>(await bySales.get(`/v1/deletions?resource=${resource}&updated_since=${since}`))).data.map((d) => d.id).sort();
      expect(await feed("employees")).toEqual([salesDe.id, noCalendar.id].sort());
      expect(await feed("leave-requests")).toEqual([deBooking]);
      // The organisation's own feed names Enid and her booking; the restricted one never does.
      const everyone = await restrictedClient(world, organisationId);
      const whole = await ok<Page<{ id: string }>>(await everyone.get(`/v1/deletions?resource=employees&updated_since=${since}`));
      expect(whole.data.map((d) => d.id)).toContain(eng.id);

      // Back in Sales, Dieter leaves the feed: a record read again is not in it.
      world.clock.advance(ONE_SECOND);
      await seed(world, organisationId, { employees: [{ ...salesDe, department: "Sales" }] });
      expect(await feed("employees")).toEqual([noCalendar.id]);
      expect(await feed("leave-requests")).toEqual([]);

      // A booking given to someone outside the selection leaves it too.
      world.clock.advance(ONE_SECOND);
      const outsider = employee({ first_name: "Otto", department: "Engineering" });
      await seed(world, organisationId, {
        employees: [outsider],
        bookings: [{ ...salesBooking, id: seen.data.find((b) => b.employee_id === sales.id)!.id, employee_id: outsider.id }],
      });
      expect(await feed("leave-requests")).toEqual([seen.data.find((b) => b.employee_id === sales.id)!.id]);
      // Paged one at a time, the same ids, and a cursor from before a change of restriction is refused.
      const first = await ok<Page<{ id: string }>>(await bySales.get(`/v1/deletions?resource=employees&updated_since=${since}&limit=1`));
      expect(first.data).toHaveLength(1);
      world.clock.advance(ONE_SECOND);
      await world.store.restrictClient!(bySales.clientId, parseRestriction({ departments: "Sales,Engineering" }, world.clock.now()));
      await expectError(
        await bySales.get(`/v1/deletions?resource=employees&updated_since=${new Date(world.clock.now()).toISOString()}&cursor=${first.next_cursor ?? ""}`),
        400,
        "invalid_request",
        "cursor",
      );
    });
  });
}

describe("a store without restricted reads", () => {
  test("issues no token to a restricted client", async () => {
    const memory = createMemoryStore();
    const { restricted: _r, ...store } = memory;
    const handler = createHandler({ store });
    const orgId = crypto.randomUUID();
    await memory.createOrganisation({ id: orgId, name: "Host", api_enabled: true, created_at: Date.now() });
    const { client, secret } = mintClient(orgId, [...ALL_SCOPES], null, Date.now());
    await memory.createClient({ ...client, restriction: parseRestriction({ departments: "Sales" }, Date.now()) });
    const res = await handler(
      new Request(`${BASE}/v1/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` },
        body: "grant_type=client_credentials",
      }),
    );
    await expectError(res, 400, "unauthorized_client");
  });
});
