/**
 * The reusable parts of the OpenAPI document other than body schemas and parameters (those
 * are generated from valibot, server/openapi-schemas.ts): security schemes, headers and the
 * error responses. Each error response says when the API sends it (docs/api.md, "Errors"), so a
 * client can tell retryable failures from its own mistakes.
 */
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from "./request-limits.ts";

const errorBody = { $ref: "#/components/schemas/Error" } as const;
const requestIdHeader = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } } as const;
const retryAfterHeader = { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } as const;

/** A JSON error response whose example shows the one code it carries. */
function errorResponse<H extends object>(description: string, example: { error: string; error_description: string; param?: string }, headers: H) {
  return {
    description,
    headers: { ...requestIdHeader, ...headers },
    content: { "application/json": { schema: errorBody, example } },
  } as const;
}

export const securitySchemes = {
  oauth2: {
    type: "oauth2",
    description: "OAuth 2.0 client credentials. Send the token as `Authorization: Bearer <token>`; it lasts 3600 seconds.",
    flows: {
      clientCredentials: {
        tokenUrl: "/v1/oauth/token",
        scopes: {
          "employees:read": "Read employees: GET /v1/employees and GET /v1/employees/{id}.",
          "holidays:read": "Read public holidays and company closure days: GET /v1/holidays.",
          "leave:read": "Read annual leave bookings: GET /v1/leave-requests.",
        },
      },
    },
  },
  httpBasic: {
    type: "http",
    scheme: "basic",
    description: "Client authentication at the token endpoint: client_id as user name, client_secret as password (recommended).",
  },
} as const;

