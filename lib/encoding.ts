/** Byte and text encodings used by credentials and cursors; plain functions over Uint8Array. */

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64URL_INDEX = new Map([...B64URL].map((ch, i) => [ch, i]));

/** base64url without padding (RFC 4648 §5). */
export function base64urlEncode(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!;
  }
  return out;
}

/** Strict base64url decoding without padding; `null` for anything else. */
export function base64urlDecode(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (const ch of text) {
    const v = B64URL_INDEX.get(ch);
    if (v === undefined) return null;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  // Non-zero leftover bits mean a non-canonical encoding: refuse it so one cursor has one spelling.
  if ((value & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/** Standard base64 with padding (RFC 4648 §4), as the Standard Webhooks secrets and signatures are written. */
export function base64Encode(bytes: Uint8Array): string {
  const url = base64urlEncode(bytes).replaceAll("-", "+").replaceAll("_", "/");
  return url + "=".repeat((4 - (url.length % 4)) % 4);
}

/** Standard base64 (with or without padding) as used by HTTP Basic; `null` when malformed. */
export function base64Decode(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return null;
  const unpadded = text.replace(/=+$/, "");
  if (text.length % 4 !== 0 && text.length !== unpadded.length) return null;
  return base64urlDecode(unpadded.replaceAll("+", "-").replaceAll("/", "_"));
}

const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lower-case hex; a table lookup per byte, since digests are hexed on every request. */
export function hexEncode(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTES[bytes[i]!];
  return out;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Encodes `text` into `target`, which must have room for it (three bytes per UTF-16 code unit always do). */
export function utf8Into(text: string, target: Uint8Array): { read: number; written: number } {
  return encoder.encodeInto(text, target);
}

/** UTF-8 decoding that refuses invalid byte sequences (`null`) instead of inventing U+FFFD. */
export function utf8DecodeStrict(bytes: Uint8Array): string | null {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * application/x-www-form-urlencoded decoding of one name or value: `+` is a space, then
 * percent-decoding as UTF-8. `null` for a malformed escape or invalid UTF-8, which
 * `URLSearchParams` would silently pass through.
 */
export function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return null;
  }
}
