/**
 * The example bodies the OpenAPI document shows. test/openapi.test.ts checks each one
 * against the schema it illustrates, so an example cannot teach a wrong shape.
 */
import { employeeJson, employeeRecord } from "../lib/records.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";

/** Through the record and its JSON shaping, so the example has every field the API shows, a later one too (as null). */
export const EMPLOYEE_EXAMPLE = employeeJson(
  employeeRecord({
    id: "3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81",
    first_name: "Ada",
    last_name: "Lovelace",
    job_title: "Engineer",
    department: "Engineering",
    status: "active",
    start_date: "2020-01-06",
    holiday_calendar: "GB-ENG",
    updated_at: Date.parse("2026-03-01T09:30:00.000Z"),
  }),
);

export const BOOKING_EXAMPLE = {
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

export const HOLIDAYS_EXAMPLE = {
  data: [
    {
      date: "2026-04-03",
      name: "Good Friday",
      type: "public",
      calendar: "GB-ENG",
      applies_to: "calendar",
      deducts_from_leave: false,
      department: null,
      location: null,
    },
    {
      date: "2026-12-29",
      name: "Office closed",
      type: "company",
      calendar: null,
      applies_to: "all",
      deducts_from_leave: true,
      department: null,
      location: null,
    },
  ],
} as const;

export const TOKEN_REQUEST_EXAMPLE = { grant_type: "client_credentials", scope: "employees:read leave:read" } as const;

export const TOKEN_EXAMPLE = {
  access_token: "svct_q8X2vN4rT7wLmB1zK9pY3sD6fH0jC5aE-gU_iO2nRxQ",
  token_type: "Bearer",
  expires_in: 3600,
  scope: "employees:read leave:read",
} as const;

export const METADATA_EXAMPLE = {
  issuer: "https://leave.example.com",
  token_endpoint: "https://leave.example.com/v1/oauth/token",
  grant_types_supported: ["client_credentials"],
  token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
  scopes_supported: [...ALL_SCOPES],
  response_types_supported: [],
} as const;

export const OPENAPI_EXAMPLE = {
  openapi: "3.1.0",
  info: { title: "leaveapi", version: "1.0.0" },
  paths: {},
  servers: [{ url: "https://leave.example.com" }],
} as const;
