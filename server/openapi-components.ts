/**
 * The reusable parts of the OpenAPI document other than body schemas: security schemes,
 * query parameters, headers and the error responses. Each error response says when the
 * API sends it (DECISIONS §3), so a client can tell retryable failures from its own mistakes.
 */
import { CALENDAR_KEY_PATTERN } from "../lib/public-holidays.ts";
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_RANGE_DAYS } from "../lib/request-params.ts";

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

const rangeDate = (name: "from" | "to", description: string) =>
  ({ name, in: "query", required: true, description, schema: { type: "string", format: "date" }, example: "2026-03-01" }) as const;

export const parameters = {
  From: rangeDate("from", "Start of the date range, inclusive, as YYYY-MM-DD."),
  To: rangeDate("to", `End of the date range, inclusive: not before \`from\` and at most ${MAX_RANGE_DAYS} days after it.`),
  UpdatedSince: {
    name: "updated_since",
    in: "query",
    required: false,
    description:
      "Only records changed at or after this instant: an RFC 3339 date-time with `Z` or a ±hh:mm offset. " +
      "For incremental sync, pass the moment your previous sync started, less a few seconds.",
    schema: { type: "string", format: "date-time" },
    example: "2026-03-01T09:30:00Z",
  },
  Limit: {
    name: "limit",
    in: "query",
    required: false,
    description: "Records per page.",
    schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  },
  Cursor: {
    name: "cursor",
    in: "query",
    required: false,
    description: "The `next_cursor` of the previous page, unchanged; the other filters must stay the same.",
    schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,1024}$" },
  },
  Calendar: {
    name: "calendar",
    in: "query",
    required: false,
    description: "One calendar key (country, or country-region): its public holidays only, whether or not anyone observes it.",
    schema: { type: "string", pattern: CALENDAR_KEY_PATTERN.source },
    example: "GB-ENG",
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
  BearerChallenge: {
    description: 'A Bearer challenge, e.g. `Bearer realm="leaveapi", error="invalid_token"`.',
    required: true,
    schema: { type: "string" },
  },
} as const;

export const responses = {
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
  TooManyRequests: errorResponse(
    "Rate limited: more than 10 token requests per minute for these credentials, or too many failed authentications from this address.",
    { error: "too_many_requests", error_description: "At most 10 token requests per minute per client; reuse the token you have until it expires." },
    retryAfterHeader,
  ),
  ServerError: errorResponse(
    "An unexpected failure; it has been logged under the response's X-Request-Id.",
    { error: "server_error", error_description: "The server failed to answer this request; it has been logged." },
    {},
  ),
  ServiceUnavailable: errorResponse(
    "The service cannot reach its data store; retry after the given delay.",
    { error: "temporarily_unavailable", error_description: "The service cannot reach its data store; retry shortly." },
    retryAfterHeader,
  ),
} as const;
