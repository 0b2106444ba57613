/**
 * Bearer authentication of the data endpoints (RFC 6750; docs/api.md, "Statuses and codes"):
 * the exact status, error code and challenge for each kind of failure, token expiry on the
 * fake clock, scope per endpoint, and the order authentication → scope → parameters → lookup.
 * Each test has its own world.
 */
import { describe, expect, test } from "bun:test";
import type { Scope } from "../lib/scopes.ts";
import { authorisedOrganisation, createWorld, employee, requestToken, seed } from "./support.ts";
import { BEARER_CHALLENGE, expectError } from "./oauth-helpers.ts";

const INVALID_TOKEN = `${BEARER_CHALLENGE}, error="invalid_token"`;
const INVALID_REQUEST = `${BEARER_CHALLENGE}, error="invalid_request"`;
const insufficient = (scope: Scope) => `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`;

const SOME_ID = "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10";
const RANGE = "from=2026-03-01&to=2026-03-31";
/** One request per data endpoint, with the scope it needs. */
const ENDPOINTS: [string, Scope][] = [
  ["/v1/employees", "employees:read"],
  [`/v1/employees/${SOME_ID}`, "employees:read"],
  [`/v1/leave-requests?${RANGE}`, "leave:read"],
  [`/v1/holidays?${RANGE}`, "holidays:read"],
];

async function callWith(path: string, authorization: string | null) {
  const world = await createWorld();
  return world.call(path, authorization === null ? {} : { headers: { Authorization: authorization } });
}

describe("a good token", () => {
  test.each(["Bearer", "bearer", "BEARER", "bEaReR"])("scheme %p is accepted; no challenge on 200", async (scheme) => {
    const world = await createWorld();
    const { token } = await authorisedOrganisation(world);
    const res = await world.call("/v1/employees", { headers: { Authorization: `${scheme} ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  test("reaches every data endpoint when it carries every scope", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    await seed(world, organisationId, { employees: [employee({ id: SOME_ID })] });
    for (const [path] of ENDPOINTS) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
  });
});

describe("no usable Authorization → 401 invalid_token with a bare challenge", () => {
  test.each(ENDPOINTS)("no header on %s", async (path) => {
    await expectError(await callWith(path, null), 401, "invalid_token", { challenge: BEARER_CHALLENGE });
  });

  test.each([
    ["an empty header", ""],
    ["Basic credentials", `Basic ${btoa("svcc_0123456789abcdef01234567:secret")}`],
    ["another scheme", "Token svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a scheme that only starts with Bearer", "Bearerx svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
  ])("%s", async (_label, authorization) => {
    await expectError(await callWith("/v1/employees", authorization), 401, "invalid_token", { challenge: BEARER_CHALLENGE });
  });

  test("HEAD without a token gets the same status and challenge, without a body", async () => {
    const world = await createWorld();
    const res = await world.call("/v1/employees", { method: "HEAD" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(BEARER_CHALLENGE);
    expect(await res.text()).toBe("");
  });
});

describe("a malformed Bearer header → 400 invalid_request", () => {
  test.each([
    ["no token", "Bearer"],
    ["no token after spaces", "Bearer    "],
    ["two tokens", "Bearer svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA svct_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"],
    ["a comma", "Bearer svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,svct_B"],
    ["a trailing comma", "Bearer svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,"],
    ["characters outside b64token", "Bearer svct_AAAA@AAAA"],
    ["a quoted token", 'Bearer "svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"'],
  ])("%s", async (_label, authorization) => {
    await expectError(await callWith("/v1/employees", authorization), 400, "invalid_request", { challenge: INVALID_REQUEST });
  });
});

describe("a token that is not accepted → 401 invalid_token with error=invalid_token", () => {
  test.each([
    ["an unknown token of the right format", "svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a token not of the format", "abc"],
    ["a token one character short", "svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a client secret instead of a token", "svcs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["base64 padding", "svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="],
  ])("%s", async (_label, token) => {
    await expectError(await callWith("/v1/employees", `Bearer ${token}`), 401, "invalid_token", { challenge: INVALID_TOKEN });
  });

  test("a real token with a character changed", async () => {
    const world = await createWorld();
    const { token } = await authorisedOrganisation(world);
    const altered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    const res = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${altered}` } });
    await expectError(res, 401, "invalid_token", { challenge: INVALID_TOKEN });
  });

  test("a token works until just before 3600 s and is expired at exactly 3600 s", async () => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world);
    world.clock.advance(3600_000 - 1);
    expect((await get("/v1/employees")).status).toBe(200);
    world.clock.advance(1);
    await expectError(await get("/v1/employees"), 401, "invalid_token", { challenge: INVALID_TOKEN });
    world.clock.advance(86_400_000);
    await expectError(await get("/v1/employees"), 401, "invalid_token", { challenge: INVALID_TOKEN });
  });
});

describe("scope → 403 insufficient_scope naming the scope needed", () => {
  const others = (needed: Scope): Scope[] => (["employees:read", "holidays:read", "leave:read"] as Scope[]).filter((s) => s !== needed);

  test.each(ENDPOINTS)("%s needs %s", async (path, needed) => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world, others(needed));
    await expectError(await get(path), 403, "insufficient_scope", { challenge: insufficient(needed) });
  });

  test("a token narrowed at the token endpoint is held to the narrower scope", async () => {
    const world = await createWorld();
    const { client } = await authorisedOrganisation(world);
    const { body } = await requestToken(world, client, { scope: "holidays:read" });
    const res = await world.call(`/v1/leave-requests?${RANGE}`, { headers: { Authorization: `Bearer ${String(body.access_token)}` } });
    await expectError(res, 403, "insufficient_scope", { challenge: insufficient("leave:read") });
  });
});

describe("order: authentication → scope → parameters → lookup", () => {
  test.each([
    "/v1/employees?update_since=2026-01-01T00:00:00Z",
    "/v1/employees?limit=0",
    "/v1/employees/not-a-uuid",
    "/v1/leave-requests",
    "/v1/leave-requests?from=2026-02-30&to=2026-01-01",
    "/v1/holidays?calendar=nowhere",
  ])("no token and bad parameters → 401, not 400: %s", async (path) => {
    await expectError(await callWith(path, null), 401, "invalid_token", { challenge: BEARER_CHALLENGE });
  });

  test("an unknown token and bad parameters → 401, not 400", async () => {
    const res = await callWith("/v1/employees?limit=abc", "Bearer svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    await expectError(res, 401, "invalid_token", { challenge: INVALID_TOKEN });
  });

  test.each([`/v1/employees/${SOME_ID}`, "/v1/employees/not-a-uuid", "/v1/employees?limit=9999"])(
    "a token without the scope → 403, not 404 or 400: %s",
    async (path) => {
      const world = await createWorld();
      const { get } = await authorisedOrganisation(world, ["leave:read", "holidays:read"]);
      await expectError(await get(path), 403, "insufficient_scope", { challenge: insufficient("employees:read") });
    },
  );

  test("with the scope, a bad parameter is 400 and an unknown id 404, with no challenge", async () => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world, ["employees:read"]);
    await expectError(await get("/v1/employees/not-a-uuid"), 400, "invalid_request", { param: "id" });
    await expectError(await get(`/v1/employees/${SOME_ID}`), 404, "not_found");
  });
});
