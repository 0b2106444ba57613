/**
 * HTTP behaviour shared by every answer (docs/api.md, "Errors" and "HTTP behaviour"): the
 * common headers, request ids, HEAD, no CORS, no redirects, 404/405 for paths and methods,
 * the order of checks, and the public /healthz and /v1/openapi.json.
 */
import { describe, expect, test } from "bun:test";
import { authorisedOrganisation, createWorld, employee, seed } from "./support.ts";
import type { RequestLogEntry } from "../server/handler.ts";
import { expectError, freshWorld } from "./data-fixtures.ts";

const LEAVE = "/v1/leave-requests?from=2026-03-01&to=2026-03-31";
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The headers every response carries, and never a CORS header (docs/api.md, "HTTP behaviour"). */
function expectCommonHeaders(res: Response, hasBody = true): void {
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-request-id")).toMatch(REQUEST_ID);
  if (hasBody) expect(res.headers.get("content-type")).toStartWith("application/json");
  expect([...res.headers.keys()].filter((name) => name.toLowerCase().startsWith("access-control-"))).toEqual([]);
  expect(res.status < 300 || res.status >= 400).toBe(true);
  expect(res.headers.get("location")).toBeNull();
}

describe("headers on every response", () => {
  test("200, 400, 401, 404 and 405 all carry them", async () => {
    const { world, get } = await freshWorld();
    const answers: [Response, number][] = [
      [await get("/v1/employees"), 200],
      [await get("/v1/employees?limit=0"), 400],
      [await world.call("/v1/employees"), 401],
      [await get("/v1/nothing-here"), 404],
      [await get("/v1/employees/6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a"), 404],
      [await world.call("/v1/employees", { method: "DELETE" }), 405],
      [await world.call("/healthz"), 200],
    ];
    for (const [res, status] of answers) {
      expect(res.status).toBe(status);
      expectCommonHeaders(res);
      expect(typeof JSON.parse(await res.text())).toBe("object");
    }
  });

  test("a well-formed X-Request-Id is echoed; a bad or over-long one is replaced", async () => {
    const { get } = await freshWorld();
    for (const id of ["abc-123._X", "a".repeat(64)]) {
      expect((await get("/v1/employees", { "X-Request-Id": id })).headers.get("x-request-id")).toBe(id);
    }
    for (const id of ["bad id!", "a".repeat(65), "line\tbreak", "<script>", "ümlaut"]) {
      const res = await get("/v1/employees", { "X-Request-Id": id });
      expect(res.headers.get("x-request-id")).not.toBe(id);
      expect(res.headers.get("x-request-id")).toMatch(REQUEST_ID);
    }
    const [a, b] = [await get("/v1/employees"), await get("/v1/employees")];
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  test("no Access-Control-* header, for OPTIONS or for a request with an Origin", async () => {
    const { world, get } = await freshWorld();
    const origin = { Origin: "https://elsewhere.example" };
    const preflight = await world.call("/v1/employees", {
      method: "OPTIONS",
      headers: { ...origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(preflight.status).toBe(405);
    expectCommonHeaders(preflight);
    expectCommonHeaders(await get("/v1/employees", origin));
    expectCommonHeaders(await world.call("/v1/oauth/token", { method: "OPTIONS", headers: origin }));
  });
});

describe("HEAD", () => {
  test("answers like GET, without a body", async () => {
    const { world, token, organisationId } = await freshWorld();
    await seed(world, organisationId, { employees: [employee()] });
    for (const [path, auth] of [
      ["/v1/employees", true],
      [LEAVE, true],
      ["/v1/employees?limit=x", true],
      ["/v1/employees", false],
      ["/nope", false],
      ["/healthz", false],
    ] as const) {
      const headers: Record<string, string> = auth ? { Authorization: `Bearer ${token}` } : {};
      const get = await world.call(path, { headers });
      const head = await world.call(path, { method: "HEAD", headers });
      expect(head.status).toBe(get.status);
      expectCommonHeaders(head, false);
      const strip = (r: Response) => [...r.headers].filter(([name]) => name !== "x-request-id" && name !== "content-length");
      expect(strip(head)).toEqual(strip(get));
      expect(await head.text()).toBe("");
    }
  });
});

describe("paths and methods", () => {
  test("never a redirect, trailing slash or not", async () => {
    const { get } = await freshWorld();
    for (const path of ["/v1/employees/", "/v1/holidays/", "/healthz/", "/v1/openapi.json/", "//v1/employees", "/v1", "/v1/", "/", "/v1/employees/./"]) {
      expectCommonHeaders(await get(path));
    }
  });

  test("an unknown path is 404 not_found", async () => {
    const { get } = await freshWorld();
    for (const path of [
      "/v1/employee",
      "/v2/employees",
      "/",
      "/v1/employees/",
      "/healthz/",
      "/v1/oauth/token/",
      "/v1/employees/6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a/leave",
      "/V1/employees",
    ]) {
      await expectError(await get(path), 404, "not_found");
    }
  });

  test("a wrong method is 405 method_not_allowed with Allow", async () => {
    const { world, token } = await freshWorld();
    const auth = { Authorization: `Bearer ${token}` };
    const cases: [string, string, string][] = [
      ["POST", "/v1/employees", "GET, HEAD"],
      ["PUT", "/v1/employees/6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a", "GET, HEAD"],
      ["DELETE", LEAVE, "GET, HEAD"],
      ["PATCH", "/v1/holidays", "GET, HEAD"],
      ["POST", "/healthz", "GET, HEAD"],
      ["POST", "/v1/openapi.json", "GET, HEAD"],
      ["GET", "/v1/oauth/token", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await world.call(path, { method, headers: auth });
      expect(res.headers.get("allow")).toBe(allow);
      await expectError(res, 405, "method_not_allowed");
    }
  });
});

describe("order of checks", () => {
  test("no token: bad parameters and bad ids are 401, not 400", async () => {
    const { world } = await freshWorld();
    for (const path of [
      "/v1/employees?limit=abc",
      "/v1/employees?update_since=x",
      "/v1/employees/not-a-uuid",
      "/v1/leave-requests",
      "/v1/holidays?calendar=gb",
    ]) {
      const res = await world.call(path);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="leaveapi"');
      await expectError(res, 401, "invalid_token");
    }
  });

  test("no token: an unknown path is 404 and a wrong method 405", async () => {
    const { world } = await freshWorld();
    await expectError(await world.call("/v1/unknown?limit=abc"), 404, "not_found");
    await expectError(await world.call("/v1/employees?limit=abc", { method: "POST" }), 405, "method_not_allowed");
  });
});

describe("public endpoints", () => {
  test("/healthz is 200 while the store works and 503 with Retry-After once it is closed", async () => {
    const { world, get } = await freshWorld();
    const up = await world.call("/healthz");
    expect(up.status).toBe(200);
    expectCommonHeaders(up);
    await world.store.close();
    const down = await world.call("/healthz");
    expect(down.headers.get("retry-after")).toMatch(/^\d+$/);
    expectCommonHeaders(down);
    await expectError(down, 503, "temporarily_unavailable");
    const data = await get("/v1/employees");
    expect(data.headers.get("retry-after")).toMatch(/^\d+$/);
    await expectError(data, 503, "temporarily_unavailable");
  });

  test("/v1/openapi.json serves an OpenAPI 3.1 document without authentication", async () => {
    const { world } = await freshWorld();
    const res = await world.call("/v1/openapi.json");
    expect(res.status).toBe(200);
    expectCommonHeaders(res);
    const doc = (await res.json()) as { openapi?: unknown };
    expect(String(doc.openapi)).toStartWith("3.1");
  });
});

describe("failures", () => {
  test("an unexpected error is a bare 500 server_error, logged with its request id and never shown", async () => {
    const entries: RequestLogEntry[] = [];
    const world = await createWorld({ log: (entry) => entries.push(entry) });
    const { get } = await authorisedOrganisation(world);
    const failing = () => Promise.reject(new Error("SQL near 'secret_table': syntax error"));
    world.store.listEmployees = failing;
    world.store.listText = failing;
    const res = await get("/v1/employees", { "X-Request-Id": "req-500" });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "server_error", error_description: expect.any(String) });
    expect(text).not.toContain("secret_table");
    const entry = entries.find((e) => e.request_id === "req-500");
    expect(entry).toMatchObject({ level: "error", status: 500, route: "/v1/employees" });
    expect(entry?.error).toContain("secret_table");
  });
});
