/** UUIDs: validation, and the deterministic UUIDv5 an import derives from a source system's id. */
import { sha1 } from "@noble/hashes/legacy.js";
import { hexEncode, utf8 } from "./encoding.ts";

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

function formatUuid(bytes: Uint8Array): string {
  const h = hexEncode(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** RFC 9562 UUIDv5 (SHA-1, name-based) of `name` in the namespace `namespace`. */
export function uuidV5(namespace: string, name: string): string {
  const ns = uuidBytes(namespace);
  const data = utf8(name);
  const input = new Uint8Array(ns.length + data.length);
  input.set(ns, 0);
  input.set(data, ns.length);
  const bytes = sha1(input).subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/**
 * The id of a record known only by its source system's id: UUIDv5 under the
 * organisation, so re-importing the same record updates it instead of duplicating it.
 * `kind` keeps an employee and a booking with the same external id apart.
 */
export function derivedId(organisationId: string, kind: "employee" | "leave" | "leave_type" | "closure", externalId: string): string {
  return uuidV5(organisationId.toLowerCase(), `${kind}:${externalId}`);
}

/** A random (v4) UUID from the platform CSPRNG. */
export function randomUuid(): string {
  return crypto.randomUUID();
}
