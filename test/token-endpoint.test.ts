/**
 * POST /v1/oauth/token: the success answer, client authentication (Basic as real clients
 * encode it, form-body credentials), the failures of authentication, grant type and scope
 * (docs/api.md, "Credentials and tokens" and "Errors"). Each test has its own world.
 */
import { describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { digestSecret } from "../lib/credentials.ts";
import { sha256Hex } from "../lib/digest.ts";
import { nodeSha256Hex } from "../adapters/node-crypto.ts";
import { createHandler } from "../server/handler.ts";
import { createClient, createOrganisation, createWorld, type TestClient, type TestWorld } from "./support.ts";
import { ALL, BASIC_CHALLENGE, clientBasic, clientFormEncode, expectError, expectToken, grantWithBasic, postToken, rawBasic } from "./oauth-helpers.ts";

async function worldWithClient(scopes?: Parameters<typeof createClient>[2]) {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world), scopes);
  return { world, client };
}

/** A client whose secret is chosen by the test, to exercise decoding of characters real secrets avoid. */
async function clientWithSecret(world: TestWorld, secret: string): Promise<TestClient> {
  const base = await createClient(world, await createOrganisation(world));
  const clientId = `svcc_${"ab".repeat(12)}`;
  await world.store.createClient({
    client_id: clientId,
    organisation_id: base.organisationId,
    name: "chosen secret",
    scopes: ["employees:read", "holidays:read", "leave:read"],
    created_at: world.clock.now(),
    revoked_at: null,
    secret_digest: digestSecret(secret),
  });
  return { organisationId: base.organisationId, clientId, clientSecret: secret };
}

describe("success", () => {
  test("200 with exactly the token fields, as a JSON number lifetime, and no-cache headers", async () => {
    const { world, client } = await worldWithClient();
    const res = await grantWithBasic(world, client);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
    expect(res.headers.get("www-authenticate")).toBeNull();
    const body = await expectToken(res, ALL);
    expect(body).not.toHaveProperty("refresh_token");
  });

  test("a well-formed incoming X-Request-Id is echoed", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: { grant_type: "client_credentials" },
      headers: { "X-Request-Id": "req-123.abc_X" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-123.abc_X");
  });

  test("each request mints a different token, and earlier tokens stay live", async () => {
    const { world, client } = await worldWithClient();
    const first = await expectToken(await grantWithBasic(world, client), ALL);
    const second = await expectToken(await grantWithBasic(world, client), ALL);
    expect(first.access_token).not.toBe(second.access_token);
    for (const t of [first, second]) {
      const res = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${t.access_token}` } });
      expect(res.status).toBe(200);
    }
  });
});

describe("a host's SHA-256 (createHandler's sha256Hex, which leaveapi serve sets)", () => {
  test("node:crypto's gives lib/digest.ts's bytes, beyond ASCII too", () => {
    for (const text of ["", "svcs_abc", "svct_ä€😀", "x".repeat(1000)]) expect(nodeSha256Hex(text)).toBe(sha256Hex(text));
  });

  /** node:crypto's SHA-256, counting its calls. */
  const countingDigest = () => {
    const counted = { calls: 0, sha256Hex: (text: string) => (counted.calls++, nodeSha256Hex(text)) };
    return counted;
  };

  test("digests the presented secret and the stored token, which the pure-JavaScript digests then find", async () => {
    const digest = countingDigest();
    const world = await createWorld({ sha256Hex: digest.sha256Hex });
    const client = await createClient(world, await createOrganisation(world));
    digest.calls = 0;
    const { access_token } = await expectToken(await grantWithBasic(world, client), ALL);
    expect(digest.calls).toBe(2);
    expect(await world.store.findToken(digestSecret(access_token))).not.toBeNull();
    await expectError(await grantWithBasic(world, { ...client, clientSecret: `${client.clientSecret.slice(0, -1)}x` }), 401, "invalid_client", {
      challenge: BASIC_CHALLENGE,
    });
  });

  test("digests a data request's bearer token to look it up, and its ETag: twice per request", async () => {
    const digest = countingDigest();
    const world = await createWorld({ sha256Hex: digest.sha256Hex });
    const organisationId = await createOrganisation(world);
    const { access_token } = await expectToken(await grantWithBasic(world, await createClient(world, organisationId)), ALL);
    digest.calls = 0;
    const res = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${access_token}` } });
    expect(res.status).toBe(200);
    // The token's digest, and the ETag's (lib/conditional-reads.ts).
    expect(digest.calls).toBe(2);
  });

  test("one that digests otherwise is refused when the handler is created", async () => {
    const world = await createWorld();
    const latin1 = (text: string) => nodeSha256Hex(unescape(encodeURIComponent(text)));
    expect(() => createHandler({ store: world.store, sha256Hex: latin1 })).toThrow(/sha256Hex/);
    expect(() => createHandler({ store: world.store, sha256Hex: (text) => nodeSha256Hex(text).toUpperCase() })).toThrow(/sha256Hex/);
  });
});

