/**
 * Client credentials and access tokens: minting, digests and comparison.
 *
 * Secrets and tokens carry 256 bits from the platform CSPRNG, so a fast SHA-256 digest is
 * as strong as a slow password hash would be and lets a token be found by its digest.
 * Only digests are stored; a secret is shown once, when minted.
 */
import { base64urlEncode, hexEncode } from "./encoding.ts";
import { sha256Hex } from "./digest.ts";

export const CLIENT_ID_PATTERN = /^svcc_[0-9a-f]{24}$/;
export const CLIENT_SECRET_PATTERN = /^svcs_[A-Za-z0-9_-]{43}$/;
export const ACCESS_TOKEN_PATTERN = /^svct_[A-Za-z0-9_-]{43}$/;

/** Seconds an access token lives (docs/api.md, "Using a token"). */
export const TOKEN_LIFETIME_SECONDS = 3600;

export type RandomBytes = (length: number) => Uint8Array;

/** The platform CSPRNG (Web Crypto), available on Bun, Deno and Node alike. */
export const cryptoRandomBytes: RandomBytes = (length) => crypto.getRandomValues(new Uint8Array(length));

export function mintClientId(random: RandomBytes = cryptoRandomBytes): string {
  return `svcc_${hexEncode(random(12))}`;
}

export function mintClientSecret(random: RandomBytes = cryptoRandomBytes): string {
  return `svcs_${base64urlEncode(random(32))}`;
}

export function mintAccessToken(random: RandomBytes = cryptoRandomBytes): string {
  return `svct_${base64urlEncode(random(32))}`;
}

/** Hex SHA-256 of a secret or token: what the store keeps and looks tokens up by. */
export function digestSecret(secret: string): string {
  return sha256Hex(secret);
}

/**
 * Compares two strings in time that depends only on their lengths. Used on digests,
 * which always have the same length, so nothing about the stored value leaks.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  // UTF-16 code units, compared as they are: encoding both to bytes first cost more than
  // the rest of the compare, twice per token request. Past a string's end charCodeAt is
  // NaN, which a bitwise operator takes as 0, so no branch is needed there.
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A digest that matches no secret: compared against when a client id is unknown, so timing does not tell. */
export const DUMMY_SECRET_DIGEST = digestSecret("svcs_no-such-client-dummy-value-for-constant-time");

/** A new client's stored record and its secret, which is shown once and never stored. */
export function mintClient<S extends string>(organisationId: string, scopes: S[], name: string | null, now: number, random: RandomBytes = cryptoRandomBytes) {
  const secret = mintClientSecret(random);
  return {
    secret,
    client: {
      client_id: mintClientId(random),
      organisation_id: organisationId,
      name,
      scopes,
      created_at: now,
      revoked_at: null,
      secret_digest: digestSecret(secret),
    },
  };
}
