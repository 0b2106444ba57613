/**
 * Token endpoint rate limits (docs/api.md, "Rate limits"): 10 requests per client per
 * rolling 60 s, counting every request whose client authentication succeeded, and 60
 * failed authentications per remote address per rolling 60 s, a limit that refuses
 * further failures only, never valid credentials. Time moves on the fake clock only.
 * Each test has its own world.
 */
import { describe, expect, test } from "bun:test";
import { createClient, createOrganisation, createWorld, type TestClient, type TestWorld } from "./support.ts";
import { ALL, expectError, expectToken, grantWithBasic, postToken, rawBasic } from "./oauth-helpers.ts";

async function worldWithClient() {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world));
  return { world, client };
}

/** Asserts a 429 whose Retry-After is exactly `seconds`. */
async function expectLimited(res: Response, seconds: number) {
  expect(res.headers.get("retry-after")).toBe(String(seconds));
  await expectError(res, 429, "too_many_requests");
  expect(res.headers.get("pragma")).toBe("no-cache");
}

async function grantTimes(world: TestWorld, client: TestClient, times: number, fields: Record<string, string> = {}) {
  for (let i = 0; i < times; i++) expect((await grantWithBasic(world, client, fields)).status).toBe(200);
}

/** A failed client authentication: the right id with a wrong secret. */
function wrongSecret(world: TestWorld, client: TestClient, remoteAddress: string) {
  return postToken(world, {
    authorization: rawBasic(`${client.clientId}:svcs_${"x".repeat(43)}`),
    body: { grant_type: "client_credentials" },
    remoteAddress,
  });
}

describe("10 token requests per client per rolling minute", () => {
  test("the 11th → 429 with Retry-After in whole seconds until a slot frees, then it frees", async () => {
    const { world, client } = await worldWithClient();
    await grantTimes(world, client, 10);
    world.clock.advance(15_000);
    await expectLimited(await grantWithBasic(world, client), 45);
    world.clock.advance(44_999);
    await expectLimited(await grantWithBasic(world, client), 1);
    world.clock.advance(1);
    await expectToken(await grantWithBasic(world, client), ALL);
  });

  test("Retry-After rounds a part second up", async () => {
    const { world, client } = await worldWithClient();
    await grantTimes(world, client, 10);
    world.clock.advance(500);
    await expectLimited(await grantWithBasic(world, client), 60);
    world.clock.advance(59_000);
    await expectLimited(await grantWithBasic(world, client), 1);
    world.clock.advance(500);
    await expectToken(await grantWithBasic(world, client), ALL);
  });

  test("the window rolls: slots free one by one as their requests age out", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 10; i++) {
      await grantTimes(world, client, 1);
      world.clock.advance(1_000);
    }
    world.clock.advance(10_000); // 20 s after the first request
    await expectLimited(await grantWithBasic(world, client), 40);
    world.clock.advance(40_000); // the first request has left the window, the second has not
    await expectToken(await grantWithBasic(world, client), ALL);
    await expectLimited(await grantWithBasic(world, client), 1);
    world.clock.advance(1_000);
    await expectToken(await grantWithBasic(world, client), ALL);
  });

  test("requests that fail after authentication count (invalid_scope, unsupported_grant_type, unauthorized_client)", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 4; i++) await expectError(await grantWithBasic(world, client, { scope: "nope" }), 400, "invalid_scope", { param: "scope" });
    for (let i = 0; i < 3; i++) {
      const res = await grantWithBasic(world, client, { grant_type: "password" });
      await expectError(res, 400, "unsupported_grant_type", { param: "grant_type" });
    }
    await world.store.setApiEnabled(client.organisationId, false);
    for (let i = 0; i < 3; i++) await expectError(await grantWithBasic(world, client), 400, "unauthorized_client");
    await world.store.setApiEnabled(client.organisationId, true);
    await expectLimited(await grantWithBasic(world, client), 60);
  });

  test("a refused (429) request takes no slot", async () => {
    const { world, client } = await worldWithClient();
    await grantTimes(world, client, 10);
    world.clock.advance(30_000);
    for (let i = 0; i < 5; i++) await expectLimited(await grantWithBasic(world, client), 30);
    world.clock.advance(30_000);
    await grantTimes(world, client, 10);
  });

  test("the limit is per client: another client of the same organisation is unaffected", async () => {
    const { world, client } = await worldWithClient();
    const other = await createClient(world, client.organisationId);
    await grantTimes(world, client, 10);
    await expectLimited(await grantWithBasic(world, client), 60);
    await grantTimes(world, other, 10);
  });

  test("the limit follows the client, whatever address it calls from", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 10; i++) expect((await grantWithBasic(world, client, {}, `10.0.0.${i}`)).status).toBe(200);
    await expectLimited(await grantWithBasic(world, client, {}, "10.0.1.1"), 60);
  });

  test("failed authentications with a client's id do not use up its slots", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 20; i++)
      await expectError(await wrongSecret(world, client, `10.0.0.${i}`), 401, "invalid_client", {
        challenge: 'Basic realm="leaveapi"',
      });
    await grantTimes(world, client, 10);
  });
});

