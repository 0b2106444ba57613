import { sha256 } from "@noble/hashes/sha2.js";
import { hexEncode, utf8 } from "./encoding.ts";

/** SHA-256 of a string's UTF-8 bytes, as 64 lowercase hex digits. */
export type Sha256Hex = (text: string) => string;

/** Hex SHA-256 of a string's UTF-8 bytes: @noble/hashes, pure JavaScript, so the same on every runtime. */
export function sha256Hex(text: string): string {
  return hexEncode(sha256(utf8(text)));
}

/** Text beyond ASCII, so that a digest which does not hash UTF-8 gives itself away. */
const PROBE = "svcs_ä€😀";

/**
 * `digest` once it has agreed with `sha256Hex` on a probe: a host's faster SHA-256
 * (createHandler's `sha256Hex`, docs/embedding.md) that digested otherwise would make
 * every stored secret and token digest fail to match, so it is refused at set-up.
 */
export function verifiedSha256Hex(digest: Sha256Hex): Sha256Hex {
  if (digest(PROBE) !== sha256Hex(PROBE)) {
    throw new Error("sha256Hex must return the SHA-256 of the text's UTF-8 bytes as 64 lowercase hex digits.");
  }
  return digest;
}
