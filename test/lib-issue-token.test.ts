/**
 * issueToken (lib/issue-token.ts) called directly on the memory store: the checks of the
 * client-credentials grant in docs/api.md's order ("Order of checks"), the two rate
 * limits, and what it stores. The HTTP side (body, headers, challenge) is
 * token-endpoint.test.ts's.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { digestSecret, mintAccessToken, mintClient } from "../lib/credentials.ts";
import { issueToken, type IssueTokenOptions } from "../lib/issue-token.ts";
import { randomUuid } from "../lib/ids.ts";
import { ALL_SCOPES, type Scope } from "../lib/scopes.ts";
import type { ApiClient } from "../lib/store.ts";
import type { TokenRequest } from "../lib/token-request.ts";

const NOW = Date.parse("2026-03-01T09:30:00Z");
const sevens = (length: number) => new Uint8Array(length).fill(7);
const limits = { perClient: 2, failuresPerAddress: 2, windowMs: 60_000 };
const options = (extra: Partial<IssueTokenOptions> = {}): IssueTokenOptions => ({
  now: NOW,
  remoteAddress: "192.0.2.1",
  randomBytes: sevens,
  limits,
  ...extra,
});

async function storeWithClient(scopes: Scope[] = [...ALL_SCOPES], apiEnabled = true) {
  const store = createMemoryStore();
  const organisationId = randomUuid();
  await store.createOrganisation({ id: organisationId, name: "Acme Ltd", api_enabled: apiEnabled, created_at: NOW });
  const { client, secret } = mintClient(organisationId, scopes, "payroll", NOW);
  await store.createClient(client);
  const request: TokenRequest = {
    grantType: "client_credentials",
    scope: undefined,
    clientId: client.client_id,
    clientSecret: secret,
    badAuthorization: false,
  };
  return { store, organisationId, client, request };
}

describe("a token is issued", () => {
  test("for the client's scopes, stored by its digest with an expiry an hour on", async () => {
    const { store, organisationId, client, request } = await storeWithClient(["leave:read", "employees:read"]);
    const issued = await issueToken(store, request, options());
    expect(issued).toEqual({ access_token: mintAccessToken(sevens), token_type: "Bearer", expires_in: 3600, scope: "employees:read leave:read" });
    expect(await store.findToken(digestSecret(issued.access_token))).toEqual({
      organisation_id: organisationId,
      client_id: client.client_id,
      scopes: ["employees:read", "leave:read"],
      expires_at: NOW + 3_600_000,
    });
  });

  test("for a subset the request names", async () => {
    const { store, request } = await storeWithClient();
    expect((await issueToken(store, { ...request, scope: " leave:read  holidays:read " }, options())).scope).toBe("holidays:read leave:read");
  });

  test("and the client is reported as soon as it is known", async () => {
    const { store, client, request } = await storeWithClient();
    const seen: ApiClient[] = [];
    await issueToken(store, request, options({ onAuthenticated: (c) => seen.push(c) }));
    expect(seen.map((c) => c.client_id)).toEqual([client.client_id]);
  });
});

describe("refusals, in the order of checks", () => {
  test("wrong secret, unknown or malformed id, revoked client → 401 invalid_client, with no HTTP header", async () => {
    const { store, client, request } = await storeWithClient();
    for (const wrong of [
      { ...request, clientSecret: "svcs_wrong" },
      { ...request, clientId: "svcc_000000000000000000000000" },
      { ...request, clientId: "not-an-id" },
      { ...request, badAuthorization: true },
    ]) {
      const error = await issueToken(store, wrong, options({ remoteAddress: randomUuid() })).catch((e) => e);
      expect([error.status, error.code, error.headers]).toEqual([401, "invalid_client", {}]);
    }
    await store.revokeClient(client.client_id, NOW);
    await expect(issueToken(store, request, options())).rejects.toMatchObject({ status: 401, code: "invalid_client" });
  });

  test("no credentials at all say so", async () => {
    const { store, request } = await storeWithClient();
    const error = await issueToken(store, { ...request, clientId: undefined, clientSecret: undefined }, options()).catch((e) => e);
    expect(error.message).toStartWith("No client credentials");
  });

  test("authentication comes before the grant type, which comes before API access and scope", async () => {
    const { store, request } = await storeWithClient(["leave:read"], false);
    const attempt = (r: TokenRequest) => issueToken(store, r, options({ limits: { ...limits, perClient: 10 } })).catch((e) => e.code);
    expect(await attempt({ ...request, grantType: "password", clientSecret: "svcs_wrong" })).toBe("invalid_client");
    expect(await attempt({ ...request, grantType: "password", scope: "nope" })).toBe("unsupported_grant_type");
    expect(await attempt({ ...request, scope: "nope" })).toBe("unauthorized_client");
  });

  test("a scope the client lacks, or no such scope, → 400 invalid_scope naming it safely", async () => {
    const { store, request } = await storeWithClient(["leave:read"]);
    const error = await issueToken(store, { ...request, scope: 'leave:read employees:read "x"' }, options()).catch((e) => e);
    expect([error.status, error.code, error.param]).toEqual([400, "invalid_scope", "scope"]);
    expect(error.message).toBe("These scopes cannot be granted to this client: (a malformed name) employees:read.");
  });
});

describe("rate limits", () => {
  test("failed authentications are limited per address; a valid client from that address is still served", async () => {
    const { store, request } = await storeWithClient();
    const failed = () => issueToken(store, { ...request, clientSecret: "svcs_wrong" }, options()).catch((e) => e);
    expect((await failed()).status).toBe(401);
    expect((await failed()).status).toBe(401);
    const limited = await failed();
    expect([limited.status, limited.code, limited.headers["Retry-After"]]).toEqual([429, "too_many_requests", "60"]);
    expect((await issueToken(store, request, options())).token_type).toBe("Bearer");
    expect((await issueToken(store, { ...request, clientSecret: "svcs_wrong" }, options({ remoteAddress: "192.0.2.2" })).catch((e) => e)).status).toBe(401);
  });

  test("token requests are limited per client, counted before the later checks, and free again after the window", async () => {
    const { store, request } = await storeWithClient();
    await issueToken(store, request, options());
    expect((await issueToken(store, { ...request, grantType: "password" }, options()).catch((e) => e)).code).toBe("unsupported_grant_type");
    await expect(issueToken(store, request, options())).rejects.toMatchObject({ status: 429, code: "too_many_requests" });
    expect((await issueToken(store, request, options({ now: NOW + 60_000 }))).token_type).toBe("Bearer");
  });
});