describe("60 failed client authentications per remote address per rolling minute", () => {
  test("a neighbour behind one NAT: after 60 failures from the address, valid credentials from it still get a token", async () => {
    const { world, client } = await worldWithClient();
    const misconfigured = await createClient(world, await createOrganisation(world, "Neighbour Ltd"));
    for (let i = 0; i < 60; i++) expect((await wrongSecret(world, misconfigured, "192.0.2.7")).status).toBe(401);
    await expectLimited(await wrongSecret(world, misconfigured, "192.0.2.7"), 60);
    world.clock.advance(10_000);
    await expectToken(await grantWithBasic(world, client, {}, "192.0.2.7"), ALL);
    // The misconfigured client itself, once it has its secret right, is served too.
    await expectToken(await grantWithBasic(world, misconfigured, {}, "192.0.2.7"), ALL);
  });

  test("failures past the limit still get 429 with Retry-After, whatever valid requests come in between; another address does not", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 60; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    world.clock.advance(10_000);
    await expectLimited(await wrongSecret(world, client, "192.0.2.7"), 50);
    await expectToken(await grantWithBasic(world, client, {}, "192.0.2.7"), ALL);
    await expectLimited(await wrongSecret(world, client, "192.0.2.7"), 50);
    const unknown = rawBasic(`svcc_${"f".repeat(24)}:svcs_${"x".repeat(43)}`);
    await expectLimited(await postToken(world, { authorization: unknown, body: { grant_type: "client_credentials" }, remoteAddress: "192.0.2.7" }), 50);
    await expectLimited(await postToken(world, { body: { grant_type: "client_credentials" }, remoteAddress: "192.0.2.7" }), 50);
    expect((await wrongSecret(world, client, "192.0.2.8")).status).toBe(401);
    world.clock.advance(50_000);
    expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
  });

  test("valid credentials over the address limit still count against, and are refused by, their client's own limit", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 60; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    for (let i = 0; i < 10; i++) await expectToken(await grantWithBasic(world, client, {}, "192.0.2.7"), ALL);
    const refused = await grantWithBasic(world, client, {}, "192.0.2.7");
    expect(refused.headers.get("retry-after")).toBe("60");
    // Refused by the client's limit, not the address's.
    expect((await expectError(refused, 429, "too_many_requests")).error_description).toContain("per client");
  });

  test("the window rolls: failures free the address as they age out", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 30; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    world.clock.advance(30_000);
    for (let i = 0; i < 30; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    world.clock.advance(29_999);
    await expectLimited(await wrongSecret(world, client, "192.0.2.7"), 1);
    world.clock.advance(1);
    // 30 failures left the window; the other 30 still count, so 30 more fit.
    for (let i = 0; i < 30; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    await expectLimited(await wrongSecret(world, client, "192.0.2.7"), 30);
  });

  test("unknown clients and missing credentials count as failures", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 30; i++) {
      const unknown = rawBasic(`svcc_${i.toString(16).padStart(24, "0")}:secret`);
      expect((await postToken(world, { authorization: unknown, body: { grant_type: "client_credentials" }, remoteAddress: "192.0.2.9" })).status).toBe(401);
      expect((await postToken(world, { body: { grant_type: "client_credentials" }, remoteAddress: "192.0.2.9" })).status).toBe(401);
    }
    await expectLimited(await wrongSecret(world, client, "192.0.2.9"), 60);
  });

  test("successful authentications and malformed requests do not count", async () => {
    const { world, client } = await worldWithClient();
    for (let i = 0; i < 59; i++) expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    await expectToken(await grantWithBasic(world, client, {}, "192.0.2.7"), ALL);
    for (let i = 0; i < 100; i++) {
      const res = await postToken(world, { contentType: "application/json", body: "{}", remoteAddress: "192.0.2.7" });
      expect(res.status).toBe(400);
    }
    expect((await grantWithBasic(world, client, {}, "192.0.2.7")).status).toBe(200);
    expect((await wrongSecret(world, client, "192.0.2.7")).status).toBe(401);
    await expectLimited(await wrongSecret(world, client, "192.0.2.7"), 60);
  });
});
