/**
 * The operations of the OpenAPI document. Parameters come from the valibot schemas that
 * validate them (lib/request-params.ts); bodies name the component schemas generated from
 * lib/api-schemas.ts. Each operation lists every status it can answer, the ones decided
 * before routing (URL and header size, credentials in the URL) included, because the test
 * suite checks every response it receives against this list.
 */
import { deletionsQuerySchema, employeeIdPathSchema, employeesQuerySchema, holidaysQuerySchema, leaveQuerySchema } from "../lib/request-params.ts";
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_PATH, DOCS_SCRIPT_PATH } from "./docs-page.ts";
import {
  BOOKING_EXAMPLE,
  EMPLOYEE_EXAMPLE,
  HOLIDAYS_EXAMPLE,
  METADATA_EXAMPLE,
  OPENAPI_EXAMPLE,
  TOKEN_EXAMPLE,
  TOKEN_REQUEST_EXAMPLE,
} from "./openapi-examples.ts";
import type { ComponentName } from "./openapi-schemas.ts";
import { pathParameter, queryParameters } from "./openapi-schemas.ts";
import { TOKEN_BODY_LIMIT } from "./token-endpoint.ts";

const response = (name: string) => ({ $ref: `#/components/responses/${name}` }) as const;
const schemaRef = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` }) as const;
const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } } as const;
const json = <E extends object>(schema: ComponentName, example: E) => ({ "application/json": { schema: schemaRef(schema), example } }) as const;

/** A data answer's headers: its id and its ETag (docs/api.md, "Conditional reads"). */
const tagged = { ...requestId, ETag: { $ref: "#/components/headers/ETag" } } as const;
/** What a data endpoint takes beside its query: If-None-Match, and the 304 it may bring. */
const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "ETags of answers you hold (RFC 9110 §13.1.2), or `*`; when one is the current ETag the answer is 304 with no body, and the read budget is not spent. " +
    "Members that are not entity tags match nothing.",
  schema: { type: "string", pattern: '^(\\*|\\s*(W/)?"[^"]*"\\s*(,\\s*(W/)?"[^"]*"\\s*)*)$' },
} as const;
const conditional = { "304": response("NotModified") } as const;

/** Decided before routing, so any request can get them (server/request-limits.ts). */
const sizeLimits = { "414": response("UriTooLong"), "431": response("HeadersTooLarge") } as const;
const dataErrors = {
  "400": response("BadRequest"),
  "401": response("Unauthorized"),
  "403": response("Forbidden"),
  "429": response("ReadRateLimited"),
  ...sizeLimits,
  "500": response("ServerError"),
  "503": response("ServiceUnavailable"),
} as const;
const publicErrors = { "400": response("CredentialsInUrl"), ...sizeLimits, "500": response("ServerError") } as const;

const tokenOperation = {
  operationId: "requestToken",
  tags: ["OAuth"],
  summary: "Exchange client credentials for an access token",
  description: "Client authentication by HTTP Basic or by client_id and client_secret in the form body; using both is refused.",
  security: [{ httpBasic: [] }, {}],
  requestBody: {
    required: true,
    description: `At most ${TOKEN_BODY_LIMIT} bytes.`,
    content: { "application/x-www-form-urlencoded": { schema: schemaRef("TokenRequest"), example: TOKEN_REQUEST_EXAMPLE } },
  },
  responses: {
    "200": {
      description: "A new access token. Every answer of this endpoint also carries `Pragma: no-cache`.",
      headers: requestId,
      content: json("TokenResponse", TOKEN_EXAMPLE),
    },
    "400": {
      description:
        "`invalid_request` (missing or repeated parameter, both Basic and form credentials, wrong content type, credentials in the URL), " +
        "`unsupported_grant_type`, `unauthorized_client` (the organisation's API access is switched off) or `invalid_scope`.",
      headers: requestId,
      content: json("Error", { error: "invalid_scope", error_description: "These scopes cannot be granted to this client: leave:read.", param: "scope" }),
    },
    "401": {
      description: "`invalid_client`: unknown client, wrong secret, revoked credentials or no credentials.",
      headers: {
        ...requestId,
        "WWW-Authenticate": { description: 'Always `Basic realm="leaveapi"`.', required: true, schema: { type: "string", const: 'Basic realm="leaveapi"' } },
      },
      content: json("Error", {
        error: "invalid_client",
        error_description: "Client authentication failed: unknown client, wrong secret or revoked credentials.",
      }),
    },
    "413": {
      description: `The request body is larger than ${TOKEN_BODY_LIMIT} bytes.`,
      headers: requestId,
      content: json("Error", { error: "invalid_request", error_description: `The token request body must be at most ${TOKEN_BODY_LIMIT} bytes.` }),
    },
    ...sizeLimits,
    "429": response("TooManyRequests"),
    "500": response("ServerError"),
    "503": response("ServiceUnavailable"),
  },
};

/** A list's 410 for a restricted credential whose restriction changed after `updated_since` (docs/api.md, "Restricted credentials"). */
const restrictionChanged = {
  "410": {
    description: "`sync_expired`: the credential is restricted and its restriction changed after `updated_since`. Do a full read, without `updated_since`.",
    headers: requestId,
    content: json("Error", {
      error: "sync_expired",
      error_description:
        "This credential's restriction changed after 'updated_since'; do a full read (without updated_since) and replace your copy, then sync from its start.",
      param: "updated_since",
    }),
  },
};

/** The four data endpoints: GET (and HEAD) with a Bearer token of the named scope. */
const dataPaths = {
  "/v1/employees": {
    get: {
      operationId: "listEmployees",
      tags: ["Employees"],
      summary: "List current and former employees",
      description:
        "Ordered by `updated_at`, then `id`. Deleted employees are never returned. A restricted credential lists only the employees it selects, " +
        "with the fields it may not read as null.",
      security: [{ oauth2: ["employees:read"] }],
      parameters: [...queryParameters(employeesQuerySchema, "GET /v1/employees"), IF_NONE_MATCH],
      responses: {
        "200": {
          description: "A page of employees.",
          headers: tagged,
          content: json("EmployeePage", { has_more: false, next_cursor: null, data: [EMPLOYEE_EXAMPLE] }),
        },
        ...conditional,
        ...dataErrors,
        ...restrictionChanged,
      },
    },
  },
  "/v1/employees/{id}": {
    get: {
      operationId: "getEmployee",
      tags: ["Employees"],
      summary: "Get one employee",
      description: "An employee outside a restricted credential's selection is 404, as an unknown one is.",
      security: [{ oauth2: ["employees:read"] }],
      parameters: [pathParameter("id", employeeIdPathSchema), IF_NONE_MATCH],
      responses: {
        "200": { description: "The employee.", headers: tagged, content: json("EmployeeResponse", { data: EMPLOYEE_EXAMPLE }) },
        ...conditional,
        ...dataErrors,
        "404": response("NotFound"),
      },
    },
  },
  "/v1/leave-requests": {
    get: {
      operationId: "listLeaveRequests",
      tags: ["Leave"],
      summary: "List annual leave bookings that overlap a date range",
      description:
        "A booking overlaps when `start_date` ≤ `to` and `end_date` ≥ `from`. Annual leave only. Ordered by `start_date`, then `id`. " +
        "An unknown `employee_id` gives an empty list. A restricted credential lists only the bookings of the employees it selects.",
      security: [{ oauth2: ["leave:read"] }],
      parameters: [...queryParameters(leaveQuerySchema, "GET /v1/leave-requests"), IF_NONE_MATCH],
      responses: {
        "200": {
          description: "A page of leave bookings.",
          headers: tagged,
          content: json("LeaveBookingPage", { has_more: false, next_cursor: null, data: [BOOKING_EXAMPLE] }),
        },
        ...conditional,
        ...dataErrors,
        ...restrictionChanged,
      },
    },
  },
  "/v1/deletions": {
    get: {
      operationId: "listDeletions",
      tags: ["Employees", "Leave"],
      summary: "List the records of a resource that stopped being listed",
      description:
        "Every employee (`resource=employees`) or annual leave booking (`resource=leave-requests`) that its list endpoint no longer returns " +
        "and that stopped being returned at or after `updated_since`: deleted, a booking whose employee was deleted, or whose leave type " +
        "is no longer annual. Ordered by `deleted_at`, then `id`. A record listed again leaves this feed. Needs `employees:read` for " +
        "employees and `leave:read` for leave requests (also when `resource` is missing or unknown).",
      security: [{ oauth2: ["employees:read"] }, { oauth2: ["leave:read"] }],
      parameters: [...queryParameters(deletionsQuerySchema, "GET /v1/deletions"), IF_NONE_MATCH],
      responses: {
        "200": {
          description: "A page of deletions.",
          headers: tagged,
          content: json("DeletionPage", {
            has_more: false,
            next_cursor: null,
            data: [{ resource: "leave-requests", id: BOOKING_EXAMPLE.id, deleted_at: "2026-03-02T08:15:00.000Z" }],
          }),
        },
        ...conditional,
        ...dataErrors,
        "410": {
          description:
            "`sync_expired`: `updated_since` is older than the deletions kept (90 days by default), or the credential's restriction changed after it, " +
            'or the credential is restricted to some departments or calendars (docs/api.md, "Restricted credentials"). Do a full read, without `updated_since`.',
          headers: requestId,
          content: json("Error", {
            error: "sync_expired",
            error_description:
              "Deletions are kept for 90 days and 'updated_since' is older than that; do a full read (without updated_since) and replace your copy, then sync from its start.",
            param: "updated_since",
          }),
        },
      },
    },
  },
  "/v1/holidays": {
    get: {
      operationId: "listHolidays",
      tags: ["Holidays"],
      summary: "List public holidays and company closure days in a date range",
      description: "Public holidays of every calendar observed by an employee employed during the range, plus the organisation's closure days. Not paged.",
      security: [{ oauth2: ["holidays:read"] }],
      parameters: [...queryParameters(holidaysQuerySchema, "GET /v1/holidays"), IF_NONE_MATCH],
      responses: {
        "200": { description: "The holidays in the range, in date order.", headers: tagged, content: json("HolidayList", HOLIDAYS_EXAMPLE) },
        ...conditional,
        ...dataErrors,
      },
    },
  },
};

/** A public GET: no authentication, no parameters. */
function publicGet<R extends object>(operationId: string, summary: string, ok: R, extraErrors: object = {}) {
  return { get: { operationId, tags: ["Service"], summary, security: [], responses: { "200": ok, ...publicErrors, ...extraErrors } } };
}

const servicePaths = {
  "/healthz": publicGet(
    "getHealth",
    "Readiness: 200 when the data store serves reads and issues tokens",
    { description: "The service and its store are up.", headers: requestId, content: json("Health", { status: "ok" }) },
    { "503": response("HealthUnavailable") },
  ),
  "/livez": publicGet("getLiveness", "Liveness: 200 while the process answers; the data store is not asked", {
    description: "The process is up and its event loop turns.",
    headers: requestId,
    content: json("Health", { status: "ok" }),
  }),
  "/v1/openapi.json": publicGet("getOpenApiDocument", "This OpenAPI document", {
    description: "The OpenAPI 3.1 document, with `servers` and the token URL set to this service's base URL.",
    headers: requestId,
    content: json("OpenApiDocument", OPENAPI_EXAMPLE),
  }),
  "/.well-known/oauth-authorization-server": publicGet("getAuthorizationServerMetadata", "OAuth 2.0 authorization server metadata (RFC 8414)", {
    description: "Where and how to obtain tokens.",
    headers: requestId,
    content: json("AuthorizationServerMetadata", METADATA_EXAMPLE),
  }),
  [DOCS_PATH]: publicGet("getReferencePage", "This reference, as a web page", {
    description: "An HTML page that renders this document in the browser. It loads nothing from anywhere but this service.",
    headers: {
      ...requestId,
      "Content-Security-Policy": { description: "Only this origin.", required: true, schema: { type: "string", const: DOCS_CONTENT_SECURITY_POLICY } },
    },
    content: { "text/html": { schema: { type: "string" } } },
  }),
  [DOCS_SCRIPT_PATH]: publicGet("getReferencePageScript", "The script that renders the reference page", {
    description: "The API reference renderer (Scalar), served by this service so the page needs no other site.",
    headers: requestId,
    content: { "application/javascript": { schema: { type: "string" } } },
  }),
};

export function buildPaths() {
  return { "/v1/oauth/token": { post: tokenOperation }, ...dataPaths, ...servicePaths };
}
