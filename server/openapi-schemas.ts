/**
 * The JSON Schemas (draft 2020-12, as OpenAPI 3.1 uses them) of every body the API sends
 * or takes. They describe the exact v1 shapes of lib/records.ts: every field `required`,
 * no other field allowed, unknown values `null` (DECISIONS §1). Patterns, enums and
 * limits come from the constants the code enforces, so the document cannot drift from them.
 * test/openapi.test.ts validates real handler responses against these schemas.
 */
import { ACCESS_TOKEN_PATTERN, CLIENT_ID_PATTERN, CLIENT_SECRET_PATTERN, TOKEN_LIFETIME_SECONDS } from "../lib/credentials.ts";
import { LEAVE_STATUSES } from "../lib/records.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";

/** Ids are answered in lower case (DECISIONS §1). */
const uuid = { type: "string", format: "uuid", pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" } as const;
const date = { type: "string", format: "date" } as const;
const nullableDate = { type: ["string", "null"], format: "date" } as const;
/** What formatInstant writes: RFC 3339 in UTC with milliseconds. */
const INSTANT_PATTERN = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$";
const instant = { type: "string", format: "date-time", pattern: INSTANT_PATTERN } as const;
const nullableInstant = { type: ["string", "null"], format: "date-time", pattern: INSTANT_PATTERN } as const;
const nullableText = { type: ["string", "null"] } as const;
const halfPeriod = {
  type: ["string", "null"],
  enum: ["am", "pm", null],
  description: "`am` or `pm` when the matching half-day flag is true, else `null`.",
} as const;

const nextCursor = {
  type: ["string", "null"],
  pattern: "^[A-Za-z0-9_-]+$",
  description: "Pass unchanged as `cursor`, with the same filters, for the next page; `null` on the last page.",
} as const;
const hasMore = { type: "boolean", description: "True exactly when another record follows this page." } as const;

export const schemas = {
  Employee: {
    type: "object",
    description: "A current or former employee. Deleted employees are never returned.",
    additionalProperties: false,
    required: [
      "id", "first_name", "last_name", "preferred_name", "job_title", "department",
      "status", "start_date", "leaving_date", "holiday_calendar", "updated_at",
    ],
    properties: {
      id: uuid,
      first_name: nullableText,
      last_name: nullableText,
      preferred_name: nullableText,
      job_title: nullableText,
      department: nullableText,
      status: { type: "string", description: "Employment status, e.g. `active` or `terminated`.", examples: ["active", "terminated"] },
      start_date: nullableDate,
      leaving_date: nullableDate,
      holiday_calendar: {
        type: ["string", "null"],
        description: "The calendar key whose public holidays the employee follows (the key space of `calendar` on /v1/holidays).",
        examples: ["GB-ENG"],
      },
      updated_at: { ...instant, description: "When anything in this record last changed." },
    },
  },
  LeaveType: {
    type: "object",
    additionalProperties: false,
    required: ["id", "name", "category", "is_paid"],
    properties: {
      id: uuid,
      name: { type: "string" },
      category: { type: "string", description: "Always `annual` in v1: only annual leave is returned." },
      is_paid: { type: "boolean" },
    },
  },
  LeaveBooking: {
    type: "object",
    description: "An annual leave booking.",
    additionalProperties: false,
    required: [
      "id", "employee_id", "leave_type", "start_date", "end_date", "start_half_day", "start_half_period",
      "end_half_day", "end_half_period", "days", "status", "requested_at", "reviewed_at", "cancelled_at", "updated_at",
    ],
    properties: {
      id: uuid,
      employee_id: uuid,
      leave_type: { $ref: "#/components/schemas/LeaveType" },
      start_date: date,
      end_date: date,
      start_half_day: { type: "boolean" },
      start_half_period: halfPeriod,
      end_half_day: { type: "boolean" },
      end_half_period: halfPeriod,
      days: {
        type: "number",
        minimum: 0,
        multipleOf: 0.5,
        description: "Leave days the booking takes: weekdays, less public holidays and closure days, less half days.",
      },
      status: { type: "string", enum: [...LEAVE_STATUSES] },
      requested_at: nullableInstant,
      reviewed_at: { ...nullableInstant, description: "`null` until the booking is reviewed." },
      cancelled_at: { ...nullableInstant, description: "`null` unless the booking was cancelled." },
      updated_at: { ...instant, description: "When anything in this record, its leave type included, last changed." },
    },
  },
  HolidayEntry: {
    type: "object",
    description:
      "A public holiday (`type: public`, `calendar` set, `applies_to: calendar`) or a company closure day " +
      "(`type: company`, `calendar: null`, `applies_to` all, department or location, with `department` or `location` set to match).",
    additionalProperties: false,
    required: ["date", "name", "type", "calendar", "applies_to", "deducts_from_leave", "department", "location"],
    properties: {
      date,
      name: { type: "string" },
      type: { type: "string", enum: ["public", "company"] },
      calendar: { type: ["string", "null"], description: "Calendar key of a public holiday; `null` for a closure day.", examples: ["GB-ENG"] },
      applies_to: { type: "string", enum: ["calendar", "all", "department", "location"] },
      deducts_from_leave: { type: "boolean", description: "Whether the day uses up leave allowance; always false for public holidays." },
      department: { ...nullableText, description: "Set when `applies_to` is `department`." },
      location: { ...nullableText, description: "Set when `applies_to` is `location`." },
    },
  },
  EmployeePage: {
    type: "object",
    additionalProperties: false,
    required: ["has_more", "next_cursor", "data"],
    properties: { has_more: hasMore, next_cursor: nextCursor, data: { type: "array", items: { $ref: "#/components/schemas/Employee" } } },
  },
  EmployeeResponse: {
    type: "object",
    additionalProperties: false,
    required: ["data"],
    properties: { data: { $ref: "#/components/schemas/Employee" } },
  },
  LeaveBookingPage: {
    type: "object",
    additionalProperties: false,
    required: ["has_more", "next_cursor", "data"],
    properties: { has_more: hasMore, next_cursor: nextCursor, data: { type: "array", items: { $ref: "#/components/schemas/LeaveBooking" } } },
  },
  HolidayList: {
    type: "object",
    description: "Not paged. Ordered by date, then public before company, then calendar, then name.",
    additionalProperties: false,
    required: ["data"],
    properties: { data: { type: "array", items: { $ref: "#/components/schemas/HolidayEntry" } } },
  },
  TokenRequest: {
    type: "object",
    description: "Send client_id and client_secret here only when not using HTTP Basic; never both ways at once.",
    additionalProperties: true,
    required: ["grant_type"],
    properties: {
      grant_type: { type: "string", enum: ["client_credentials"] },
      scope: {
        type: "string",
        description: "Space-separated subset of the credentials' scopes; absent or empty grants all of them.",
        examples: ["employees:read leave:read"],
      },
      client_id: { type: "string", pattern: CLIENT_ID_PATTERN.source },
      client_secret: { type: "string", pattern: CLIENT_SECRET_PATTERN.source },
    },
  },
  TokenResponse: {
    type: "object",
    additionalProperties: false,
    required: ["access_token", "token_type", "expires_in", "scope"],
    properties: {
      access_token: { type: "string", pattern: ACCESS_TOKEN_PATTERN.source },
      token_type: { type: "string", enum: ["Bearer"] },
      expires_in: { type: "integer", const: TOKEN_LIFETIME_SECONDS, description: "Seconds; reuse the token until then." },
      scope: {
        type: "string",
        description: `The granted scopes, space-separated, in the order ${ALL_SCOPES.join(" ")}.`,
        examples: [ALL_SCOPES.join(" ")],
      },
    },
  },
  Error: {
    type: "object",
    additionalProperties: false,
    required: ["error", "error_description"],
    properties: {
      error: {
        type: "string",
        description:
          "A machine-readable code: invalid_request, unsupported_grant_type, unauthorized_client, invalid_scope, invalid_client, " +
          "invalid_token, insufficient_scope, not_found, method_not_allowed, too_many_requests, server_error, temporarily_unavailable.",
      },
      error_description: { type: "string", description: "One sentence a person can act on." },
      param: { type: "string", description: "The parameter at fault, when there is one." },
    },
  },
  Health: {
    type: "object",
    additionalProperties: false,
    required: ["status"],
    properties: { status: { type: "string", enum: ["ok"] } },
  },
  AuthorizationServerMetadata: {
    type: "object",
    description: "RFC 8414 authorization server metadata.",
    additionalProperties: false,
    required: [
      "issuer", "token_endpoint", "grant_types_supported", "token_endpoint_auth_methods_supported",
      "scopes_supported", "response_types_supported",
    ],
    properties: {
      issuer: { type: "string", format: "uri" },
      token_endpoint: { type: "string", format: "uri" },
      grant_types_supported: { type: "array", items: { type: "string", enum: ["client_credentials"] } },
      token_endpoint_auth_methods_supported: {
        type: "array",
        items: { type: "string", enum: ["client_secret_basic", "client_secret_post"] },
      },
      scopes_supported: { type: "array", items: { type: "string", enum: [...ALL_SCOPES] } },
      response_types_supported: { type: "array", maxItems: 0 },
    },
  },
} as const;
