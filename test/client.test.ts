/**
 * The client (`leaveapi/client`) against a scripted API: token reuse and expiry,
 * single-flight renewal, 401 → one new token and one retry, Retry-After on 429 and 503
 * (through an injected sleep, so nothing waits for real), bounded retries, paging, long
 * leave ranges, the sync recipe's arithmetic, and the error type.
 */
import { describe, expect, test } from "bun:test";
import { LeaveApiError, createClient, type Employee, type LeaveBooking } from "../client/index.ts";
import { basicAuthorization, createTokenSource } from "../client/token-source.ts";
import type { employeeJson, leaveBookingJson } from "../lib/records.ts";
import { bookingRecord, employeeRecord, fakeApi, json, type FakeApi } from "./fake-api.ts";

const EMPLOYEE_ID = "11111111-1111-4111-8111-111111111111";
const CREDENTIALS = { baseUrl: "https://leave.example", clientId: "svcc_000000000000000000000001", clientSecret: "svcs_secret" };

function clientFor(api: FakeApi, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ ...CREDENTIALS, fetch: api.fetch, now: api.now, sleep: api.sleep, ...extra });
}

const oneEmployee = () => json(200, { data: employeeRecord(EMPLOYEE_ID, "2026-05-01T08:00:00.000Z") });
const invalidToken = () =>
  json(
    401,
    { error: "invalid_token", error_description: "The access token is unknown, expired or revoked." },
    { "WWW-Authenticate": 'Bearer realm="leaveapi", error="invalid_token"' },
  );

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

// The client's record types are the server's JSON shapes, exactly (a compile-time check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const employeeShapeMatches: Same<Employee, ReturnType<typeof employeeJson>> = true;
const bookingShapeMatches: Same<LeaveBooking, ReturnType<typeof leaveBookingJson>> = true;

