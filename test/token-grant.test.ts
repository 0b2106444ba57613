/**
 * POST /v1/oauth/token after the request is read: grant type and scope (docs/api.md,
 * "POST /v1/oauth/token" and "Order of checks"). Each test has its own world.
 */
import { describe, expect, test } from "bun:test";
import type { Scope } from "../lib/scopes.ts";
import { createClient, createOrganisation, createWorld } from "./support.ts";
import { ALL, BASIC_CHALLENGE, clientBasic, expectError, expectToken, grantWithBasic, postToken, rawBasic } from "./oauth-helpers.ts";

async function worldWithClient(scopes?: Scope[]) {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world), scopes);
  return { world, client };
}

describe("grant_type", () => {
  test.each([
    ["missing", "scope=leave%3Aread"],
    ["empty", "grant_type="],
    ["empty beside a scope", "grant_type=&scope=leave%3Aread"],
  ])("%s → 400 invalid_request naming grant_type", async (_label, body) => {
    const { world, client } = await worldWithClient();
    await expectError(await postToken(world, { authorization: clientBasic(client), body }), 400, "invalid_request", { param: "grant_type" });
  });

  test.each(["password", "authorization_code", "refresh_token", "CLIENT_CREDENTIALS", "client_credentials "])(
    "%p after good client authentication → 400 unsupported_grant_type",
    async (grantType) => {
      const { world, client } = await worldWithClient();
      const res = await postToken(world, { authorization: clientBasic(client), body: { grant_type: grantType } });
      await expectError(res, 400, "unsupported_grant_type", { param: "grant_type" });
    },
  );

  test("client authentication is checked before the grant type", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, { authorization: rawBasic(`${client.clientId}:wrong`), body: { grant_type: "password" } });
    await expectError(res, 401, "invalid_client", { challenge: BASIC_CHALLENGE });
  });

  test("the grant type is checked before API access and scope", async () => {
    const { world, client } = await worldWithClient();
    await world.store.setApiEnabled(client.organisationId, false);
    const res = await postToken(world, { authorization: clientBasic(client), body: { grant_type: "password", scope: "nope" } });
    await expectError(res, 400, "unsupported_grant_type", { param: "grant_type" });
  });

  test("API access is checked before scope", async () => {
    const { world, client } = await worldWithClient();
    await world.store.setApiEnabled(client.organisationId, false);
    await expectError(await grantWithBasic(world, client, { scope: "nope" }), 400, "unauthorized_client");
  });
});

describe("scope", () => {
  test("absent → every scope of the credentials, in canonical order", async () => {
    const { world, client } = await worldWithClient(["leave:read", "employees:read", "holidays:read"]);
    await expectToken(await grantWithBasic(world, client), ALL);
  });

  test("absent, for a client with fewer scopes → exactly its scopes", async () => {
    const { world, client } = await worldWithClient(["leave:read", "employees:read"]);
    await expectToken(await grantWithBasic(world, client), "employees:read leave:read");
  });

  test.each(["", " ", "\t"])("empty or blank (%p) → every scope of the credentials", async (scope) => {
    const { world, client } = await worldWithClient();
    await expectToken(await grantWithBasic(world, client, { scope }), ALL);
  });

  test.each([
    ["leave:read", "leave:read"],
    ["leave:read employees:read", "employees:read leave:read"],
    ["holidays:read leave:read employees:read", ALL],
  ])("a subset %p is granted, listed in canonical order", async (scope, granted) => {
    const { world, client } = await worldWithClient();
    await expectToken(await grantWithBasic(world, client, { scope }), granted);
  });

  test("the granted subset is what the token carries", async () => {
    const { world, client } = await worldWithClient();
    const { access_token } = await expectToken(await grantWithBasic(world, client, { scope: "leave:read" }), "leave:read");
    const headers = { Authorization: `Bearer ${access_token}` };
    expect((await world.call("/v1/leave-requests?from=2026-01-01&to=2026-01-31", { headers })).status).toBe(200);
    expect((await world.call("/v1/employees", { headers })).status).toBe(403);
  });

  test.each([
    ["extra spaces", "  employees:read   leave:read  "],
    ["tabs", "employees:read\tleave:read\t"],
    ["a newline", "employees:read\nleave:read"],
    ["a repeated name", "leave:read employees:read leave:read"],
  ])("%s are tolerated", async (_label, scope) => {
    const { world, client } = await worldWithClient();
    await expectToken(await grantWithBasic(world, client, { scope }), "employees:read leave:read");
  });

  test("+ in the body is a space", async () => {
    const { world, client } = await worldWithClient();
    const res = await postToken(world, {
      authorization: clientBasic(client),
      body: "grant_type=client_credentials&scope=employees%3Aread+leave:read",
    });
    await expectToken(res, "employees:read leave:read");
  });

  test.each([
    ["an unknown name", "employees:write"],
    ["an unknown name beside a good one", "leave:read admin"],
    ["upper case", "EMPLOYEES:READ"],
    ["mixed case", "Leave:read"],
    ["a comma-separated list", "employees:read,leave:read"],
  ])("%s → 400 invalid_scope naming scope", async (_label, scope) => {
    const { world, client } = await worldWithClient();
    await expectError(await grantWithBasic(world, client, { scope }), 400, "invalid_scope", { param: "scope" });
  });

  test("a scope the credentials lack → 400 invalid_scope", async () => {
    const { world, client } = await worldWithClient(["employees:read"]);
    await expectError(await grantWithBasic(world, client, { scope: "employees:read leave:read" }), 400, "invalid_scope", {
      param: "scope",
    });
    await expectToken(await grantWithBasic(world, client, { scope: "employees:read" }), "employees:read");
  });

  test("a refused scope with quotes, backslashes or control characters is not echoed raw", async () => {
    const { world, client } = await worldWithClient();
    const body = await expectError(await grantWithBasic(world, client, { scope: 'x"y\\z \u0001 \u00e9t\u00e9' }), 400, "invalid_scope", {
      param: "scope",
    });
    expect(body.error_description).not.toContain('"');
  });

  test("the description names a plain refused scope so the caller can fix it", async () => {
    const { world, client } = await worldWithClient(["employees:read"]);
    const body = await expectError(await grantWithBasic(world, client, { scope: "employees:write leave:read" }), 400, "invalid_scope", {
      param: "scope",
    });
    expect(body.error_description).toContain("employees:write leave:read");
  });

  test.each([
    ["one very long name", "a".repeat(3000)],
    ["very many names", "x ".repeat(1500)],
  ])("%s does not come back in full", async (_label, scope) => {
    const { world, client } = await worldWithClient();
    const body = await expectError(await grantWithBasic(world, client, { scope }), 400, "invalid_scope", { param: "scope" });
    expect(String(body.error_description).length).toBeLessThan(300);
  });
});
