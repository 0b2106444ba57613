/**
 * The OpenAPI 3.1 document of the v1 API, written by hand so that it reads well and says
 * what the contract says, and served at GET /v1/openapi.json (server/metadata.ts adds
 * `servers` from the request). test/openapi.test.ts checks it against the handler: every
 * route documented with its methods, every $ref resolvable, real responses valid.
 */
import { headers, parameters, responses, securitySchemes } from "./openapi-components.ts";
import { schemas } from "./openapi-schemas.ts";

const json = <S extends object, E extends object>(schema: S, example: E) =>
  ({ "application/json": { schema, example } }) as const;
const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } } as const;
const schemaRef = <N extends keyof typeof schemas>(name: N) => ({ $ref: `#/components/schemas/${name}` }) as const;

const EMPLOYEE_EXAMPLE = {
  id: "3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81",
  first_name: "Ada",
  last_name: "Lovelace",
  preferred_name: null,
  job_title: "Engineer",
  department: "Engineering",
  status: "active",
  start_date: "2020-01-06",
  leaving_date: null,
  holiday_calendar: "GB-ENG",
  updated_at: "2026-03-01T09:30:00.000Z",
} as const;

const BOOKING_EXAMPLE = {
  id: "9a1c2b3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
  employee_id: EMPLOYEE_EXAMPLE.id,
  leave_type: { id: "7d9f3c1e-8a51-4a0b-9f0e-000000000001", name: "Annual leave", category: "annual", is_paid: true },
  start_date: "2026-03-02",
  end_date: "2026-03-06",
  start_half_day: false,
  start_half_period: null,
  end_half_day: true,
  end_half_period: "am",
  days: 4.5,
  status: "approved",
  requested_at: "2026-02-01T10:00:00.000Z",
  reviewed_at: "2026-02-02T08:15:00.000Z",
  cancelled_at: null,
  updated_at: "2026-02-02T08:15:00.000Z",
} as const;