describe("HTTP Basic client authentication", () => {
  test("both halves form-url-decoded: every - and _ sent as %2D / %5F, as openid-client does", async () => {
    const { world, client } = await worldWithClient();
    const header = clientBasic(client);
    expect(atob(header.slice(6))).toContain("%5F");
    await expectToken(await postToken(world, { authorization: header, body: { grant_type: "client_credentials" } }), ALL);
  });

  test("the unencoded form (raw id:secret) works too", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: rawBasic(`${client.clientId}:${client.clientSecret}`),
      body: { grant_type: "client_credentials" },
    });
    await expectToken(res, ALL);
  });

  test("the scheme name is case-insensitive", async () => {
    const { world, client } = await worldWithClient();
    for (const scheme of ["basic", "BASIC", "bAsIc"]) {
      const res = await postToken(world, {
        authorization: rawBasic(`${client.clientId}:${client.clientSecret}`, scheme),
        body: { grant_type: "client_credentials" },
      });
      await expectToken(res, ALL);
    }
  });

  test("+ decodes to a space and %2B to a plus", async () => {
    const world = await createWorld();
    const client = await clientWithSecret(world, "s+x y");
    expect(clientFormEncode(client.clientSecret)).toBe("s%2Bx+y");
    await expectToken(await grantWithBasic(world, client), ALL);
  });

  test("split at the first colon: a colon inside the secret belongs to the secret", async () => {
    const world = await createWorld();
    const client = await clientWithSecret(world, "a:b:c");
    const res = await postToken(world, { authorization: rawBasic(`${client.clientId}:a:b:c`), body: { grant_type: "client_credentials" } });
    await expectToken(res, ALL);
  });

  test.each([
    ["bad base64", "Basic !!!not-base64!!!"],
    ["no credentials after the scheme", "Basic"],
    ["no colon", rawBasic("svcc_0123456789abcdef01234567")],
    ["a bad percent escape", rawBasic("svcc_0123456789abcdef01234567:%ZZ")],
    ["invalid UTF-8 after decoding", rawBasic("svcc_0123456789abcdef01234567:%FF")],
    ["another scheme", "Bearer svct_abc"],
    ["a Digest scheme", 'Digest username="x"'],
  ])("%s → 401 invalid_client with the Basic challenge", async (_label, authorization) => {
    const { world } = await worldWithClient();
    const res = await postToken(world, { authorization, body: { grant_type: "client_credentials" } });
    await expectError(res, 401, "invalid_client", { challenge: BASIC_CHALLENGE });
  });
});

describe("oauth4webapi, its fetch routed to the handler", () => {
  for (const method of ["basic", "post"] as const) {
    test(`client_secret_${method} as the library encodes it gets a token`, async () => {
      const { world, client } = await worldWithClient();
      const as: oauth.AuthorizationServer = { issuer: "http://leaveapi.test", token_endpoint: "http://leaveapi.test/v1/oauth/token" };
      const auth = method === "basic" ? oauth.ClientSecretBasic(client.clientSecret) : oauth.ClientSecretPost(client.clientSecret);
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: client.clientId },
        auth,
        { scope: "leave:read" },
        {
          [oauth.allowInsecureRequests]: true,
          [oauth.customFetch]: (url: string, init: RequestInit) => world.handler(new Request(url, init), { remoteAddress: "127.0.0.1" }),
        },
      );
      const tokens = await oauth.processClientCredentialsResponse(as, { client_id: client.clientId }, response);
      expect(tokens.access_token).toMatch(/^svct_[A-Za-z0-9_-]{43}$/);
      expect(tokens.scope).toBe("leave:read");
      expect(tokens.expires_in).toBe(3600);
    });
  }
});

