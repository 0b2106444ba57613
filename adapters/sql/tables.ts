/**
 * Row types of the SQL schema, as Kysely sees them. Every key is led by the organisation
 * (so the schema partitions by tenant, as a distributed Postgres needs). Instants are
 * epoch milliseconds in a 64-bit integer; dates are DATE on Postgres and TEXT on SQLite,
 * both read back as `YYYY-MM-DD`; booleans are BOOLEAN on Postgres and 0/1 on SQLite.
 */
import type { ColumnType } from "kysely";

type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;
type Instant = ColumnType<number | string, number, number>;

export interface InstallationTable {
  name: string;
  value: string;
}

export interface OrganisationsTable {
  id: string;
  name: string;
  api_enabled: Bool;
  created_at: Instant;
}

export interface ApiClientsTable {
  client_id: string;
  organisation_id: string;
  name: string | null;
  secret_digest: string;
  scopes: string;
  created_at: Instant;
  revoked_at: Instant | null;
}

export interface AccessTokensTable {
  digest: string;
  client_id: string;
  organisation_id: string;
  scopes: string;
  expires_at: Instant;
}

export interface RateEventsTable {
  key: string;
  at: Instant;
}

export interface EmployeesTable {
  organisation_id: string;
  id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
  job_title: string | null;
  department: string | null;
  status: string;
  start_date: string | null;
  leaving_date: string | null;
  holiday_calendar: string | null;
  content_digest: string;
  updated_at: Instant;
  deleted_at: Instant | null;
}

export interface LeaveTypesTable {
  organisation_id: string;
  id: string;
  name: string;
  category: string;
  is_paid: Bool;
  updated_at: Instant;
}

export interface LeaveBookingsTable {
  organisation_id: string;
  id: string;
  external_id: string | null;
  employee_id: string;
  leave_type_id: string;
  start_date: string;
  end_date: string;
  start_half_day: Bool;
  start_half_period: string | null;
  end_half_day: Bool;
  end_half_period: string | null;
  days: number;
  status: string;
  requested_at: Instant | null;
  reviewed_at: Instant | null;
  cancelled_at: Instant | null;
  content_digest: string;
  updated_at: Instant;
  deleted_at: Instant | null;
}

export interface LeaveSpansTable {
  organisation_id: string;
  /** The longest (end_date − start_date) in days of any booking ever stored: bounds the overlap scan. */
  max_span_days: number;
}

export interface ClosureDaysTable {
  organisation_id: string;
  id: string;
  date: string;
  name: string;
  applies_to: string;
  department: string | null;
  location: string | null;
  deducts_from_leave: Bool;
  content_digest: string;
  updated_at: Instant;
  deleted_at: Instant | null;
}

export interface PublicHolidaysTable {
  organisation_id: string;
  calendar: string;
  year: number;
  date: string;
  name: string;
}

export interface Tables {
  installation: InstallationTable;
  organisations: OrganisationsTable;
  api_clients: ApiClientsTable;
  access_tokens: AccessTokensTable;
  rate_events: RateEventsTable;
  employees: EmployeesTable;
  leave_types: LeaveTypesTable;
  leave_bookings: LeaveBookingsTable;
  leave_spans: LeaveSpansTable;
  closure_days: ClosureDaysTable;
  public_holidays: PublicHolidaysTable;
}
