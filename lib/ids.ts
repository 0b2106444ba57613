/** UUIDs: validation, and the deterministic UUIDv5 an import derives from a source system's id. */
import { sha1 } from "@noble/hashes/legacy.js";
import { utf8Into } from "./encoding.ts";

export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}

function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replaceAll("-", "");
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");
const uuidText = new Uint8Array(36);
uuidText[8] = uuidText[13] = uuidText[18] = uuidText[23] = 0x2d;
/** Where each byte's two hex digits go in the 36 characters of a UUID. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const ascii = new TextDecoder();

/** The UUID of 16 bytes, written as ASCII and decoded once: several times faster than joining 16 hex pairs. */
function formatUuid(bytes: Uint8Array): string {
  for (let i = 0; i < 16; i++) {
    const byte = bytes[i]!;
    uuidText[DIGIT_AT[i]!] = HEX_DIGITS[byte >> 4]!;
    uuidText[DIGIT_AT[i]! + 1] = HEX_DIGITS[byte & 15]!;
  }
  return ascii.decode(uuidText);
}

// An import derives ids under one namespace (its organisation) row after row: its bytes
// are kept rather than parsed again for every id, and the message buffer is reused.
let lastNamespace: { uuid: string; bytes: Uint8Array } = { uuid: "", bytes: new Uint8Array(16) };
let message = new Uint8Array(128);

/** SHA-1 of some bytes: `@noble/hashes`' by default; a caller on a runtime with a native one may pass it. */
export type Sha1 = (bytes: Uint8Array) => Uint8Array;

/** RFC 9562 UUIDv5 (SHA-1, name-based) of `name` in the namespace `namespace`. */
export function uuidV5(namespace: string, name: string, hash: Sha1 = sha1): string {
  if (lastNamespace.uuid !== namespace) lastNamespace = { uuid: namespace, bytes: uuidBytes(namespace) };
  // UTF-8 takes at most three bytes per UTF-16 code unit.
  if (message.length < 16 + name.length * 3) message = new Uint8Array(16 + name.length * 3);
  message.set(lastNamespace.bytes, 0);
  const { written } = utf8Into(name, message.subarray(16));
  const bytes = hash(message.subarray(0, 16 + written));
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/**
 * The id of a record known only by its source system's id: UUIDv5 under the
 * organisation, so re-importing the same record updates it instead of duplicating it.
 * `kind` keeps an employee and a booking with the same external id apart.
 */
export function derivedId(organisationId: string, kind: "employee" | "leave" | "leave_type" | "closure", externalId: string, hash?: Sha1): string {
  return uuidV5(organisationId.toLowerCase(), `${kind}:${externalId}`, hash);
}

/** A random (v4) UUID from the platform CSPRNG. */
export function randomUuid(): string {
  return crypto.randomUUID();
}
