/**
 * POST /v1/oauth/token: the client-credentials grant, in the order of checks that
 * docs/api.md fixes ("Order of checks"): request syntax, then client authentication
 * (failures, and only failures, limited per address), then the per-client rate limit,
 * then grant type, API access and scope.
 */
import { ApiError, invalidParam, invalidRequest, tooManyRequests } from "../lib/errors.ts";
import {
  CLIENT_ID_PATTERN,
  DUMMY_SECRET_DIGEST,
  TOKEN_LIFETIME_SECONDS,
  constantTimeEqual,
  digestSecret,
  mintAccessToken,
  type RandomBytes,
} from "../lib/credentials.ts";
import { formatScopes, grantScopes } from "../lib/scopes.ts";
import { isFormContentType, parseBasicAuthorization, parseForm } from "../lib/token-request.ts";
import { utf8DecodeStrict } from "../lib/encoding.ts";
import type { ClientCredentials, Store } from "../lib/store.ts";
import { json } from "./responses.ts";

export const TOKEN_BODY_LIMIT = 4096;
const PROTOCOL_PARAMS = ["grant_type", "scope", "client_id", "client_secret"] as const;

export interface TokenLimits {
  /** Token requests per client per window (docs/api.md, "Rate limits": 10 per minute). */
  perClient: number;
  /** Failed client authentications per remote address per window. */
  failuresPerAddress: number;
  windowMs: number;
}

export const DEFAULT_TOKEN_LIMITS: TokenLimits = { perClient: 10, failuresPerAddress: 60, windowMs: 60_000 };

export interface TokenContext {
  store: Store;
  now: number;
  remoteAddress: string;
  randomBytes: RandomBytes;
  limits: TokenLimits;
  /** Who the request turned out to be, for the request log. */
  identify: (organisationId: string, clientId: string) => void;
}

function invalidClient(description = "Client authentication failed: unknown client, wrong secret or revoked credentials."): ApiError {
  return new ApiError(401, "invalid_client", description, { headers: { "WWW-Authenticate": 'Basic realm="leaveapi"' } });
}

/** The body as text, refusing more than the limit whatever Content-Length claims. */
async function readBody(req: Request): Promise<string> {
  const tooLarge = () =>
    new ApiError(413, "invalid_request", `The token request body must be at most ${TOKEN_BODY_LIMIT} bytes.`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > TOKEN_BODY_LIMIT) throw tooLarge();
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      // The client went away mid-body (or stalled until the idle timeout closed it): its
      // mistake, not the server's, so a 400 in the log rather than a 500 that pages someone.
      throw invalidRequest("The request body ended before it was complete: the connection was closed.");
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > TOKEN_BODY_LIMIT) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  const text = utf8DecodeStrict(bytes);
  if (text === null) throw invalidRequest("The request body is not valid UTF-8.");
  return text;
}

interface TokenRequest {
  grantType: string;
  scope: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The Authorization header could not be read as Basic credentials. */
  badAuthorization: boolean;
}

