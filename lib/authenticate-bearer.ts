/**
 * Authenticating a data request's bearer token (RFC 6750; docs/api.md, "Statuses and
 * codes"): the grant behind the token, live and holding the scope the endpoint needs.
 * Reading the token from the Authorization header, and the `WWW-Authenticate` challenge
 * that goes with each refusal, are the server's.
 */
import { ApiError } from "./errors.ts";
import { ACCESS_TOKEN_PATTERN, digestSecret } from "./credentials.ts";
import type { AccessTokenGrant, Store } from "./store.ts";
import type { Scope } from "./scopes.ts";
import type { Sha256Hex } from "./digest.ts";

/**
 * The grant behind `token` at `now`, when it holds `scope`. Throws 401 `invalid_token`
 * for a token that is not one of ours, unknown, revoked or expired, and 403
 * `insufficient_scope` for a live token without `scope`.
 */
export async function authenticateBearer(
  store: Pick<Store, "findToken">,
  token: string,
  scope: Scope,
  now: number,
  digest: Sha256Hex = digestSecret,
): Promise<AccessTokenGrant> {
  const invalid = () => new ApiError(401, "invalid_token", "The access token is invalid, expired or revoked; request a new token.");
  // Not shaped like a token we mint: no store lookup for it.
  if (!ACCESS_TOKEN_PATTERN.test(token)) throw invalid();
  const grant = await store.findToken(digest(token));
  if (!grant || now >= grant.expires_at) throw invalid();
  if (!grant.scopes.includes(scope)) {
    throw new ApiError(403, "insufficient_scope", `This endpoint needs the scope '${scope}', which the token was not granted.`);
  }
  return grant;
}