/** The error responses every authenticated data endpoint can give. */
const dataErrors = {
  "400": { $ref: "#/components/responses/BadRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "403": { $ref: "#/components/responses/Forbidden" },
  "500": { $ref: "#/components/responses/ServerError" },
  "503": { $ref: "#/components/responses/ServiceUnavailable" },
} as const;

const DESCRIPTION = `A read-only API over one organisation's employees, annual leave bookings and holidays.

**Authentication.** OAuth 2.0 client credentials: POST /v1/oauth/token with HTTP Basic (recommended) or
form-body client credentials, never both, then send \`Authorization: Bearer <token>\` on every data request.
A token lasts 3600 seconds: reuse it, and request a new one after a 401. Token requests are limited to 10 per
minute per set of credentials. Credentials or tokens in a URL are refused with 400.

**Errors.** Every error body is \`{"error", "error_description"}\`, plus \`param\` when one parameter is at fault.
Unknown and repeated query parameters are refused with 400.

**Paging and sync.** Employees are listed by (\`updated_at\`, \`id\`), leave bookings by (\`start_date\`, \`id\`).
Follow \`next_cursor\` while \`has_more\` is true. To keep a copy current, start each sync with \`updated_since\`
set to when the previous sync started, less a few seconds.

Every response carries \`Cache-Control: no-store\`, \`X-Content-Type-Options: nosniff\` and \`X-Request-Id\`;
data endpoints also answer HEAD. Records always carry every field; an unknown value is \`null\`.`;

export const openApiDocument = {
  openapi: "3.1.0",
  info: { title: "leaveapi", version: "1.0.0", description: DESCRIPTION, license: { name: "MIT", identifier: "MIT" } },
  tags: [
    { name: "OAuth", description: "Obtaining access tokens." },
    { name: "Employees" },
    { name: "Leave" },
    { name: "Holidays" },
    { name: "Service", description: "Public, unauthenticated documents and health." },
  ],
  paths: {
    "/v1/oauth/token": {
      post: {
        operationId: "requestToken",
        tags: ["OAuth"],
        summary: "Exchange client credentials for an access token",
        description: "Client authentication by HTTP Basic or by client_id and client_secret in the form body; using both is refused.",
        security: [{ httpBasic: [] }, {}],
        requestBody: {
          required: true,
          description: "At most 4096 bytes.",
          content: {
            "application/x-www-form-urlencoded": {
              schema: schemaRef("TokenRequest"),
              example: { grant_type: "client_credentials", scope: "employees:read leave:read" },
            },
          },
        },
        responses: {
          "200": {
            description: "A new access token. The response also carries `Pragma: no-cache`.",
            headers: requestId,
            content: json(schemaRef("TokenResponse"), {
              access_token: "svct_q8X2vN4rT7wLmB1zK9pY3sD6fH0jC5aE-gU_iO2nRxQ",
              token_type: "Bearer",
              expires_in: 3600,
              scope: "employees:read leave:read",
            }),
          },
          "400": {
            description:
              "`invalid_request` (missing or repeated parameter, both Basic and form credentials, wrong content type, any query parameter), " +
              "`unsupported_grant_type`, `unauthorized_client` (the organisation's API access is switched off) or `invalid_scope`.",
            headers: requestId,
            content: json(schemaRef("Error"), {
              error: "invalid_scope",
              error_description: "These scopes cannot be granted to this client: leave:read.",
              param: "scope",
            }),
          },
          "401": {
            description: "`invalid_client`: unknown client, wrong secret, revoked credentials or no credentials.",
            headers: {
              ...requestId,
              "WWW-Authenticate": { description: 'Always `Basic realm="leaveapi"`.', required: true, schema: { type: "string", const: 'Basic realm="leaveapi"' } },
            },
            content: json(schemaRef("Error"), {
              error: "invalid_client",
              error_description: "Client authentication failed: unknown client, wrong secret or revoked credentials.",
            }),
          },
          "413": {
            description: "The request body is larger than 4096 bytes.",
            headers: requestId,
            content: json(schemaRef("Error"), { error: "invalid_request", error_description: "The token request body must be at most 4096 bytes." }),
          },
          "429": { $ref: "#/components/responses/TooManyRequests" },
          "500": { $ref: "#/components/responses/ServerError" },
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
    "/v1/employees": {
      get: {
        operationId: "listEmployees",
        tags: ["Employees"],
        summary: "List current and former employees",
        description: "Ordered by `updated_at`, then `id`. Deleted employees are never returned.",
        security: [{ oauth2: ["employees:read"] }],
        parameters: [
          {
            name: "status",
            in: "query",
            required: false,
            description: "Exact employment status.",
            schema: { type: "string", pattern: "^[a-z_]{1,30}$" },
            example: "active",
          },
          { $ref: "#/components/parameters/UpdatedSince" },
          { $ref: "#/components/parameters/Limit" },
          { $ref: "#/components/parameters/Cursor" },
        ],
        responses: {
          "200": {
            description: "A page of employees.",
            headers: requestId,
            content: json(schemaRef("EmployeePage"), { has_more: false, next_cursor: null, data: [EMPLOYEE_EXAMPLE] }),
          },
          ...dataErrors,
        },
      },
    },
    "/v1/employees/{id}": {
      get: {
        operationId: "getEmployee",
        tags: ["Employees"],
        summary: "Get one employee",
        security: [{ oauth2: ["employees:read"] }],
        parameters: [
          {
            name: "id",
            in: "path",
            required: true,
            description: "The employee's id; any letter case is accepted.",
            schema: { type: "string", format: "uuid" },
          },
        ],
        responses: {
          "200": { description: "The employee.", headers: requestId, content: json(schemaRef("EmployeeResponse"), { data: EMPLOYEE_EXAMPLE }) },
          ...dataErrors,
          "404": { $ref: "#/components/responses/NotFound" },
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
          "An unknown `employee_id` gives an empty list.",
        security: [{ oauth2: ["leave:read"] }],
        parameters: [
          { $ref: "#/components/parameters/From" },
          { $ref: "#/components/parameters/To" },
          { name: "status", in: "query", required: false, schema: schemas.LeaveBooking.properties.status },
          { name: "employee_id", in: "query", required: false, description: "Any letter case is accepted.", schema: { type: "string", format: "uuid" } },
          { $ref: "#/components/parameters/UpdatedSince" },
          { $ref: "#/components/parameters/Limit" },
          { $ref: "#/components/parameters/Cursor" },
        ],
        responses: {
          "200": {
            description: "A page of leave bookings.",
            headers: requestId,
            content: json(schemaRef("LeaveBookingPage"), { has_more: false, next_cursor: null, data: [BOOKING_EXAMPLE] }),
          },
          ...dataErrors,
        },
      },
    },
    "/v1/holidays": {
      get: {
        operationId: "listHolidays",
        tags: ["Holidays"],
        summary: "List public holidays and company closure days in a date range",
        description:
          "Public holidays of every calendar observed by an employee employed during the range, plus the organisation's closure days. Not paged.",
        security: [{ oauth2: ["holidays:read"] }],
        parameters: [
          { $ref: "#/components/parameters/From" },
          { $ref: "#/components/parameters/To" },
          { $ref: "#/components/parameters/Calendar" },
          { name: "type", in: "query", required: false, schema: schemas.HolidayEntry.properties.type },
        ],
        responses: {
          "200": {
            description: "The holidays in the range, in date order.",
            headers: requestId,
            content: json(schemaRef("HolidayList"), {
              data: [
                { date: "2026-04-03", name: "Good Friday", type: "public", calendar: "GB-ENG", applies_to: "calendar", deducts_from_leave: false, department: null, location: null },
                { date: "2026-12-29", name: "Office closed", type: "company", calendar: null, applies_to: "all", deducts_from_leave: true, department: null, location: null },
              ],
            }),
          },
          ...dataErrors,
        },
      },
    },
    "/healthz": {
      get: {
        operationId: "getHealth",
        tags: ["Service"],
        summary: "Health check: 200 when the data store is reachable",
        security: [],
        responses: {
          "200": { description: "The service and its store are up.", headers: requestId, content: json(schemaRef("Health"), { status: "ok" }) },
          "500": { $ref: "#/components/responses/ServerError" },
          "503": { $ref: "#/components/responses/ServiceUnavailable" },
        },
      },
    },
    "/v1/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        tags: ["Service"],
        summary: "This OpenAPI document",
        security: [],
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document, with `servers` set to this service's base URL.",
            headers: requestId,
            content: json(
              {
                type: "object",
                required: ["openapi", "info", "paths", "servers"],
                properties: { openapi: { const: "3.1.0" }, info: { type: "object" }, paths: { type: "object" }, servers: { type: "array" } },
              },
              { openapi: "3.1.0", info: { title: "leaveapi", version: "1.0.0" }, paths: {}, servers: [{ url: "https://leave.example.com" }] },
            ),
          },
        },
      },
    },
    "/.well-known/oauth-authorization-server": {
      get: {
        operationId: "getAuthorizationServerMetadata",
        tags: ["Service"],
        summary: "OAuth 2.0 authorization server metadata (RFC 8414)",
        security: [],
        responses: {
          "200": {
            description: "Where and how to obtain tokens.",
            headers: requestId,
            content: json(schemaRef("AuthorizationServerMetadata"), {
              issuer: "https://leave.example.com",
              token_endpoint: "https://leave.example.com/v1/oauth/token",
              grant_types_supported: ["client_credentials"],
              token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
              scopes_supported: ["employees:read", "holidays:read", "leave:read"],
              response_types_supported: [],
            }),
          },
        },
      },
    },
  },
  components: { schemas, parameters, headers, responses, securitySchemes },
} as const;