describe("form-body client authentication (client_secret_post)", () => {
  test("client_id and client_secret in the body work", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      body: { grant_type: "client_credentials", client_id: client.clientId, client_secret: client.clientSecret },
    });
    await expectToken(res, ALL);
  });

  test("percent-encoded - and _ in the body are decoded", async () => {
    const { world, client } = await worldWithClient();
    const body = `grant_type=client_credentials&client_id=${clientFormEncode(client.clientId)}&client_secret=${clientFormEncode(client.clientSecret)}`;
    await expectToken(await postToken(world, { body }), ALL);
  });

  test("Basic plus a body client_secret → 400 invalid_request", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: { grant_type: "client_credentials", client_id: client.clientId, client_secret: client.clientSecret },
    });
    await expectError(res, 400, "invalid_request");
  });

  test("Basic plus a body client_id that differs from the Basic id → 400 invalid_request", async () => {
    const { world, client } = await worldWithClient();
    const other = await createClient(world, client.organisationId);
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: { grant_type: "client_credentials", client_id: other.clientId },
    });
    await expectError(res, 400, "invalid_request");
  });

  test('Basic plus the same client_id in the body is accepted (docs/api.md, "POST /v1/oauth/token")', async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: { grant_type: "client_credentials", client_id: client.clientId },
    });
    await expectToken(res, ALL);
  });

  test("a non-Basic Authorization header plus body credentials is two methods → 400 invalid_request", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: "Bearer svct_abc",
      body: { grant_type: "client_credentials", client_id: client.clientId, client_secret: client.clientSecret },
    });
    await expectError(res, 400, "invalid_request");
  });
});

describe("failed client authentication → 401 invalid_client with the Basic challenge", () => {
  const failures: [string, (c: TestClient) => Record<string, string> | string | null][] = [
    ["unknown client (Basic)", (c) => rawBasic(`svcc_ffffffffffffffffffffffff:${c.clientSecret}`)],
    ["wrong secret (Basic)", (c) => rawBasic(`${c.clientId}:${c.clientSecret.slice(0, -1)}x`)],
    ["empty secret (Basic)", (c) => rawBasic(`${c.clientId}:`)],
    ["unknown client (body)", (c) => ({ client_id: "svcc_ffffffffffffffffffffffff", client_secret: c.clientSecret })],
    ["wrong secret (body)", (c) => ({ client_id: c.clientId, client_secret: `svcs_${"A".repeat(43)}` })],
    ["client_id without secret (body)", (c) => ({ client_id: c.clientId })],
    ["client_secret without id (body)", (c) => ({ client_secret: c.clientSecret })],
    ["client_id not of the id format (body)", (c) => ({ client_id: "admin", client_secret: c.clientSecret })],
    ["no credentials at all", () => null],
  ];
  test.each(failures)("%s", async (_label, credentials) => {
    const { world, client } = await worldWithClient();
    const given = credentials(client);
    const res =
      typeof given === "string"
        ? await postToken(world, { authorization: given, body: { grant_type: "client_credentials" } })
        : await postToken(world, { body: { grant_type: "client_credentials", ...given } });
    await expectError(res, 401, "invalid_client", { challenge: BASIC_CHALLENGE });
    expect(res.headers.get("pragma")).toBe("no-cache");
  });

  test("revoked credentials are refused, and the live token stops working at once", async () => {
    const { world, client } = await worldWithClient();
    const { access_token } = await expectToken(await grantWithBasic(world, client), ALL);
    await world.store.revokeClient(client.clientId, world.clock.now());
    await expectError(await grantWithBasic(world, client), 401, "invalid_client", { challenge: BASIC_CHALLENGE });
    const data = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${access_token}` } });
    await expectError(data, 401, "invalid_token", { challenge: 'Bearer realm="leaveapi", error="invalid_token"' });
  });
});

describe("organisation API access", () => {
  test("switched off → 400 unauthorized_client, and live tokens stop working at once", async () => {
    const { world, client } = await worldWithClient();
    const { access_token } = await expectToken(await grantWithBasic(world, client), ALL);
    await world.store.setApiEnabled(client.organisationId, false);
    await expectError(await grantWithBasic(world, client), 400, "unauthorized_client");
    const data = await world.call("/v1/holidays?from=2026-01-01&to=2026-01-31", { headers: { Authorization: `Bearer ${access_token}` } });
    await expectError(data, 401, "invalid_token", { challenge: 'Bearer realm="leaveapi", error="invalid_token"' });
  });

  test("switched back on → tokens are issued again", async () => {
    const { world, client } = await worldWithClient();
    await world.store.setApiEnabled(client.organisationId, false);
    await expectError(await grantWithBasic(world, client), 400, "unauthorized_client");
    await world.store.setApiEnabled(client.organisationId, true);
    await expectToken(await grantWithBasic(world, client), ALL);
  });
});