describe("tokens", () => {
  test("one token serves every call until a minute before it expires", async () => {
    expect(employeeShapeMatches && bookingShapeMatches).toBe(true);
    const api = fakeApi({ respond: oneEmployee });
    const client = clientFor(api);
    for (let i = 0; i < 5; i++) await client.getEmployee(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(1);
    api.advance(3539_000);
    await client.getEmployee(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(1);
    api.advance(2_000); // 3541 s: inside the last minute
    await client.getEmployee(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(2);
    expect(api.dataCalls.map((c) => c.token)).toEqual(["tok1", "tok1", "tok1", "tok1", "tok1", "tok1", "tok2"]);
  });

  test("ten concurrent calls share one token request", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const api = fakeApi({ respond: oneEmployee, tokenGate: () => gate });
    const client = clientFor(api);
    const calls = Array.from({ length: 10 }, () => client.getEmployee(EMPLOYEE_ID));
    await Promise.resolve();
    open();
    const results = await Promise.all(calls);
    expect(results.every((e) => e.id === EMPLOYEE_ID)).toBe(true);
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.dataCalls).toHaveLength(10);
  });

  test("the token request uses HTTP Basic with each half form-url-encoded (RFC 6749 §2.3.1)", async () => {
    const api = fakeApi({ respond: oneEmployee });
    await clientFor(api, { clientId: "svcc_a-b", clientSecret: "s+c:d é", scope: "employees:read leave:read" }).getEmployee(EMPLOYEE_ID);
    const [request] = api.tokenRequests;
    expect(atob(request!.authorization!.slice("Basic ".length))).toBe("svcc_a-b:s%2Bc%3Ad+%C3%A9");
    expect(new URLSearchParams(request!.body).get("scope")).toBe("employees:read leave:read");
    expect(new URLSearchParams(request!.body).get("grant_type")).toBe("client_credentials");
    expect(basicAuthorization("id", "x y")).toBe(`Basic ${btoa("id:x+y")}`);
  });

  test("a refused token request is a LeaveApiError with the API's body", async () => {
    const api = fakeApi({
      respond: oneEmployee,
      tokenResponse: () => json(401, { error: "invalid_client", error_description: "Client authentication failed." }),
    });
    const error = await clientFor(api)
      .getEmployee(EMPLOYEE_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaveApiError);
    expect(error).toMatchObject({ status: 401, error: "invalid_client", error_description: "Client authentication failed." });
    expect(api.dataCalls).toHaveLength(0);
  });
});

describe("401 on a data call", () => {
  test("gets one new token and retries once", async () => {
    const api = fakeApi({ respond: (call) => (call.token === "tok1" ? invalidToken() : oneEmployee()) });
    const employee = await clientFor(api).getEmployee(EMPLOYEE_ID);
    expect(employee.id).toBe(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(2);
    expect(api.dataCalls.map((c) => c.token)).toEqual(["tok1", "tok2"]);
  });

  test("ten calls refused at once renew the token once, and a late 401 for the old token renews nothing", async () => {
    const api = fakeApi({ respond: (call) => (call.token === "tok1" ? invalidToken() : oneEmployee()) });
    const client = clientFor(api);
    await Promise.all(Array.from({ length: 10 }, () => client.getEmployee(EMPLOYEE_ID)));
    expect(api.tokenRequests).toHaveLength(2);
    expect(api.dataCalls.filter((c) => c.token === "tok1")).toHaveLength(10);
    expect(api.dataCalls.filter((c) => c.token === "tok2")).toHaveLength(10);
    const tokens = createTokenSource({ tokenUrl: "https://leave.example/v1/oauth/token", ...CREDENTIALS, transport: { send: api.fetch }, now: api.now });
    const first = await tokens.token();
    const second = await tokens.renew(first);
    expect(await tokens.renew(first)).toBe(second);
    expect(api.tokenRequests).toHaveLength(4);
  });

  test("a second 401 is thrown, not retried again", async () => {
    const api = fakeApi({ respond: invalidToken });
    const error = await clientFor(api)
      .getEmployee(EMPLOYEE_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaveApiError);
    expect(error).toMatchObject({ status: 401, error: "invalid_token" });
    expect(api.dataCalls).toHaveLength(2);
    expect(api.tokenRequests).toHaveLength(2);
  });
});

describe("429 and 503", () => {
  test("are retried after Retry-After, through the injected sleep", async () => {
    let n = 0;
    const api = fakeApi({
      respond: () => {
        n++;
        if (n === 1) return json(429, { error: "too_many_requests", error_description: "Slow down." }, { "Retry-After": "7" });
        if (n === 2) return json(503, { error: "temporarily_unavailable", error_description: "Try later." }, { "Retry-After": "5" });
        return oneEmployee();
      },
    });
    expect((await clientFor(api).getEmployee(EMPLOYEE_ID)).id).toBe(EMPLOYEE_ID);
    expect(api.slept).toEqual([7000, 5000]);
    expect(api.dataCalls).toHaveLength(3);
  });

  test("an HTTP-date Retry-After waits until that date", async () => {
    let n = 0;
    const api = fakeApi({
      respond: (_call, self) =>
        ++n === 1
          ? json(503, { error: "temporarily_unavailable", error_description: "x" }, { "Retry-After": new Date(self.now() + 12_000).toUTCString() })
          : oneEmployee(),
    });
    await clientFor(api).getEmployee(EMPLOYEE_ID);
    expect(api.slept).toHaveLength(1);
    expect(api.slept[0]).toBeGreaterThan(11_000);
    expect(api.slept[0]).toBeLessThanOrEqual(12_000);
  });

  test("are retried at most three times, then thrown as a LeaveApiError", async () => {
    const api = fakeApi({ respond: () => json(429, { error: "too_many_requests", error_description: "Slow down." }, { "Retry-After": "2" }) });
    const error = await clientFor(api)
      .getEmployee(EMPLOYEE_ID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaveApiError);
    expect(error).toMatchObject({ status: 429, error: "too_many_requests", retryAfter: 2 });
    expect(api.dataCalls).toHaveLength(4);
    expect(api.slept).toEqual([2000, 2000, 2000]);
  });

  test("a wait longer than the cap fails at once, naming the wait", async () => {
    const api = fakeApi({ respond: () => json(429, { error: "too_many_requests", error_description: "Slow down." }, { "Retry-After": "600" }) });
    const error = await clientFor(api, { retry: { maxRetryDelayMs: 30_000 } })
      .getEmployee(EMPLOYEE_ID)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, retryAfter: 600 });
    expect(api.slept).toEqual([]);
    expect(api.dataCalls).toHaveLength(1);
  });

  test("the token endpoint's 429 is waited out too", async () => {
    const api = fakeApi({
      respond: oneEmployee,
      tokenResponse: (n) => (n === 1 ? json(429, { error: "too_many_requests", error_description: "10 a minute." }, { "Retry-After": "31" }) : undefined),
    });
    await clientFor(api).getEmployee(EMPLOYEE_ID);
    expect(api.slept).toEqual([31_000]);
    expect(api.tokenRequests).toHaveLength(2);
  });
});