async function readTokenRequest(req: Request): Promise<TokenRequest> {
  if (new URL(req.url).search !== "") {
    throw invalidRequest("The token endpoint takes no query parameters; send every parameter in the form body.");
  }
  if (!isFormContentType(req.headers.get("content-type"))) {
    throw invalidRequest("The token request body must be application/x-www-form-urlencoded.");
  }
  const form = parseForm(await readBody(req));
  if (!form) throw invalidRequest("The form body is malformed (a bad percent-escape or invalid UTF-8).");
  const single: Partial<Record<(typeof PROTOCOL_PARAMS)[number], string>> = {};
  for (const name of PROTOCOL_PARAMS) {
    const values = form.get(name);
    if (values && values.length > 1) throw invalidParam(name, `The parameter '${name}' is given more than once.`);
    // An empty value counts as omitted (RFC 6749 §3.2).
    if (values && values[0] !== "") single[name] = values[0];
  }

  const basic = parseBasicAuthorization(req.headers.get("authorization"));
  let clientId = single.client_id;
  let clientSecret = single.client_secret;
  if (basic.kind !== "none") {
    if (single.client_secret !== undefined || (basic.kind === "basic" && clientId !== undefined && clientId !== basic.clientId)) {
      throw invalidRequest("Send client credentials either in the Authorization header or in the form body, not both.");
    }
    if (basic.kind === "basic") {
      clientId = basic.clientId;
      clientSecret = basic.clientSecret;
    }
  }
  if (single.grant_type === undefined) throw invalidParam("grant_type", "The parameter 'grant_type' is required: use client_credentials.");
  return {
    grantType: single.grant_type,
    scope: single.scope,
    clientId,
    clientSecret,
    badAuthorization: basic.kind === "other-scheme" || basic.kind === "malformed",
  };
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

/** The client, if the presented id and secret match a live one. Always does one digest compare. */
async function authenticateClient(store: Store, request: TokenRequest): Promise<ClientCredentials | null> {
  const { clientId, clientSecret } = request;
  const client =
    !request.badAuthorization && clientId !== undefined && CLIENT_ID_PATTERN.test(clientId) ? await store.findClient(clientId) : null;
  const presented = digestSecret(clientSecret ?? "");
  const matches = constantTimeEqual(presented, client?.secret_digest ?? DUMMY_SECRET_DIGEST);
  if (!client || !matches || clientSecret === undefined || client.revoked_at !== null) return null;
  return client;
}

/**
 * Counts a failed client authentication against the remote address, or throws 429 when
 * the address has used up its failures. A look first: a flood from one address past its
 * limit then costs a read per request, not a locked write.
 */
async function countFailedAuthentication(ctx: TokenContext): Promise<void> {
  const { store, now, limits } = ctx;
  const key = `auth-failures:${ctx.remoteAddress}`;
  const state = await store.checkRateLimit(key, now, limits.failuresPerAddress, limits.windowMs);
  const decision = state.allowed ? await store.takeRateSlot(key, now, limits.failuresPerAddress, limits.windowMs) : state;
  if (!decision.allowed) {
    throw tooManyRequests(decision.retryAfterMs / 1000, "Too many failed client authentications from this address; retry later.");
  }
}

export async function handleTokenRequest(req: Request, ctx: TokenContext): Promise<Response> {
  const request = await readTokenRequest(req);
  const { store, now, limits } = ctx;

  // Authentication comes before the address limit, which refuses failed attempts only:
  // valid credentials are served whatever others did from their address, so one
  // misconfigured client behind a NAT cannot lock out its neighbours (README, "A tour
  // with curl"). Every request pays the same lookup and digest compare.
  const client = await authenticateClient(store, request);
  if (!client) {
    await countFailedAuthentication(ctx);
    if (request.clientId === undefined && !request.badAuthorization) {
      throw invalidClient("No client credentials: send client_id and client_secret with HTTP Basic or in the form body.");
    }
    throw invalidClient();
  }
  ctx.identify(client.organisation_id, client.client_id);

  const slot = await store.takeRateSlot(`token-requests:${client.client_id}`, now, limits.perClient, limits.windowMs);
  if (!slot.allowed) {
    throw tooManyRequests(
      slot.retryAfterMs / 1000,
      `At most ${limits.perClient} token requests per minute per client; reuse the token you have until it expires.`,
    );
  }
  if (request.grantType !== "client_credentials") {
    throw new ApiError(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported.", { param: "grant_type" });
  }
  if (!client.api_enabled) {
    throw new ApiError(400, "unauthorized_client", "API access is switched off for this organisation; ask its administrator to enable it.");
  }
  const granted = grantScopes(request.scope, client.scopes);
  if ("refused" in granted) {
    throw new ApiError(400, "invalid_scope", `These scopes cannot be granted to this client: ${describeRefused(granted.refused)}.`, {
      param: "scope",
    });
  }

  const token = mintAccessToken(ctx.randomBytes);
  await store.saveToken(digestSecret(token), {
    organisation_id: client.organisation_id,
    client_id: client.client_id,
    scopes: granted.granted,
    expires_at: now + TOKEN_LIFETIME_SECONDS * 1000,
  });
  return json(
    200,
    { access_token: token, token_type: "Bearer", expires_in: TOKEN_LIFETIME_SECONDS, scope: formatScopes(granted.granted) },
    { Pragma: "no-cache" },
  );
}
