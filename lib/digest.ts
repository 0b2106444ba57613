import { sha256 } from "@noble/hashes/sha2.js";
import { hexEncode, utf8 } from "./encoding.ts";

/** Hex SHA-256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return hexEncode(sha256(utf8(text)));
}