describe("errors", () => {
  test("carry status, error, error_description, param and the request id", async () => {
    const api = fakeApi({
      respond: () =>
        json(
          400,
          { error: "invalid_request", error_description: "'limit' must be a whole number from 1 to 500.", param: "limit" },
          { "X-Request-Id": "req-1" },
        ),
    });
    const error = (await collect(clientFor(api).employees({ limit: 0 })).catch((e: unknown) => e)) as LeaveApiError;
    expect(error).toBeInstanceOf(LeaveApiError);
    expect({ ...error, message: error.message }).toMatchObject({
      status: 400,
      error: "invalid_request",
      error_description: "'limit' must be a whole number from 1 to 500.",
      param: "limit",
      requestId: "req-1",
      message: "'limit' must be a whole number from 1 to 500. (HTTP 400 invalid_request, param limit)",
    });
  });

  test("a body that is not the API's error, or no answer at all, is still a LeaveApiError", async () => {
    const proxyPage = fakeApi({ respond: () => new Response("<html>Bad gateway</html>", { status: 502 }) });
    expect(
      await clientFor(proxyPage)
        .getEmployee(EMPLOYEE_ID)
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 502, error: "unexpected_response" });
    const refused = createClient({ ...CREDENTIALS, fetch: () => Promise.reject(new TypeError("connection refused")), retry: { maxRetries: 0 } });
    expect(await refused.getEmployee(EMPLOYEE_ID).catch((e: unknown) => e)).toMatchObject({ status: 0, error: "network_error" });
  });
});

describe("paging", () => {
  test("employees() follows next_cursor to the last page, with the filters on every request", async () => {
    const records = Array.from({ length: 5 }, (_, i) => employeeRecord(`00000000-0000-4000-8000-00000000000${i}`, `2026-05-01T08:00:0${i}.000Z`));
    const api = fakeApi({
      respond: ({ url }) => {
        const at = Number(url.searchParams.get("cursor") ?? "0");
        const next = at + 2 < records.length ? String(at + 2) : null;
        return json(200, { has_more: next !== null, next_cursor: next, data: records.slice(at, at + 2) });
      },
    });
    const seen = await collect(clientFor(api).employees({ status: "active", updatedSince: new Date("2026-04-01T00:00:00Z"), limit: 2 }));
    expect(seen).toEqual(records);
    expect(api.dataCalls.map((c) => c.url.search)).toEqual([
      "?status=active&updated_since=2026-04-01T00%3A00%3A00.000Z&limit=2",
      "?status=active&updated_since=2026-04-01T00%3A00%3A00.000Z&limit=2&cursor=2",
      "?status=active&updated_since=2026-04-01T00%3A00%3A00.000Z&limit=2&cursor=4",
    ]);
  });

  test("a leave range longer than 400 days is read in windows, each booking once", async () => {
    const bookings = [
      bookingRecord("b0000000-0000-4000-8000-000000000001", "2025-12-20", "2026-01-05"),
      bookingRecord("b0000000-0000-4000-8000-000000000002", "2027-02-01", "2027-02-10"), // spans the first window's end
      bookingRecord("b0000000-0000-4000-8000-000000000003", "2027-06-01", "2027-06-02"),
    ];
    const api = fakeApi({
      respond: ({ url }) => {
        const from = url.searchParams.get("from")!;
        const to = url.searchParams.get("to")!;
        const data = bookings.filter((b) => b.start_date <= to && b.end_date >= from);
        return json(200, { has_more: false, next_cursor: null, data });
      },
    });
    const seen = await collect(clientFor(api).leaveRequests({ from: "2026-01-01", to: "2027-12-31", status: "approved" }));
    expect(seen.map((b) => b.id)).toEqual(bookings.map((b) => b.id));
    expect(api.dataCalls.map((c) => [c.url.searchParams.get("from"), c.url.searchParams.get("to"), c.url.searchParams.get("status")])).toEqual([
      ["2026-01-01", "2027-02-05", "approved"],
      ["2027-02-06", "2027-12-31", "approved"],
    ]);
  });
});

