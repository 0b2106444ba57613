/**
 * POST /v1/oauth/token: how the request itself is read, before any client is looked at
 * (docs/api.md, "POST /v1/oauth/token" and "Order of checks"): content type, body encoding
 * and size, repeated and unknown parameters, and the empty query string. Each test has its
 * own world.
 */
import { describe, expect, test } from "bun:test";
import { createClient, createOrganisation, createWorld } from "./support.ts";
import { ALL, clientBasic, expectError, expectToken, postToken, type TokenPost } from "./oauth-helpers.ts";

async function worldWithClient() {
  const world = await createWorld();
  const client = await createClient(world, await createOrganisation(world));
  return { world, client };
}

/** Sends the request with the client's Basic header unless the test gives its own. */
async function send(request: TokenPost) {
  const { world, client } = await worldWithClient();
  return postToken(world, { authorization: clientBasic(client), ...request });
}

describe("content type", () => {
  test.each([
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded;charset=UTF-8",
    "application/x-www-form-urlencoded; charset=utf-8",
    "Application/X-WWW-Form-Urlencoded",
  ])("%p is accepted", async (contentType) => {
    await expectToken(await send({ contentType, body: "grant_type=client_credentials" }), ALL);
  });

  test.each([
    ["JSON", "application/json", JSON.stringify({ grant_type: "client_credentials" })],
    ["plain text", "text/plain", "grant_type=client_credentials"],
    ["a look-alike type", "application/x-www-form-urlencoded-extra", "grant_type=client_credentials"],
  ])("%s → 400 invalid_request", async (_label, contentType, body) => {
    await expectError(await send({ contentType, body }), 400, "invalid_request");
  });

  test("multipart/form-data → 400 invalid_request", async () => {
    const form = new FormData();
    form.set("grant_type", "client_credentials");
    await expectError(await send({ body: form }), 400, "invalid_request");
  });

  test("no Content-Type → 400 invalid_request", async () => {
    const res = await send({ contentType: null, body: new TextEncoder().encode("grant_type=client_credentials") });
    await expectError(res, 400, "invalid_request");
  });

  test("is checked before client authentication", async () => {
    const { world } = await worldWithClient();
    const res = await postToken(world, { contentType: "application/json", body: "{}" });
    await expectError(res, 400, "invalid_request");
  });
});

describe("body", () => {
  test.each([
    ["a bad percent escape in a value", "grant_type=client_credentials&scope=%ZZ"],
    ["a truncated escape", "grant_type=client_credentials&scope=leave%3"],
    ["a bad escape in an ignored parameter", "grant_type=client_credentials&note=100%"],
    ["percent-encoded invalid UTF-8", "grant_type=client_credentials&scope=%FF"],
  ])("%s → 400 invalid_request", async (_label, body) => {
    await expectError(await send({ body }), 400, "invalid_request");
  });

  test("raw bytes that are not UTF-8 → 400 invalid_request", async () => {
    const body = new Uint8Array([...new TextEncoder().encode("grant_type=client_credentials&x="), 0xff, 0xfe]);
    await expectError(await send({ body, contentType: "application/x-www-form-urlencoded" }), 400, "invalid_request");
  });

  test("an empty body → 400 invalid_request (grant_type missing)", async () => {
    await expectError(await send({ body: "" }), 400, "invalid_request", { param: "grant_type" });
  });

  test("exactly 4 KiB is read", async () => {
    const start = "grant_type=client_credentials&pad=";
    const body = start + "x".repeat(4096 - start.length);
    expect(new TextEncoder().encode(body).byteLength).toBe(4096);
    await expectToken(await send({ body }), ALL);
  });

  test("one byte over 4 KiB → 413 invalid_request", async () => {
    const start = "grant_type=client_credentials&pad=";
    const res = await send({ body: start + "x".repeat(4097 - start.length) });
    await expectError(res, 413, "invalid_request");
    expect(res.headers.get("pragma")).toBe("no-cache");
  });

  test("a body with a Content-Length is read whole, without opening a stream (a stream cost more than the rest of the request)", async () => {
    const { world, client } = await worldWithClient();
    const body = "grant_type=client_credentials";
    const req = new Request("http://api.example/v1/oauth/token", {
      method: "POST",
      headers: { Authorization: clientBasic(client), "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(body.length) },
      body,
    });
    let streamed = false;
    Object.defineProperty(req, "body", {
      get() {
        streamed = true;
        return null;
      },
    });
    await expectToken(await world.handler(req, { remoteAddress: "127.0.0.1" }), ALL);
    expect(streamed).toBe(false);
  });

  test("a body longer than its Content-Length claims is still measured: over 4 KiB → 413", async () => {
    const start = "grant_type=client_credentials&pad=";
    const res = await send({ body: start + "x".repeat(4097 - start.length), headers: { "Content-Length": "29" } });
    await expectError(res, 413, "invalid_request");
  });

  test("with a Content-Length: exactly 4 KiB is read, bytes that are not UTF-8 → 400", async () => {
    const start = "grant_type=client_credentials&pad=";
    const body = start + "x".repeat(4096 - start.length);
    await expectToken(await send({ body, headers: { "Content-Length": "4096" } }), ALL);
    const bad = new Uint8Array([...new TextEncoder().encode("grant_type=client_credentials&x="), 0xff, 0xfe]);
    await expectError(await send({ body: bad, headers: { "Content-Length": String(bad.byteLength) } }), 400, "invalid_request");
  });

  test("a large body is refused without credentials being looked at", async () => {
    const { world } = await worldWithClient();
    await expectError(await postToken(world, { body: `grant_type=client_credentials&pad=${"x".repeat(70_000)}` }), 413, "invalid_request");
  });
});

describe("parameters", () => {
  test.each([
    ["grant_type", "grant_type=client_credentials&grant_type=client_credentials"],
    ["grant_type", "grant_type=&grant_type=client_credentials"],
    ["scope", "grant_type=client_credentials&scope=leave%3Aread&scope=leave%3Aread"],
    ["scope", "grant_type=client_credentials&scope=&scope="],
    ["client_id", "grant_type=client_credentials&client_id=a&client_id=a"],
    ["client_secret", "grant_type=client_credentials&client_secret=a&client_secret=b"],
  ])("repeated %s → 400 invalid_request naming it", async (param, body) => {
    await expectError(await send({ body }), 400, "invalid_request", { param });
  });

  test("a repeated protocol parameter is refused before client authentication", async () => {
    const { world } = await worldWithClient();
    const res = await postToken(world, { body: "grant_type=client_credentials&grant_type=client_credentials" });
    await expectError(res, 400, "invalid_request", { param: "grant_type" });
  });

  test("unknown parameters (resource, audience) are ignored", async () => {
    const body = { grant_type: "client_credentials", resource: "https://api.example", audience: "leaveapi" };
    await expectToken(await send({ body }), ALL);
  });

  test("a repeated unknown parameter is ignored", async () => {
    await expectToken(await send({ body: "grant_type=client_credentials&resource=a&resource=b&flag&flag" }), ALL);
  });

  test("empty pairs and a parameter without = are tolerated", async () => {
    await expectToken(await send({ body: "&grant_type=client_credentials&&flag&" }), ALL);
  });

  test.each(["?foo=bar", "?grant_type=client_credentials", "?scope=leave%3Aread", "?x"])("any query parameter (%p) → 400 invalid_request", async (query) => {
    await expectError(await send({ query, body: "grant_type=client_credentials" }), 400, "invalid_request");
  });

  test("a bare ? with no parameters is no query string", async () => {
    await expectToken(await send({ query: "?", body: "grant_type=client_credentials" }), ALL);
  });
});
