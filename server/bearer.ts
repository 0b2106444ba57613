/**
 * Bearer authentication of the data endpoints (RFC 6750; docs/api.md, "Statuses and
 * codes"): which failures are 401 with a bare challenge, 401 with `error="invalid_token"`,
 * 400 `invalid_request`, or 403 `insufficient_scope`.
 */
import { ApiError } from "../lib/errors.ts";
import { ACCESS_TOKEN_PATTERN, digestSecret } from "../lib/credentials.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import type { Scope } from "../lib/scopes.ts";

const REALM = 'Bearer realm="leaveapi"';
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** HTTP's whitespace is SP and HTAB (RFC 9110 §5.6.3): a no-break space is not a separator, so "\u00a0Bearer x" is another scheme. */
const OWS_EDGES = /^[ \t]+|[ \t]+$/g;

function unauthenticated(description: string): ApiError {
  return new ApiError(401, "invalid_token", description, { headers: { "WWW-Authenticate": REALM } });
}

function invalidToken(): ApiError {
  return new ApiError(401, "invalid_token", "The access token is invalid, expired or revoked; request a new token.", {
    headers: { "WWW-Authenticate": `${REALM}, error="invalid_token"` },
  });
}

function malformed(description: string): ApiError {
  return new ApiError(400, "invalid_request", description, {
    headers: { "WWW-Authenticate": `${REALM}, error="invalid_request"` },
  });
}

/** The access token a request presents; throws the answer for a missing or malformed header. */
export function bearerToken(req: Request): string {
  const header = req.headers.get("authorization");
  const trimmed = header?.replace(OWS_EDGES, "") ?? "";
  if (trimmed === "") {
    throw unauthenticated("This endpoint needs an access token: send 'Authorization: Bearer <token>'.");
  }
  const space = trimmed.search(/[ \t]/);
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") {
    throw unauthenticated("This endpoint takes a Bearer access token, not another authorization scheme.");
  }
  const credentials = space === -1 ? "" : trimmed.slice(space).replace(OWS_EDGES, "");
  if (credentials === "") throw malformed("The Authorization header names the Bearer scheme but carries no token.");
  if (/[\s,]/.test(credentials)) throw malformed("The Authorization header must carry exactly one Bearer token.");
  if (!B64TOKEN.test(credentials)) throw malformed("The Bearer token contains characters a token cannot have.");
  return credentials;
}

/** The grant behind the request's token, checked for expiry and for `scope`. */
export async function authenticate(req: Request, store: Store, scope: Scope, now: number): Promise<AccessTokenGrant> {
  const token = bearerToken(req);
  if (!ACCESS_TOKEN_PATTERN.test(token)) throw invalidToken();
  const grant = await store.findToken(digestSecret(token));
  if (!grant || now >= grant.expires_at) throw invalidToken();
  if (!grant.scopes.includes(scope)) {
    throw new ApiError(403, "insufficient_scope", `This endpoint needs the scope '${scope}', which the token was not granted.`, {
      headers: { "WWW-Authenticate": `${REALM}, error="insufficient_scope", scope="${scope}"` },
    });
  }
  return grant;
}
