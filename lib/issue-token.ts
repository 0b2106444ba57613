/**
 * Issuing an access token: the client-credentials grant over a Store, in the order of
 * checks that docs/api.md fixes ("Order of checks"): client authentication (failures, and
 * only failures, limited per address), then the per-client rate limit, then grant type,
 * API access and scope. Reading the request is done before (lib/token-request.ts); how an
 * error is answered over HTTP, the `WWW-Authenticate` challenge of an `invalid_client`
 * included, is the server's.
 */
import { ApiError, tooManyRequests } from "./errors.ts";
import {
  CLIENT_ID_PATTERN,
  DUMMY_SECRET_DIGEST,
  TOKEN_LIFETIME_SECONDS,
  constantTimeEqual,
  cryptoRandomBytes,
  digestSecret,
  mintAccessToken,
  type RandomBytes,
} from "./credentials.ts";
import type { Sha256Hex } from "./digest.ts";
import { formatScopes, grantScopes, type Scope } from "./scopes.ts";
import type { ApiClient, ClientCredentials, RateDecision, RateSlot, Store } from "./store.ts";
import type { TokenRequest } from "./token-request.ts";

export interface TokenLimits {
  /** Token requests per client per window (docs/api.md, "Rate limits": 10 per minute). */
  perClient: number;
  /** Failed client authentications per remote address per window. */
  failuresPerAddress: number;
  windowMs: number;
}

export const DEFAULT_TOKEN_LIMITS: TokenLimits = { perClient: 10, failuresPerAddress: 60, windowMs: 60_000 };

export interface IssueTokenOptions {
  /** Milliseconds since the epoch. */
  now: number;
  /** Where the request came from: failed authentications are counted per address. */
  remoteAddress: string;
  randomBytes?: RandomBytes;
  limits?: TokenLimits;
  /** How secrets and tokens are digested: `digestSecret` by default, or a host's faster SHA-256 that gives the same bytes. */
  sha256Hex?: Sha256Hex;
  /** Called as soon as the client is known, before a later check can refuse it: for the request log. */
  onAuthenticated?: (client: ApiClient) => void;
}

/** The token response's body (RFC 6749 §5.1; docs/api.md, "POST /v1/oauth/token"). */
export interface IssuedToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

type TokenStore = Pick<Store, "findClient" | "checkRateLimit" | "takeRateSlot" | "takeRateSlotAndSaveToken" | "restricted">;

function invalidClient(description = "Client authentication failed: unknown client, wrong secret or revoked credentials."): ApiError {
  return new ApiError(401, "invalid_client", description);
}

const SHOWABLE_SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,40}$/;

/**
 * The refused names as an error description may echo them: RFC 6749 §5.2 allows no `"`,
 * `\` or control characters there, and echoing kilobytes of a body helps nobody.
 */
function describeRefused(refused: readonly string[]): string {
  const shown = refused.slice(0, 5).map((name) => (SHOWABLE_SCOPE.test(name) ? name : "(a malformed name)"));
  return refused.length > 5 ? `${shown.join(" ")} and ${refused.length - 5} more` : shown.join(" ");
}

/**
 * The client, if the presented id and secret match a live one: its secret, or the one a
 * rotation replaced while that is within its grace period (docs/cli.md, "credentials
 * rotate"). Always does the same two digest compares, whatever the client.
 */
async function authenticateClient(store: TokenStore, request: TokenRequest, now: number, digest: Sha256Hex): Promise<ClientCredentials | null> {
  const { clientId, clientSecret } = request;
  const client = !request.badAuthorization && clientId !== undefined && CLIENT_ID_PATTERN.test(clientId) ? await store.findClient(clientId) : null;
  const presented = digest(clientSecret ?? "");
  const previous = client?.previous_secret !== undefined && client.previous_secret.expires_at > now ? client.previous_secret.digest : null;
  const current = constantTimeEqual(presented, client?.secret_digest ?? DUMMY_SECRET_DIGEST);
  const replaced = constantTimeEqual(presented, previous ?? DUMMY_SECRET_DIGEST) && previous !== null;
  if (!client || !(current || replaced) || clientSecret === undefined || client.revoked_at !== null) return null;
  return client;
}

/**
 * Counts a failed client authentication against the remote address, or throws 429 when
 * the address has used up its failures. A look first: a flood from one address past its
 * limit then costs a read per request, not a locked write.
 */
