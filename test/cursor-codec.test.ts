/**
 * The cursor codec (lib/cursor-codec.ts, docs/api.md "Paging, ordering and cursors"): a
 * cursor is base64url of the first 16 bytes of HMAC-SHA256(key, payload) and the payload.
 * The codec keeps each key's HMAC state and recent binding digests between cursors; this
 * holds its cursors to the plain HMAC whatever the order of keys and bindings used.
 */
import { expect, test } from "bun:test";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createHmac } from "node:crypto";
import { decodeCursor, encodeCursor, verifiedHmacSha256, type CursorBinding } from "../lib/cursor-codec.ts";
import { base64urlDecode } from "../lib/encoding.ts";

const keyA = new Uint8Array(32).fill(7);
const keyB = new Uint8Array(32).fill(9);
const binding = (organisationId: string, status?: string): CursorBinding => ({
  organisationId,
  endpoint: "employees",
  filters: { status, updated_since: undefined },
});

test("every cursor carries the plain HMAC of its payload, across keys and bindings in any order", () => {
  const made: [Uint8Array, string][] = [];
  for (let i = 0; i < 50; i++) {
    const key = i % 3 === 0 ? keyB : keyA;
    made.push([key, encodeCursor(key, binding(`org-${i % 4}`, i % 2 ? "active" : undefined), [1_700_000_000_000 + i, `id-${i}`])]);
  }
  for (const [key, cursor] of made) {
    const bytes = base64urlDecode(cursor)!;
    const payload = bytes.subarray(16);
    expect([...bytes.subarray(0, 16)]).toEqual([...hmac(sha256, key, payload).subarray(0, 16)]);
  }
});

test("a cursor decodes under its key and binding only", () => {
  const cursor = encodeCursor(keyA, binding("org-1", "active"), [42, "abc"]);
  expect(decodeCursor(keyA, binding("org-1", "active"), cursor)).toEqual([42, "abc"]);
  expect(decodeCursor(keyB, binding("org-1", "active"), cursor)).toBeNull();
  expect(decodeCursor(keyA, binding("org-2", "active"), cursor)).toBeNull();
  expect(decodeCursor(keyA, binding("org-1"), cursor)).toBeNull();
  // The same again after other keys and bindings went through the codec's caches.
  encodeCursor(keyB, binding("org-9"), [1, "x"]);
  expect(decodeCursor(keyA, binding("org-1", "active"), cursor)).toEqual([42, "abc"]);
});

test("a host's HMAC is taken only when it is HMAC-SHA256: cursors are then the same bytes, and decode either way", () => {
  const native = (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac("sha256", key).update(data).digest());
  expect(verifiedHmacSha256(native)).toBe(native);
  const position = [1_700_000_000_000, "0b8f2c1e-3a4b-4c5d-8e9f-0a1b2c3d4e5f"];
  const made = encodeCursor(keyA, binding("org-1"), position, native);
  expect(made).toBe(encodeCursor(keyA, binding("org-1"), position));
  expect(decodeCursor(keyA, binding("org-1"), made)).toEqual(position);
  expect(decodeCursor(keyA, binding("org-1"), encodeCursor(keyA, binding("org-1"), position), native)).toEqual(position);
  // An HMAC of another hash, one that mishandles keys longer than a block, and one cut short.
  for (const wrong of [
    (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac("sha512", key).update(data).digest().subarray(0, 32)),
    (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac("sha256", key.subarray(0, 64)).update(data).digest()),
    (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac("sha256", key).update(data).digest().subarray(0, 16)),
  ]) {
    expect(() => verifiedHmacSha256(wrong)).toThrow("hmacSha256 must return the 32-byte HMAC-SHA256");
  }
});
