/**
 * What every path checks first (docs/api.md: "Order of checks", "Query
 * parameters", "HTTP behaviour"): credentials in the URL (400 before
 * anything else), then the method (405 with `Allow`), no CORS headers, and the public
 * RFC 8414 metadata. Each test has its own world.
 */
import { describe, expect, test } from "bun:test";
import { authorisedOrganisation, createClient, createOrganisation, createWorld } from "./support.ts";
import { clientBasic, expectError, postToken } from "./oauth-helpers.ts";

const CREDENTIAL_QUERIES = [
  "?access_token=svct_abc",
  "?access_token=",
  "?client_id=svcc_0123456789abcdef01234567",
  "?client_secret=anything",
  "?token=x",
  "?ACCESS_TOKEN=x",
  "?status=svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
  "?cursor=abc&note=svcs_AAAA",
  "?status=%73vct_percent-encoded",
  // A name spelled otherwise: in other cases, escaped, escaped twice.
  "?Client_Secret=x",
  "?t%6Fken=x",
  "?status=active&%61ccess_%74oken=x",
  "?t%256Fken=x",
];

describe("credentials in the URL → 400 invalid_request before anything else", () => {
  test.each(CREDENTIAL_QUERIES)("on a data endpoint with no Authorization (not 401): %p", async (query) => {
    const world = await createWorld();
    await expectError(await world.call(`/v1/employees${query}`), 400, "invalid_request");
  });

  test.each(CREDENTIAL_QUERIES)("on a data endpoint with a good token: %p", async (query) => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world);
    await expectError(await get(`/v1/leave-requests${query}`), 400, "invalid_request");
  });

  test.each(CREDENTIAL_QUERIES)("on the token endpoint with good credentials: %p", async (query) => {
    const world = await createWorld();
    const client = await createClient(world, await createOrganisation(world));
    const res = await postToken(world, { query, authorization: clientBasic(client), body: { grant_type: "client_credentials" } });
    await expectError(res, 400, "invalid_request");
    expect(res.headers.get("pragma")).toBe("no-cache");
  });

  test.each(CREDENTIAL_QUERIES)("on the token endpoint with the wrong method (not 405): %p", async (query) => {
    const world = await createWorld();
    await expectError(await world.call(`/v1/oauth/token${query}`), 400, "invalid_request");
  });

  test.each(CREDENTIAL_QUERIES)("on an unknown path (not 404): %p", async (query) => {
    const world = await createWorld();
    await expectError(await world.call(`/no/such/path${query}`), 400, "invalid_request");
  });

  test("a token in the path is refused too", async () => {
    const world = await createWorld();
    await expectError(await world.call("/v1/employees/svct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), 400, "invalid_request");
  });

  test("a POST with a credential query on a data endpoint is 400, not 405", async () => {
    const world = await createWorld();
    await expectError(await world.call("/v1/holidays?token=x", { method: "POST" }), 400, "invalid_request");
  });
});

describe("methods", () => {
  test.each(["GET", "HEAD", "PUT", "DELETE", "PATCH"])("%s on the token endpoint → 405 with Allow: POST", async (method) => {
    const world = await createWorld();
    const res = await world.call("/v1/oauth/token", { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.headers.get("cache-control")).toBe("no-store");
    if (method !== "HEAD") await expectError(res, 405, "method_not_allowed");
  });

  test.each(["/v1/employees", "/v1/employees/6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10", "/v1/leave-requests", "/v1/holidays"])(
    "POST on %s → 405 with Allow: GET, HEAD, before authentication",
    async (path) => {
      const world = await createWorld();
      const res = await world.call(path, { method: "POST", body: "x" });
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      await expectError(res, 405, "method_not_allowed");
    },
  );

  test("HEAD on a data endpoint answers like GET, without a body", async () => {
    const world = await createWorld();
    const { token } = await authorisedOrganisation(world);
    const res = await world.call("/v1/employees", { method: "HEAD", headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe("");
  });

  test.each(["/v1/oauth/token", "/v1/employees", "/.well-known/oauth-authorization-server"])(
    "OPTIONS (a CORS preflight) on %s → 405 and no Access-Control-* header",
    async (path) => {
      const world = await createWorld();
      const res = await world.call(path, {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
      });
      await expectError(res, 405, "method_not_allowed");
      expect([...res.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
    },
  );

  test("no Access-Control-* header on a successful token answer to a cross-origin caller", async () => {
    const world = await createWorld();
    const client = await createClient(world, await createOrganisation(world));
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: { grant_type: "client_credentials" },
      headers: { Origin: "https://evil.example" },
    });
    expect(res.status).toBe(200);
    expect([...res.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  test("an unknown path → 404 not_found before authentication", async () => {
    const world = await createWorld();
    await expectError(await world.call("/v1/employes"), 404, "not_found");
  });
});

describe("RFC 8414 authorization server metadata", () => {
  const expected = (issuer: string) => ({
    issuer,
    token_endpoint: `${issuer}/v1/oauth/token`,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    scopes_supported: ["employees:read", "holidays:read", "leave:read"],
    response_types_supported: [],
  });

  test("public, with exactly the decided fields; issuer defaults to the request origin", async () => {
    const world = await createWorld();
    const res = await world.call("/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("www-authenticate")).toBeNull();
    expect(await res.json()).toEqual(expected("http://leaveapi.test"));
  });

  test("a configured issuer is used as given, and the token endpoint hangs off it", async () => {
    const world = await createWorld({ issuer: "https://api.example.com/leave" });
    const body = (await (await world.call("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
    expect(body).toEqual(expected("https://api.example.com/leave"));
    expect(body.token_endpoint).toBe("https://api.example.com/leave/v1/oauth/token");
  });
});
