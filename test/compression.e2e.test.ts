/**
 * Content coding over a real socket to `leaveapi serve` (docs/api.md, "HTTP behaviour"):
 * gzip and br as asked, the coded bytes on the wire decode to the plain body, HEAD's
 * headers match GET's, and the docs script revalidates to a 304.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startServer, type RunningServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let provisioned: Provisioned;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  provisioned = await provisionDatabase("compression.sqlite");
  server = await startServer(provisioned.db);
  token = await fetchToken(server.baseUrl, provisioned);
});

afterAll(async () => {
  await server?.stop();
  provisioned?.dispose();
});

/** The bytes as they crossed the socket: Bun's fetch is told not to decode them. */
async function raw(path: string, headers: Record<string, string>, method = "GET") {
  const res = await fetch(server.baseUrl + path, { method, headers, decompress: false } as RequestInit);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const decode = (coding: string | null, bytes: Uint8Array) =>
  new TextDecoder().decode(coding === "gzip" ? gunzipSync(bytes) : coding === "br" ? brotliDecompressSync(bytes) : bytes);

test("a page is sent gzip- or br-coded as asked, and decodes to the plain body", async () => {
  const auth = { Authorization: `Bearer ${token}` };
  const path = "/v1/holidays?from=2026-01-01&to=2026-12-31&calendar=DE-BY";
  const plain = await raw(path, { ...auth, "Accept-Encoding": "identity" });
  expect(plain.res.headers.get("content-encoding")).toBeNull();
  expect(plain.res.headers.get("vary")).toBe("Accept-Encoding");
  const text = decode(null, plain.bytes);
  expect(text.length).toBeGreaterThan(1024);
  for (const coding of ["gzip", "br"]) {
    const coded = await raw(path, { ...auth, "Accept-Encoding": coding });
    expect(coded.res.status).toBe(200);
    expect(coded.res.headers.get("content-encoding")).toBe(coding);
    expect(coded.res.headers.get("content-length")).toBe(String(coded.bytes.byteLength));
    expect(coded.bytes.byteLength).toBeLessThan(plain.bytes.byteLength);
    expect(decode(coding, coded.bytes)).toBe(text);

    const head = await raw(path, { ...auth, "Accept-Encoding": coding }, "HEAD");
    expect(head.bytes.byteLength).toBe(0);
    expect(head.res.headers.get("content-encoding")).toBe(coding);
    expect(head.res.headers.get("content-length")).toBe(String(coded.bytes.byteLength));
  }
});

test("a small error is never coded", async () => {
  const { res, bytes } = await raw("/v1/employees", { "Accept-Encoding": "gzip, br" });
  expect(res.status).toBe(401);
  expect(res.headers.get("content-encoding")).toBeNull();
  expect(JSON.parse(decode(null, bytes)).error).toBe("invalid_token");
});

test("the docs script: gzip on the wire, an ETag, and a 304 when the client has it", async () => {
  const first = await raw("/docs/api-reference.js", { "Accept-Encoding": "gzip, deflate, br" });
  expect(first.res.status).toBe(200);
  const coding = first.res.headers.get("content-encoding");
  expect(coding === "gzip" || coding === "br").toBe(true);
  expect(first.res.headers.get("cache-control")).toBe("no-cache");
  expect(first.bytes.byteLength).toBeLessThan(1_500_000);
  expect(decode(coding, first.bytes).length).toBeGreaterThan(3_000_000);
  const etag = first.res.headers.get("etag")!;
  const again = await raw("/docs/api-reference.js", { "Accept-Encoding": "gzip, deflate, br", "If-None-Match": etag });
  expect(again.res.status).toBe(304);
  expect(again.bytes.byteLength).toBe(0);
  expect(again.res.headers.get("etag")).toBe(etag);
});
