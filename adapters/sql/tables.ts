/**
 * Row types of the SQL schema, as Kysely sees them; a record's columns derive from its
 * field declaration (lib/record-fields.ts), test/record-fields.test.ts holds the migrated
 * tables to them. Every key is led by the organisation
 * (so the schema partitions by tenant, as a distributed Postgres needs). Instants are
 * epoch milliseconds in a 64-bit integer; dates are DATE on Postgres and TEXT on SQLite,
 * both read back as `YYYY-MM-DD`; booleans are BOOLEAN on Postgres and 0/1 on SQLite.
 */
import type { ColumnType } from "kysely";
import type {
  ColumnOf,
  EMPLOYEE_FIELDS,
  FieldSpecs,
  HOLIDAY_ENTRY_FIELDS,
  InputKey,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  RecordKey,
} from "../../lib/record-fields.ts";

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
  /** Added by 0013: how many times API access was set through the tokens file when this was copied here (access-controls.ts); null: never. */
  api_version: number | string | null;
}

export interface ApiClientsTable {
  client_id: string;
  organisation_id: string;
  name: string | null;
  secret_digest: string;
  scopes: string;
  created_at: Instant;
  revoked_at: Instant | null;
  /** Added by 0003: the secret a rotation replaced, until its grace period ends. */
  previous_secret_digest: string | null;
  previous_secret_expires_at: Instant | null;
  /** Added by 0013: the rotation through the tokens file this secret was copied from (access-controls.ts); null: none. */
  secret_version: number | string | null;
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

/** How each kind of field is kept: enumerations as text, a leave type by its id. */
interface KindColumns {
  text: string;
  date: string;
  instant: Instant;
  stamp: Instant;
  flag: Bool;
  days: number;
  leave_status: string;
  half_period: string;
  closure_scope: string;
  holiday_type: string;
  leave_type: string;
}

/** The columns of a record's fields (lib/record-fields.ts): those an import writes or the store reads back. */
type FieldColumns<F extends FieldSpecs> = {
  [K in InputKey<F> | RecordKey<F> as ColumnOf<F, K>]: KindColumns[F[K]["kind"]] | (F[K] extends { nullable: true } ? null : never);
};

/** Every key is led by the organisation. */
interface Tenant {
  organisation_id: string;
}

/** A record an import writes: its content digest, when it last changed, whether (and when) it was deleted. */
interface Versioned {
  content_digest: string;
  updated_at: Instant;
  deleted_at: Instant | null;
}

/** Added by 0006: the record's JSON body as a page writes it (record-bodies.ts); null until rendered. */
interface Rendered {
  rendered: string | null;
}

export interface EmployeesTable extends Tenant, FieldColumns<typeof EMPLOYEE_FIELDS>, Versioned, Rendered {}

export interface LeaveTypesTable extends Tenant, FieldColumns<typeof LEAVE_TYPE_FIELDS> {
  updated_at: Instant;
}

export interface LeaveBookingsTable extends Tenant, FieldColumns<typeof LEAVE_BOOKING_FIELDS>, Versioned, Rendered {}

/** Each span class's longest booking (adapters/sql/leave-page/leave-span-plan.ts), added by 0012 in place of the organisation's longest. */
export interface LeaveClassSpansTable {
  organisation_id: string;
  span_class: number;
  /** The longest (end_date − start_date) in days of any booking of the class the organisation stored: bounds the class's scan. */
  max_span_days: number;
}

export interface ClosureDaysTable extends Tenant, FieldColumns<typeof HOLIDAY_ENTRY_FIELDS>, Versioned {}

export interface PublicHolidaysTable {
  organisation_id: string;
  calendar: string;
  year: number;
  date: string;
  name: string;
}

/** A tombstone of the deletions feed (lib/store.ts, `listDeletions`), added by 0004. */
export interface DeletionsTable {
  organisation_id: string;
  /** The list endpoint that no longer returns the record: `employees` or `leave-requests`. */
  resource: string;
  id: string;
  deleted_at: Instant;
}

/** When an import's changes became visible (published-stamps.ts), added by 0007. */
export interface PublicationsTable {
  organisation_id: string;
  /** The stamp the import wrote its records' `updated_at` and `deleted_at` with. */
  stamp: Instant;
  /** The instant a page shows instead: when the import committed, or the stamp itself when it committed within a second. */
  published_at: Instant;
}

/** When a client last obtained a token (token-queries.ts), added by 0009 (on SQLite, in the tokens file). */
export interface ClientUsageTable {
  client_id: string;
  last_used_at: Instant;
}

/**
 * The access controls as a SQLite store last set them (access-controls.ts), in the tokens
 * file so that no import's lock on the data file delays them; a row wins over the data
 * file's columns, which get a copy when its lock is free.
 */
export interface OrganisationAccessTable {
  organisation_id: string;
  api_enabled: Bool;
  /** One more than the version the setting replaced: the higher of this and the data file's `api_version` wins. */
  version: number | string;
  changed_at: Instant;
}

/** A client's revocation and latest rotation, beside OrganisationAccessTable. */
export interface ClientAccessTable {
  client_id: string;
  revoked_at: Instant | null;
  /** Null when the client was never rotated here: then the data file's secret holds. */
  secret_digest: string | null;
  previous_secret_digest: string | null;
  previous_secret_expires_at: Instant | null;
  /** As OrganisationAccessTable's `version`, against the data file's `secret_version`; 0 when never rotated here. */
  secret_version: number | string;
  changed_at: Instant;
}

/**
 * An organisation as its access controls stand: on SQLite a view per connection over the
 * data file and the tokens file's OrganisationAccessTable; on Postgres, where the controls
 * write the table itself, a view of it (migration 0013).
 */
export type OrganisationsNowView = OrganisationsTable;
/** A client as its access controls stand, as OrganisationsNowView. */
export type ApiClientsNowView = ApiClientsTable;

/** A process writing a SQLite data file for long (an import), in the tokens file: running-writers.ts. */
export interface RunningWritersTable {
  pid: number;
  what: string;
  started_at: Instant;
}

/** A credential's restriction (client-restrictions.ts), added by 0014: lists as JSON text, null where it does not restrict. */
export interface ClientRestrictionsTable {
  client_id: string;
  departments: string | null;
  calendars: string | null;
  fields: string | null;
  set_at: Instant;
}

/**
 * That a record stopped being listed with its employee's department and calendar (deletion-writes.ts, `exitsOf`),
 * added by 0015: what a restricted client's deletions feed reads.
 */
export interface SelectionExitsTable {
  organisation_id: string;
  resource: string;
  id: string;
  department: string | null;
  holiday_calendar: string | null;
  until: Instant;
}

/** A selection some restricted credential holds, whose bookings are copied (selection-copies.ts), added by 0020. */
export interface RestrictedSelectionsTable {
  id: number;
  organisation_id: string;
  departments: string | null;
  calendars: string | null;
}

/** A booking copied for a selection, keyed as the leave page index (selection-copies.ts), added by 0020. */
export interface SelectionBookingsTable {
  selection_id: number;
  span_class: number;
  start_date: string;
  id: string;
  end_date: string;
  employee_id: string;
  leave_type_id: string;
  status: string;
  updated_at: Instant;
  rendered: string | null;
}

/** The organisation's data version (lib/store.ts, `dataVersion`): a fresh random value written by every import that commits. */
export interface DataVersionsTable {
  organisation_id: string;
  version: string;
}

/** A credential's change-notification endpoint and its outbox of one event (webhook-queries.ts), added by 0018. */
export interface WebhookEndpointsTable {
  id: string;
  client_id: string;
  organisation_id: string;
  url: string;
  secret: string;
  created_at: Instant;
  notified_through: Instant;
  event_id: string | null;
  event_at: Instant | null;
  changed_since: Instant | null;
  resources: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  first_attempt_at: Instant | null;
  next_attempt_at: Instant | null;
  claimed_until: Instant | null;
  failing_since: Instant | null;
  last_error: string | null;
  last_error_at: Instant | null;
  last_success_at: Instant | null;
}

export interface Tables {
  running_writers: RunningWritersTable;
  organisations_now: OrganisationsNowView;
  api_clients_now: ApiClientsNowView;
  organisation_access: OrganisationAccessTable;
  client_access: ClientAccessTable;
  installation: InstallationTable;
  organisations: OrganisationsTable;
  api_clients: ApiClientsTable;
  access_tokens: AccessTokensTable;
  rate_events: RateEventsTable;
  employees: EmployeesTable;
  leave_types: LeaveTypesTable;
  leave_bookings: LeaveBookingsTable;
  leave_class_spans: LeaveClassSpansTable;
  closure_days: ClosureDaysTable;
  public_holidays: PublicHolidaysTable;
  deletions: DeletionsTable;
  publications: PublicationsTable;
  data_versions: DataVersionsTable;
  client_usage: ClientUsageTable;
  client_restrictions: ClientRestrictionsTable;
  selection_exits: SelectionExitsTable;
  restricted_selections: RestrictedSelectionsTable;
  selection_bookings: SelectionBookingsTable;
  webhook_endpoints: WebhookEndpointsTable;
}