export const headers = {
  RequestId: {
    description: "The request's id: the caller's `X-Request-Id` when it matches ^[A-Za-z0-9._-]{1,64}$, else a generated one.",
    required: true,
    schema: { type: "string", pattern: "^[A-Za-z0-9._-]{1,64}$" },
  },
  RetryAfter: {
    description: "Whole seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
  Allow: {
    description: "The methods this path answers, e.g. `GET, HEAD`.",
    required: true,
    schema: { type: "string", examples: ["GET, HEAD", "POST"] },
  },
  ETag: {
    description:
      'A weak entity tag of the answer (docs/api.md, "Conditional reads"): send it back in `If-None-Match` and an unchanged answer is 304. ' +
      "Absent when the store keeps no data version (an embedding's own store may not).",
    schema: { type: "string", pattern: '^W/"[0-9a-f]{32}"$' },
  },
  BearerChallenge: {
    description: 'A Bearer challenge, e.g. `Bearer realm="leaveapi", error="invalid_token"`.',
    required: true,
    schema: { type: "string" },
  },
} as const;

export const responses = {
  NotModified: {
    description:
      "`If-None-Match` named the answer's current ETag: nothing it holds has changed, so no body is sent and the read budget is not spent. " +
      "Keep the copy you have.",
    headers: {
      ...requestIdHeader,
      ETag: { $ref: "#/components/headers/ETag" },
      Vary: { description: "`Accept-Encoding`, as the 200 says.", schema: { type: "string" } },
    },
  },
  BadRequest: errorResponse(
    "A bad, unknown or repeated query or path parameter (`param` names it), a cursor used with other filters, or credentials in the URL. " +
      "A malformed Bearer Authorization header is also answered 400, with a `WWW-Authenticate` challenge.",
    { error: "invalid_request", error_description: "'limit' must be a whole number from 1 to 500.", param: "limit" },
    {
      "WWW-Authenticate": {
        description: 'Only for a malformed Authorization header: `Bearer realm="leaveapi", error="invalid_request"`.',
        schema: { type: "string" },
      },
    },
  ),
  Unauthorized: errorResponse(
    "No access token, another scheme than Bearer, or a token that is unknown, expired or revoked: request a new token.",
    { error: "invalid_token", error_description: "The access token is invalid, expired or revoked; request a new token." },
    { "WWW-Authenticate": { $ref: "#/components/headers/BearerChallenge" } },
  ),
  Forbidden: errorResponse(
    "The token was not granted the scope this endpoint needs.",
    { error: "insufficient_scope", error_description: "This endpoint needs the scope 'leave:read', which the token was not granted." },
    { "WWW-Authenticate": { $ref: "#/components/headers/BearerChallenge" } },
  ),
  NotFound: errorResponse(
    "No employee with this id in the token's organisation (deleted and other organisations' employees included).",
    { error: "not_found", error_description: "No employee with this id." },
    {},
  ),
  CredentialsInUrl: errorResponse(
    "Credentials or a token in the URL (`access_token`, `client_id`, `client_secret` or `token` as a query parameter, " +
      "or a secret or token anywhere in it): refused before anything else, on every path.",
    { error: "invalid_request", error_description: "Credentials and tokens must never be sent in the URL; use the Authorization header or the form body." },
    {},
  ),
  UriTooLong: errorResponse(
    `The URL is longer than ${MAX_URL_BYTES} bytes.`,
    { error: "invalid_request", error_description: `The URL must be at most ${MAX_URL_BYTES} bytes; send fewer or shorter query parameters.` },
    {},
  ),
  HeadersTooLarge: errorResponse(
    `The request headers are larger than ${MAX_HEADER_BYTES} bytes in all.`,
    { error: "invalid_request", error_description: `The request headers must be at most ${MAX_HEADER_BYTES} bytes in all.` },
    {},
  ),
  UnknownPath: errorResponse(
    "No resource at this path. A trailing slash makes another, unknown path; nothing is ever redirected.",
    { error: "not_found", error_description: "No resource exists at this path." },
    {},
  ),
  MethodNotAllowed: errorResponse(
    "A method this path does not answer; `Allow` lists those it does.",
    { error: "method_not_allowed", error_description: "This path answers only GET, HEAD." },
    { Allow: { $ref: "#/components/headers/Allow" } },
  ),
  TooManyRequests: errorResponse(
    "Rate limited: more than 10 token requests per minute for these credentials, or too many failed authentications from this address.",
    { error: "too_many_requests", error_description: "At most 10 token requests per minute per client; reuse the token you have until it expires." },
    retryAfterHeader,
  ),
  ReadRateLimited: errorResponse(
    "More data requests than the client's budget allows: by default 100 a second with bursts of 200, per server process (`leaveapi serve --read-rate-limit`).",
    { error: "too_many_requests", error_description: "At most 100 requests a second per client (bursts of 200); wait 1 s, and spread your requests out." },
    {
      ...retryAfterHeader,
      "RateLimit-Limit": { description: "The burst: requests a client may make at once after a quiet while.", schema: { type: "integer", minimum: 1 } },
      "RateLimit-Remaining": { description: "Requests left now: 0.", schema: { type: "integer", minimum: 0 } },
      "RateLimit-Reset": { description: "Whole seconds until a request is allowed again.", schema: { type: "integer", minimum: 1 } },
      "RateLimit-Policy": { description: "`PER_SECOND;w=1;burst=BURST`, as the IETF draft on RateLimit headers writes a policy.", schema: { type: "string" } },
    },
  ),
  ServerError: errorResponse(
    "An unexpected failure; it has been logged under the response's X-Request-Id.",
    { error: "server_error", error_description: "The server failed to answer this request; it has been logged." },
    {},
  ),
  HealthUnavailable: {
    description:
      "The store cannot serve reads (`reads`) or cannot issue and check tokens (`token_issuance`: on SQLite, a tokens file deleted, replaced, read-only or damaged); retry after the given delay.",
    headers: { ...requestIdHeader, ...retryAfterHeader },
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["error", "error_description", "unavailable"],
          additionalProperties: false,
          properties: {
            error: { type: "string", const: "temporarily_unavailable" },
            error_description: { type: "string" },
            unavailable: { type: "string", enum: ["reads", "token_issuance"], description: "What the store cannot do." },
          },
        },
        example: {
          error: "temporarily_unavailable",
          error_description: "The service cannot reach its data store; retry shortly.",
          unavailable: "token_issuance",
        },
      },
    },
  },
  ServiceUnavailable: errorResponse(
    "The service cannot reach its data store; retry after the given delay.",
    { error: "temporarily_unavailable", error_description: "The service cannot reach its data store; retry shortly." },
    retryAfterHeader,
  ),
} as const;
