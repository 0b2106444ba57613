/**
 * HMAC-SHA256 through node:crypto, which Bun, Node and Deno all have: the same bytes as
 * lib/cursor-codec.ts's pure-JavaScript one (createHandler checks that on a probe), about
 * 1 µs a cursor rather than 3 to 8. `leaveapi serve` passes it to createHandler, which
 * signs one cursor and checks another on most pages.
 */
import { createHmac } from "node:crypto";

export function nodeHmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  return createHmac("sha256", key).update(data).digest();
}
