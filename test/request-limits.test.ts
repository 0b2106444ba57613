/**
 * What a request may cost, through the handler (server/request-limits.ts, issue 8): a URL
 * over 8 KiB is 414 and headers over 8 KiB in all are 431, each with the JSON error body,
 * before any other check; a token request whose body breaks off is a 400, not a 500.
 * The same limits on a real `leaveapi serve`, and the idle timeouts: request-limits.e2e.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from "../server/request-limits.ts";
import type { RequestLogEntry } from "../server/handler.ts";
import { authorisedOrganisation, createWorld } from "./support.ts";
import { expectError } from "./data-fixtures.ts";

/** `/v1/employees?x=…` of exactly `bytes` bytes of path and query. */
const urlOf = (bytes: number) => `/v1/employees?x=${"a".repeat(bytes - "/v1/employees?x=".length)}`;

/** Headers totalling exactly `bytes`, counted as `name: value\r\n`, besides Authorization. */
function paddedHeaders(bytes: number, authorization: string): Record<string, string> {
  const base = "authorization".length + authorization.length + 4;
  return { Authorization: authorization, "X-Pad": "p".repeat(bytes - base - "x-pad".length - 4) };
}

describe("URL size", () => {
  test(`a URL of ${MAX_URL_BYTES} bytes is read; one byte more is 414 with the JSON error, before authentication`, async () => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world);
    await expectError(await get(urlOf(MAX_URL_BYTES)), 400, "invalid_request", "x");
    const res = await world.call(urlOf(MAX_URL_BYTES + 1));
    expect(res.headers.get("cache-control")).toBe("no-store");
    await expectError(res, 414, "invalid_request");
  });

  test("a long URL is refused before the URL-credentials check, and logged without its path", async () => {
    const entries: RequestLogEntry[] = [];
    const world = await createWorld({ log: (e) => entries.push(e) });
    await expectError(await world.call(`/v1/svct_${"A".repeat(MAX_URL_BYTES)}`), 414, "invalid_request");
    expect(entries.map((e) => [e.route, e.status, e.level])).toEqual([["[uri too long]", 414, "info"]]);
  });

  test("non-ASCII counts as the percent-encoded bytes sent", async () => {
    const world = await createWorld();
    // "é" is sent as %C3%A9: six bytes each.
    const res = await world.call(`/v1/employees?x=${"é".repeat(Math.ceil(MAX_URL_BYTES / 6))}`);
    await expectError(res, 414, "invalid_request");
  });

  test("HEAD gets the status and headers without a body", async () => {
    const world = await createWorld();
    const res = await world.call(urlOf(MAX_URL_BYTES + 1), { method: "HEAD" });
    expect(res.status).toBe(414);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe("");
  });
});

describe("header size", () => {
  test(`headers of ${MAX_HEADER_BYTES} bytes in all are read; one byte more is 431 with the JSON error`, async () => {
    const world = await createWorld();
    const { token } = await authorisedOrganisation(world);
    const bearer = `Bearer ${token}`;
    expect((await world.call("/v1/employees", { headers: paddedHeaders(MAX_HEADER_BYTES, bearer) })).status).toBe(200);
    await expectError(await world.call("/v1/employees", { headers: paddedHeaders(MAX_HEADER_BYTES + 1, bearer) }), 431, "invalid_request");
  });

  test("many small headers count as much as one large one", async () => {
    const world = await createWorld();
    const headers = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-h${i}`, "v".repeat(20)]));
    await expectError(await world.call("/healthz", { headers }), 431, "invalid_request");
  });
});

describe("a token request body that breaks off", () => {
  test("is answered 400 invalid_request and logged at info, not as a server error", async () => {
    const entries: RequestLogEntry[] = [];
    const world = await createWorld({ log: (e) => entries.push(e) });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("grant_type=client_"));
        controller.error(new DOMException("The connection was closed.", "AbortError"));
      },
    });
    const res = await world.call("/v1/oauth/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
    await expectError(res, 400, "invalid_request");
    expect(entries.map((e) => [e.status, e.level, e.error])).toEqual([[400, "info", undefined]]);
  });
});
