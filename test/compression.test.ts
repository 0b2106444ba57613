/**
 * Content coding (docs/api.md, "HTTP behaviour", "Compression"), through the handler:
 * which coding a request's Accept-Encoding gets, the headers, that a coded body decodes to
 * the plain one, HEAD, and the docs script's ETag and 304.
 */
import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { COMPRESS_MIN_BYTES, chooseCoding, type Encoders } from "../server/compression.ts";
import { SERVE_ENCODERS } from "../adapters/zlib-encoders.ts";
import { authorisedOrganisation, createWorld, employee, seed } from "./support.ts";

const BOTH = ["gzip", "br"] as const;

describe("chooseCoding", () => {
  test.each([
    [null, "identity", false],
    ["", "identity", false],
    ["gzip", "gzip", false],
    ["GZIP", "gzip", false],
    ["br", "br", false],
    ["gzip, br", "gzip", false],
    ["br, gzip", "gzip", false],
    ["gzip;q=0.5, br", "br", false],
    ["br;q=0.9, gzip;q=0.8", "br", false],
    ["gzip;q=0, br;q=0", "identity", false],
    ["gzip;q=0", "identity", false],
    ["*", "gzip", false],
    ["*;q=0.5, gzip;q=0", "br", false],
    ["deflate, zstd", "identity", false],
    ["identity;q=0, gzip", "gzip", true],
    ["identity;q=0", "identity", true],
    ["*;q=0", "identity", true],
    ["*;q=0, identity", "identity", false],
    ["identity, gzip;q=0.5", "identity", false],
    ["gzip;q=0.5, identity;q=0.5", "gzip", false],
    ["gzip;q=garbage", "gzip", false],
    ["gzip;q=0.000", "identity", false],
    [" gzip ; q=1 , br ; q=0.1 ", "gzip", false],
  ] as const)("%p → %s", (header, coding, identityRefused) => {
    expect(chooseCoding(header, BOTH)).toEqual({ coding, identityRefused });
  });

  test("only what the host offers is chosen", () => {
    expect(chooseCoding("br", ["gzip"]).coding).toBe("identity");
    expect(chooseCoding("br, gzip;q=0.1", ["gzip"]).coding).toBe("gzip");
    expect(chooseCoding("gzip", []).coding).toBe("identity");
  });
});

/** A world with enough employees that a page is well over the size floor, and a GET helper that names its coding. */
async function worldWithPage(encoders?: Encoders) {
  const world = await createWorld(encoders ? { encoders } : {});
  const { organisationId, token } = await authorisedOrganisation(world);
  await seed(world, organisationId, { employees: Array.from({ length: 30 }, (_, i) => employee({ first_name: `Person${i}` })) });
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    world.call(path, { method, headers: { Authorization: `Bearer ${token}`, ...headers } });
  return { world, get };
}

const decode = (coding: string | null, bytes: Uint8Array) =>
  new TextDecoder().decode(coding === "gzip" ? gunzipSync(bytes) : coding === "br" ? brotliDecompressSync(bytes) : bytes);

