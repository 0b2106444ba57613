/**
 * Conditional reads (docs/api.md, "Conditional reads"): the `ETag` of a data answer and
 * the `If-None-Match` test, so that a client polling an unchanged organisation is answered
 * 304 without its page being read or its read budget spent.
 *
 * A tag is not a digest of the body, which would need the page read: it is a keyed
 * SHA-256, under a key derived from the installation's, of everything the body depends on. The store's
 * data version of the organisation (lib/store.ts, `dataVersion`: it changes with every
 * import that writes to it), the request's path and every query parameter as sent (cursor
 * and limit included), the client and its restriction as the grant carries it now
 * (`set_at` included), and what the server itself brings (`representation`: the field
 * lists, the release and its shipped holiday data). Nothing else goes into a body but the
 * clock, whose one effect on an answer (the deletions feed's 410 once `updated_since`
 * falls behind its horizon) is checked before a 304 is given. Keyed, so that a tag
 * tells nobody anything about the data or whether two organisations' are alike.
 *
 * SHA-256 of the key and the inputs rather than an HMAC: a 304 is answered at a few times
 * a constant page's cost, and node:crypto's one-shot hash costs a fraction of its HMAC
 * object. What an HMAC adds, resistance to length extension, protects nothing here: a
 * tag is only ever compared with the one the server computes for the same request, whose
 * JSON text no extension (padding bytes, which JSON escapes) could ever equal.
 */
import { type HmacSha256, hmacSha256 } from "./cursor-codec.ts";
import { sha256Hex as pureSha256Hex, type Sha256Hex } from "./digest.ts";
import { hexEncode, utf8 } from "./encoding.ts";
import { EMPLOYEE_FIELDS, HOLIDAY_ENTRY_FIELDS, LEAVE_BOOKING_FIELDS, apiKeys } from "./record-fields.ts";
import type { CredentialRestriction } from "./restriction.ts";

/**
 * What the bodies are made with on the server's side, beside the data: the v1 field lists.
 * A host adds its release (createHandler's `representation`), which names the shipped
 * holiday dataset too, so that an upgrade changes every tag.
 */
export const FIELD_LISTS = JSON.stringify([apiKeys(EMPLOYEE_FIELDS), apiKeys(LEAVE_BOOKING_FIELDS), apiKeys(HOLIDAY_ENTRY_FIELDS)]);

/** Everything a data answer's body depends on, beside the store's data. */
export interface TaggedRequest {
  organisationId: string;
  clientId: string;
  restriction: CredentialRestriction | undefined;
  /** The path as requested and its query, parameter by parameter as sent. */
  url: URL;
}

/** The tag key, as hex: derived from the installation's, so that nothing a tag is made from is ever a cursor's key. */
const tagKeys = new WeakMap<Uint8Array, string>();

function tagKeyOf(installationKey: Uint8Array, mac: HmacSha256): string {
  let key = tagKeys.get(installationKey);
  if (key === undefined) {
    key = hexEncode(mac(installationKey, utf8("leaveapi conditional reads")));
    tagKeys.set(installationKey, key);
  }
  return key;
}

/** How a tag is hashed and its key derived: createHandler's SHA-256 and HMAC, pure JavaScript by default. */
export interface TagHashes {
  sha256Hex?: Sha256Hex;
  mac?: HmacSha256;
}

/**
 * The answer's ETag, weak (`W/"…"`). Weak because it names the data the body shows, not
 * the body's bytes (RFC 9110 §8.8.1): the same page is sent identity-, gzip- or br-coded
 * under one tag, and a strong tag must differ between content codings (§8.8.3); nor are
 * two codings of one page byte for byte the same across hosts. If-None-Match compares
 * weakly anyway (§13.1.2), so a weak tag loses nothing a client can use.
 */
export function entityTag(installationKey: Uint8Array, dataVersion: string, request: TaggedRequest, representation: string, hashes: TagHashes = {}): string {
  const { url, restriction } = request;
  const key = tagKeyOf(installationKey, hashes.mac ?? hmacSha256);
  // The query as sent: a client repeats its own URL, and the same parameters in another
  // order only make another tag (a 200 where a 304 could have been), never a wrong one.
  const payload = JSON.stringify([key, representation, request.organisationId, request.clientId, restriction ?? null, dataVersion, url.pathname, url.search]);
  return `W/"${(hashes.sha256Hex ?? pureSha256Hex)(payload).slice(0, 32)}"`;
}

/** What an If-None-Match header asks: nothing (absent or no tag in it), any current answer (`*`), or these tags' opaque parts. */
export type IfNoneMatch = { kind: "none" } | { kind: "any" } | { kind: "tags"; opaque: Set<string> };

/** One entity-tag of RFC 9110 §8.8.3: an optional `W/`, then a quoted string of etagc characters. */
const ENTITY_TAG = /^(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")$/;

/**
 * The header read as RFC 9110 §13.1.2 says: `*`, or a list of entity-tags. A member that is
 * not an entity-tag is passed over (it can match nothing), so a malformed header is one
 * that matches nothing, and the full answer is sent.
 */
export function parseIfNoneMatch(header: string | null): IfNoneMatch {
  if (header === null) return { kind: "none" };
  const trimmed = header.trim();
  if (trimmed === "*") return { kind: "any" };
  const opaque = new Set<string>();
  for (const member of trimmed.split(",")) {
    const tag = ENTITY_TAG.exec(member.trim());
    if (tag) opaque.add(tag[1]!);
  }
  return opaque.size === 0 ? { kind: "none" } : { kind: "tags", opaque };
}

/** Weak comparison (RFC 9110 §8.8.3.2): whether `tag` is among those asked, `W/` aside. */
export function matchesWeakly(asked: IfNoneMatch, tag: string): boolean {
  return asked.kind === "tags" && asked.opaque.has(tag.startsWith("W/") ? tag.slice(2) : tag);
}
