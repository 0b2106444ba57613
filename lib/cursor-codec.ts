/**
 * Opaque, signed paging cursors (docs/api.md, "Paging, ordering and cursors").
 *
 * A cursor is base64url of `mac(16) ‖ json`, where json is `[binding, ...position]`. The
 * binding is a digest of organisation, endpoint and filters, so a cursor cannot be
 * replayed against other filters or another tenant; the HMAC-SHA256 under the
 * installation's key (kept in the store, shared by every instance) makes any edit
 * detectable. `limit` is not bound: it may change from page to page.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlDecode, base64urlEncode, utf8, utf8DecodeStrict } from "./encoding.ts";
import { constantTimeEqual } from "./credentials.ts";

const MAC_BYTES = 16;

export type CursorPosition = readonly (string | number)[];

/** What a cursor is bound to: the same values must be presented to use it. */
export interface CursorBinding {
  organisationId: string;
  endpoint: string;
  filters: Record<string, string | number | null | undefined>;
}

/**
 * Digests of the bindings seen lately: a page decodes one cursor and encodes another for
 * the same binding, and a client pages through one binding many times. Cleared when full,
 * so that it never grows with the number of different filters asked.
 */
const recentDigests = new Map<string, string>();
const RECENT_DIGESTS = 1_000;

function bindingDigest(binding: CursorBinding): string {
  const filters = Object.keys(binding.filters)
    .sort()
    .map((k) => [k, binding.filters[k] ?? null]);
  const text = JSON.stringify([binding.organisationId, binding.endpoint, filters]);
  let digest = recentDigests.get(text);
  if (digest === undefined) {
    digest = base64urlEncode(sha256(utf8(text)).subarray(0, 12));
    if (recentDigests.size >= RECENT_DIGESTS) recentDigests.clear();
    recentDigests.set(text, digest);
  }
  return digest;
}

/** HMAC-SHA256 of `data` under `key`, all 32 bytes; a cursor's tag is the first 16. */
export type HmacSha256 = (key: Uint8Array, data: Uint8Array) => Uint8Array;

/**
 * The HMAC of each key with the key already absorbed: two of the four SHA-256 blocks a
 * cursor's HMAC hashes depend on the key alone, so each cursor clones this state and
 * hashes only its own two (pure-JS HMAC was about a tenth of a page's server time).
 */
const keyedStates = new WeakMap<Uint8Array, ReturnType<typeof hmac.create>>();

/** HMAC-SHA256 in pure JavaScript (@noble/hashes), the same on every runtime: the default. */
export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  let keyed = keyedStates.get(key);
  if (!keyed) {
    keyed = hmac.create(sha256, key);
    keyedStates.set(key, keyed);
  }
  return keyed.clone().update(data).digest();
}

/** A key longer than SHA-256's block and data beyond ASCII, so that an HMAC which handles either otherwise gives itself away. */
const PROBE_KEY = Uint8Array.from({ length: 80 }, (_, i) => (i * 37 + 11) % 256);
const PROBE_DATA = utf8('["svcs_ä€😀",1]');

/**
 * `mac` once it has agreed with `hmacSha256` on a probe: a host's faster HMAC
 * (createHandler's `hmacSha256`, docs/embedding.md) that computed anything else would
 * refuse every cursor this installation made, so it is refused at set-up.
 */
export function verifiedHmacSha256(mac: HmacSha256): HmacSha256 {
  const expected = hmacSha256(PROBE_KEY, PROBE_DATA);
  const got = mac(PROBE_KEY, PROBE_DATA);
  if (got.length !== expected.length || got.some((byte, i) => byte !== expected[i])) {
    throw new Error("hmacSha256 must return the 32-byte HMAC-SHA256 of the data under the key.");
  }
  return mac;
}

export function encodeCursor(key: Uint8Array, binding: CursorBinding, position: CursorPosition, mac: HmacSha256 = hmacSha256): string {
  const payload = utf8(JSON.stringify([bindingDigest(binding), ...position]));
  const tag = mac(key, payload).subarray(0, MAC_BYTES);
  const bytes = new Uint8Array(MAC_BYTES + payload.length);
  bytes.set(tag, 0);
  bytes.set(payload, MAC_BYTES);
  return base64urlEncode(bytes);
}

/**
 * The position a cursor carries, or `null` when it was not made by this installation for
 * exactly this binding (tampered, truncated, other filters, endpoint or organisation).
 */
export function decodeCursor(key: Uint8Array, binding: CursorBinding, cursor: string, mac: HmacSha256 = hmacSha256): unknown[] | null {
  if (cursor.length > 1024) return null;
  const bytes = base64urlDecode(cursor);
  if (!bytes || bytes.length <= MAC_BYTES) return null;
  const payload = bytes.subarray(MAC_BYTES);
  const expected = base64urlEncode(mac(key, payload).subarray(0, MAC_BYTES));
  if (!constantTimeEqual(expected, base64urlEncode(bytes.subarray(0, MAC_BYTES)))) return null;
  const text = utf8DecodeStrict(payload);
  if (text === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed[0] !== bindingDigest(binding)) return null;
  return parsed.slice(1);
}
