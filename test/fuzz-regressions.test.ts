/**
 * Requests the endpoint fuzzer (fuzz-endpoints.e2e.test.ts) once answered wrongly, kept as
 * plain tests so that they are checked on every run whatever seed the fuzzer uses.
 */
import { expect, test } from "bun:test";
import { authorisedOrganisation, basicHeader, createClient, createOrganisation, createWorld, requestToken } from "./support.ts";
import { expectError } from "./data-fixtures.ts";
import { parseInstantCeil } from "../lib/dates.ts";

test("a token hidden by percent-encoding beside a malformed escape is still refused as credentials in the URL", async () => {
  const world = await createWorld();
  for (const path of ["/healthz?%&%73vct_x", "/v1/employees?%73vct_x&%", "/v1/employees/%73vct_x%", "/v1/holidays?x=%E0%73vcs_y"]) {
    await expectError(await world.call(path), 400, "invalid_request");
  }
});

test("a no-break space is not HTTP whitespace: not a separator after Bearer, not trimmed around it", async () => {
  const world = await createWorld();
  const { token } = await authorisedOrganisation(world);
  const ask = (authorization: string) => world.call("/v1/employees", { headers: { Authorization: authorization } });
  const leading = await ask(`\u00a0Bearer ${token}`);
  expect(leading.status).toBe(401);
  expect(leading.headers.get("www-authenticate")).toBe('Bearer realm="leaveapi"');
  expect((await ask(`Bearer\u00a0${token}`)).status).toBe(401);
  await expectError(await ask(`Bearer ${token}\u00a0`), 400, "invalid_request");
  expect((await ask(`Bearer \t${token}\t`)).status).toBe(200);
});

test("a scope of only a no-break space is a malformed scope name, not an empty scope", async () => {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world));
  const { res, body } = await requestToken(world, client, { scope: "\u00a0" });
  expect(res.status).toBe(400);
  expect(body).toMatchObject({ error: "invalid_scope", param: "scope" });
  expect((await requestToken(world, client, { scope: " \t" })).res.status).toBe(200);
});

test("a Basic header after a no-break space is another scheme: client authentication fails", async () => {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world));
  const res = await world.call("/v1/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `\u00a0${basicHeader(client.clientId, client.clientSecret)}` },
    body: "grant_type=client_credentials",
  });
  await expectError(res, 401, "invalid_client");
});

test("limit is decimal digits with any number of leading zeros", async () => {
  const world = await createWorld();
  const { get } = await authorisedOrganisation(world);
  expect((await get("/v1/employees?limit=0000100")).status).toBe(200);
  expect((await get(`/v1/employees?limit=${"0".repeat(50)}5`)).status).toBe(200);
  await expectError(await get("/v1/employees?limit=0000000"), 400, "invalid_request", "limit");
  await expectError(await get(`/v1/employees?limit=${"9".repeat(400)}`), 400, "invalid_request", "limit");
});

test("updated_since takes any number of fraction digits (RFC 3339), rounded up to the millisecond", async () => {
  const world = await createWorld();
  const { get } = await authorisedOrganisation(world);
  for (const since of ["2026-01-01T00:00:00.0000000000Z", "2026-01-01T00:00:00.1234567890123+02:00"]) {
    expect((await get(`/v1/employees?updated_since=${encodeURIComponent(since)}`)).status).toBe(200);
  }
});

test("parseInstantCeil rounds a long fraction up to the next millisecond only when something finer is not zero", () => {
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  expect(parseInstantCeil("2026-01-01T00:00:00.1230000000000Z")).toBe(base + 123);
  expect(parseInstantCeil("2026-01-01T00:00:00.1230000000001Z")).toBe(base + 124);
  expect(parseInstantCeil("2026-01-01T00:00:00.0001Z")).toBe(base + 1);
  expect(parseInstantCeil("2026-01-01T00:00:00.9999999999Z")).toBe(base + 1000);
  expect(parseInstantCeil("2026-01-01T00:00:00.Z")).toBeNull();
});