describe("sync()", () => {
  const emptyPage = () => json(200, { has_more: false, next_cursor: null, data: [] });

  test("a first sync reads everything and hands on the time it started", async () => {
    const api = fakeApi({ respond: (_call, self) => (self.advance(1000), emptyPage()) });
    const started = api.now();
    const result = await clientFor(api).sync({ from: "2026-01-01", to: "2026-12-31" });
    expect(result).toEqual({
      employees: [],
      leaveRequests: [],
      deletedEmployees: [],
      deletedLeaveRequests: [],
      since: new Date(started).toISOString(),
      full: true,
    });
    expect(api.dataCalls.every((c) => !c.url.searchParams.has("updated_since"))).toBe(true);
  });

  test("a later sync asks from the previous start minus 5 s of skew", async () => {
    const api = fakeApi({ respond: (_call, self) => (self.advance(250), emptyPage()) });
    const started = api.now();
    const result = await clientFor(api).sync({ since: "2026-04-30T12:00:00.000Z", from: "2026-01-01", to: "2026-12-31" });
    expect(result.since).toBe(new Date(started).toISOString());
    expect(result.full).toBe(false);
    expect(api.dataCalls.map((c) => [c.url.pathname, c.url.searchParams.get("updated_since")])).toEqual([
      ["/v1/employees", "2026-04-30T11:59:55.000Z"],
      ["/v1/deletions", "2026-04-30T11:59:55.000Z"],
      ["/v1/leave-requests", "2026-04-30T11:59:55.000Z"],
      ["/v1/deletions", "2026-04-30T11:59:55.000Z"],
    ]);
    expect(api.dataCalls.filter((c) => c.url.pathname === "/v1/deletions").map((c) => c.url.searchParams.get("resource"))).toEqual([
      "employees",
      "leave-requests",
    ]);
  });

  test("reports the deletions since `since`; a record read and then deleted counts as deleted", async () => {
    const kept = "22222222-2222-4222-8222-222222222222";
    const gone = "33333333-3333-4333-8333-333333333333";
    const api = fakeApi({
      respond: ({ url }) =>
        url.pathname === "/v1/employees"
          ? json(200, {
              has_more: false,
              next_cursor: null,
              data: [employeeRecord(kept, "2026-05-01T08:00:00.000Z"), employeeRecord(gone, "2026-05-01T08:00:00.000Z")],
            })
          : json(200, { has_more: false, next_cursor: null, data: [{ resource: "employees", id: gone, deleted_at: "2026-05-01T08:00:01.000Z" }] }),
    });
    const result = await clientFor(api).sync({ since: "2026-05-01T07:00:00.000Z", resources: ["employees"] });
    expect(result.employees.map((e) => e.id)).toEqual([kept]);
    expect(result.deletedEmployees).toEqual([gone]);
    expect(result.full).toBe(false);
  });

  test("a since older than the deletions kept (410 sync_expired) makes it a full read", async () => {
    const api = fakeApi({
      respond: ({ url }) =>
        url.pathname === "/v1/deletions"
          ? json(410, { error: "sync_expired", error_description: "Do a full read.", param: "updated_since" })
          : json(200, { has_more: false, next_cursor: null, data: [] }),
    });
    const result = await clientFor(api).sync({ since: "2025-01-01T00:00:00.000Z", resources: ["employees"] });
    expect(result.full).toBe(true);
    expect(api.dataCalls.map((c) => [c.url.pathname, c.url.searchParams.get("updated_since")])).toEqual([
      ["/v1/employees", "2024-12-31T23:59:55.000Z"],
      ["/v1/deletions", "2024-12-31T23:59:55.000Z"],
      ["/v1/employees", null],
    ]);
  });

  test("a record seen twice in one pass is returned once, its newest version", async () => {
    const id = "22222222-2222-4222-8222-222222222222";
    const pages = [
      { has_more: true, next_cursor: "c1", data: [employeeRecord(id, "2026-05-01T08:00:00.000Z")] },
      { has_more: false, next_cursor: null, data: [employeeRecord(id, "2026-05-01T08:00:03.000Z")] },
    ];
    const api = fakeApi({ respond: ({ url }) => json(200, pages[url.searchParams.has("cursor") ? 1 : 0]) });
    const result = await clientFor(api).sync({ resources: ["employees"] });
    expect(result.employees.map((e) => e.updated_at)).toEqual(["2026-05-01T08:00:03.000Z"]);
  });

  test("refuses to sync leave without a range, and a since it cannot read", async () => {
    const client = clientFor(fakeApi({ respond: emptyPage }));
    await expect(client.sync()).rejects.toThrow(TypeError);
    await expect(client.sync({ since: "yesterday", resources: ["employees"] })).rejects.toThrow(/since must be/);
  });
});
