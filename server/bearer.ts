/**
 * Bearer authentication of the data endpoints over HTTP (RFC 6750; docs/api.md, "Statuses
 * and codes"): reads the token from the Authorization header, authenticates it with
 * lib/authenticate-bearer.ts, and gives every refusal its `WWW-Authenticate` challenge: a
 * bare one when no token was sent, `error="invalid_request"` for a malformed header,
 * `error="invalid_token"`, or `error="insufficient_scope"` with the scope needed.
 */
import { ApiError } from "../lib/errors.ts";
import { authenticateBearer } from "../lib/authenticate-bearer.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import type { Scope } from "../lib/scopes.ts";
import type { Sha256Hex } from "../lib/digest.ts";
import { withHeaders } from "./responses.ts";

const REALM = 'Bearer realm="leaveapi"';
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** HTTP's whitespace is SP and HTAB (RFC 9110 §5.6.3): a no-break space is not a separator, so "\u00a0Bearer x" is another scheme. */
const OWS_EDGES = /^[ \t]+|[ \t]+$/g;

function unauthenticated(description: string): ApiError {
  return new ApiError(401, "invalid_token", description, { headers: { "WWW-Authenticate": REALM } });
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

/** The grant behind the request's token, checked for expiry and for `scope`; `digest` is createHandler's `sha256Hex`, if any. */
export async function authenticate(req: Request, store: Store, scope: Scope, now: number, digest?: Sha256Hex): Promise<AccessTokenGrant> {
  const token = bearerToken(req);
  try {
    return await authenticateBearer(store, token, scope, now, digest);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const challenge = error.code === "insufficient_scope" ? `error="insufficient_scope", scope="${scope}"` : `error="${error.code}"`;
    throw withHeaders(error, { "WWW-Authenticate": `${REALM}, ${challenge}` });
  }
}