async function countFailedAuthentication(store: TokenStore, remoteAddress: string, now: number, limits: TokenLimits): Promise<void> {
  const key = `auth-failures:${remoteAddress}`;
  const state = await store.checkRateLimit(key, now, limits.failuresPerAddress, limits.windowMs);
  const decision = state.allowed ? await store.takeRateSlot(key, now, limits.failuresPerAddress, limits.windowMs) : state;
  if (!decision.allowed) {
    throw tooManyRequests(decision.retryAfterMs / 1000, "Too many failed client authentications from this address; retry later.");
  }
}

/** Throws the 429 of a refused per-client slot. */
function refuseOverLimit(decision: RateDecision, limits: TokenLimits): void {
  if (!decision.allowed) {
    throw tooManyRequests(
      decision.retryAfterMs / 1000,
      `At most ${limits.perClient} token requests per minute per client; reuse the token you have until it expires.`,
    );
  }
}

/** The scopes an authenticated client's request is granted, or the 400 that refuses it: grant type, then API access, then scope. */
function checkGrant(request: TokenRequest, client: ClientCredentials, store: Pick<Store, "restricted">): { granted: Scope[] } | ApiError {
  if (request.grantType !== "client_credentials") {
    return new ApiError(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported.", { param: "grant_type" });
  }
  if (!client.api_enabled) {
    return new ApiError(400, "unauthorized_client", "API access is switched off for this organisation; ask its administrator to enable it.");
  }
  // A host's store without restricted reads would serve a restricted client the whole organisation.
  if (client.restriction && !store.restricted) {
    return new ApiError(
      400,
      "unauthorized_client",
      "These credentials are restricted, and this server's store cannot follow a restriction; ask its administrator.",
    );
  }
  const granted = grantScopes(request.scope, client.scopes);
  if ("refused" in granted) {
    return new ApiError(400, "invalid_scope", `These scopes cannot be granted to this client: ${describeRefused(granted.refused)}.`, {
      param: "scope",
    });
  }
  return granted;
}

/**
 * Issues an access token for a client-credentials request and stores its digest; throws
 * the `ApiError` of the first check that fails: 401 `invalid_client`, 429, 400
 * `unsupported_grant_type`, `unauthorized_client` or `invalid_scope`.
 */
export async function issueToken(store: TokenStore, request: TokenRequest, options: IssueTokenOptions): Promise<IssuedToken> {
  const { now } = options;
  const limits = options.limits ?? DEFAULT_TOKEN_LIMITS;

  // Authentication comes before the address limit, which refuses failed attempts only:
  // valid credentials are served whatever others did from their address, so one
  // misconfigured client behind a NAT cannot lock out its neighbours (README, "A tour
  // with curl"). Every request pays the same lookup and digest compare.
  const digest = options.sha256Hex ?? digestSecret;
  const client = await authenticateClient(store, request, now, digest);
  if (!client) {
    await countFailedAuthentication(store, options.remoteAddress, now, limits);
    if (request.clientId === undefined && !request.badAuthorization) {
      throw invalidClient("No client credentials: send client_id and client_secret with HTTP Basic or in the form body.");
    }
    throw invalidClient();
  }
  options.onAuthenticated?.(client);

  // Every request whose client authentication succeeded takes a slot, whatever is decided
  // after; the limit is checked before the grant (docs/api.md, "Order of checks").
  const slot: RateSlot = { key: `token-requests:${client.client_id}`, now, limit: limits.perClient, windowMs: limits.windowMs };
  const grant = checkGrant(request, client, store);
  if (grant instanceof ApiError) {
    refuseOverLimit(await store.takeRateSlot(slot.key, slot.now, slot.limit, slot.windowMs), limits);
    throw grant;
  }
  // A request that will be granted takes its slot and stores its token in one transaction
  // (one commit on SQLite) rather than two writes.
  const token = mintAccessToken(options.randomBytes ?? cryptoRandomBytes);
  const decision = await store.takeRateSlotAndSaveToken(slot, digest(token), {
    organisation_id: client.organisation_id,
    client_id: client.client_id,
    scopes: grant.granted,
    expires_at: now + TOKEN_LIFETIME_SECONDS * 1000,
  });
  refuseOverLimit(decision, limits);
  return { access_token: token, token_type: "Bearer", expires_in: TOKEN_LIFETIME_SECONDS, scope: formatScopes(grant.granted) };
}