describe("JSON answers", () => {
  test("gzip and br when asked: Content-Encoding, Content-Length, Vary, and the bytes decode to the plain body", async () => {
    const { get } = await worldWithPage(SERVE_ENCODERS);
    const plainRes = await get("/v1/employees?limit=30");
    expect(plainRes.headers.get("content-encoding")).toBeNull();
    expect(plainRes.headers.get("vary")).toBe("Accept-Encoding");
    const plain = await plainRes.text();
    expect(plain.length).toBeGreaterThan(COMPRESS_MIN_BYTES * 4);
    for (const coding of BOTH) {
      const res = await get("/v1/employees?limit=30", { "Accept-Encoding": coding });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe(coding);
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("no-store");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(res.headers.get("content-length")).toBe(String(bytes.byteLength));
      expect(bytes.byteLength * 3).toBeLessThan(plain.length);
      const { next_cursor: _a, ...decoded } = JSON.parse(decode(coding, bytes));
      const { next_cursor: _b, ...expected } = JSON.parse(plain);
      expect(decoded).toEqual(expected);
    }
  });

  test("serve's gzip of a page is no larger than zlib's level 2 would write (libdeflate level 1 on Bun), and decodes to it", async () => {
    const { get } = await worldWithPage(SERVE_ENCODERS);
    const plain = new Uint8Array(await (await get("/v1/employees?limit=30")).arrayBuffer());
    const coded = await SERVE_ENCODERS.gzip!(plain);
    expect(gunzipSync(coded)).toEqual(Buffer.from(plain));
    // zlib's level 1, as fast, writes about a third more for such a page.
    expect(coded.byteLength).toBeLessThanOrEqual(Math.ceil(gzipSync(plain, { level: 2 }).byteLength * 1.02));
  });

  test("the same request decodes to exactly the plain bytes", async () => {
    const { get } = await worldWithPage(SERVE_ENCODERS);
    const path = "/v1/holidays?from=2026-01-01&to=2026-12-31&calendar=DE-BY";
    const plain = await (await get(path)).text();
    expect(plain.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    for (const coding of BOTH) {
      const res = await get(path, { "Accept-Encoding": coding });
      expect(res.headers.get("content-encoding")).toBe(coding);
      expect(decode(coding, new Uint8Array(await res.arrayBuffer()))).toBe(plain);
    }
  });

  test("by default (no host encoders) gzip only: a br-only client gets the plain body", async () => {
    const { get } = await worldWithPage();
    expect((await get("/v1/employees", { "Accept-Encoding": "gzip" })).headers.get("content-encoding")).toBe("gzip");
    const res = await get("/v1/employees", { "Accept-Encoding": "br" });
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    expect(JSON.parse(await res.text()).data.length).toBe(30);
  });

  test("q-values: a refused coding is never sent, a preferred one is", async () => {
    const { get } = await worldWithPage(SERVE_ENCODERS);
    const codingFor = async (accept: string) => (await get("/v1/employees", { "Accept-Encoding": accept })).headers.get("content-encoding");
    expect(await codingFor("gzip;q=0, br;q=0.5")).toBe("br");
    expect(await codingFor("gzip;q=0.4, br;q=0.5")).toBe("br");
    expect(await codingFor("br;q=0, gzip;q=0.1")).toBe("gzip");
    expect(await codingFor("br;q=0, gzip;q=0")).toBeNull();
    expect(await codingFor("identity, gzip;q=0.2")).toBeNull();
  });

  test("tiny answers and errors go uncoded; with identity;q=0 even they are coded", async () => {
    const { world, get } = await worldWithPage(SERVE_ENCODERS);
    for (const res of [
      await get("/v1/employees?limit=0", { "Accept-Encoding": "gzip" }),
      await world.call("/v1/employees", { headers: { "Accept-Encoding": "gzip, br" } }),
      await world.call("/healthz", { headers: { "Accept-Encoding": "gzip" } }),
    ]) {
      expect(res.headers.get("content-encoding")).toBeNull();
      expect(typeof JSON.parse(await res.text())).toBe("object");
    }
    const refused = await get("/v1/employees?limit=0", { "Accept-Encoding": "identity;q=0, gzip" });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(decode("gzip", new Uint8Array(await refused.arrayBuffer()))).error).toBe("invalid_request");
    // A data page coded straight from its text (codedJson) follows the same rules.
    const small = await get("/v1/employees?limit=1", { "Accept-Encoding": "gzip" });
    expect([small.headers.get("content-encoding"), small.headers.get("vary")]).toEqual([null, "Accept-Encoding"]);
    expect(JSON.parse(await small.text()).data).toHaveLength(1);
    const smallRefused = await get("/v1/employees?limit=1", { "Accept-Encoding": "identity;q=0, gzip" });
    expect(smallRefused.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(decode("gzip", new Uint8Array(await smallRefused.arrayBuffer()))).data).toHaveLength(1);
  });

  test("HEAD carries the headers GET would, coded length included, and no body", async () => {
    const { get } = await worldWithPage(SERVE_ENCODERS);
    for (const coding of BOTH) {
      const headers = { "Accept-Encoding": coding };
      const full = await get("/v1/employees", headers);
      const length = (await full.arrayBuffer()).byteLength;
      const head = await get("/v1/employees", headers, "HEAD");
      expect(head.status).toBe(200);
      expect(head.headers.get("content-encoding")).toBe(coding);
      expect(head.headers.get("content-length")).toBe(String(length));
      expect(head.headers.get("vary")).toBe("Accept-Encoding");
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  });

  test("a coding that fails sends the plain body", async () => {
    const failing: Encoders = { gzip: () => Promise.reject(new Error("no")) };
    const { get } = await worldWithPage(failing);
    const res = await get("/v1/employees", { "Accept-Encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(JSON.parse(await res.text()).data.length).toBe(30);
  });
});

describe("the docs script", () => {
  test("coded as asked, revalidated by ETag: 304 without a body, one tag per coding", async () => {
    const world = await createWorld({ encoders: SERVE_ENCODERS });
    const plain = await world.call("/docs/api-reference.js");
    const etag = plain.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(plain.headers.get("cache-control")).toBe("no-cache");
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(3_000_000);

    const gz = await world.call("/docs/api-reference.js", { headers: { "Accept-Encoding": "gzip" } });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("etag")).toBe(`${etag.slice(0, -1)}-gzip"`);
    const bytes = new Uint8Array(await gz.arrayBuffer());
    expect(gz.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(bytes.byteLength * 3).toBeLessThan(text.length);
    expect(decode("gzip", bytes)).toBe(text);

    const again = await world.call("/docs/api-reference.js", { headers: { "Accept-Encoding": "gzip", "If-None-Match": gz.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(gz.headers.get("etag"));
    expect(again.headers.get("cache-control")).toBe("no-cache");
    expect(again.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await again.arrayBuffer()).byteLength).toBe(0);

    // A tag of another coding, or of another build, is no match.
    expect((await world.call("/docs/api-reference.js", { headers: { "If-None-Match": gz.headers.get("etag")! } })).status).toBe(200);
    expect((await world.call("/docs/api-reference.js", { headers: { "If-None-Match": '"0000"' } })).status).toBe(200);
    expect((await world.call("/docs/api-reference.js", { headers: { "If-None-Match": `"x", W/${etag}` } })).status).toBe(304);

    const head = await world.call("/docs/api-reference.js", { method: "HEAD", headers: { "Accept-Encoding": "gzip" } });
    expect(head.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(head.headers.get("etag")).toBe(gz.headers.get("etag"));
  });
});
