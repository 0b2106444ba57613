/**
 * The migrations from 0013 on, in a file of their own so that migrations.ts stays within the
 * size rule; schemaMigrations (migrations.ts) lists them after the others. Named and
 * ordered as there: a migration, once released, is never edited.
 */
import { sql, type Migration } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import { type AnyDb, type Dialect, run } from "./migration-steps.ts";
import { refreshSelectionCopies, SELECTION_COPY_TABLES } from "./selection-copies.ts";
import { ACCESS_VIEWS as SQLITE_ACCESS_VIEWS, TOKEN_TABLES } from "./tokens-file-schema.ts";

// What the access controls read (access-controls.ts): the versions a SQLite tokens file's
// controls are copied into the data file with, so that an older tokens file never wins
// over a newer copy; and on Postgres the tables as they are, through views of the names
// SQLite gives its own per connection (sqlite-store.ts), which add the controls kept in
// the tokens file (a view in the data file cannot read the tokens file).
const ACCESS_VERSIONS = [`alter table "organisations" add column "api_version" bigint`, `alter table "api_clients" add column "secret_version" bigint`];
const ACCESS_VIEWS: Record<Dialect, readonly string[]> = {
  sqlite: ACCESS_VERSIONS,
  postgres: [
    ...ACCESS_VERSIONS,
    `create view "organisations_now" as select "id", "name", "api_enabled", "created_at", "api_version" from "organisations"`,
    `create view "api_clients_now" as select "client_id", "organisation_id", "name", "secret_digest", "scopes", "created_at",
      "revoked_at", "previous_secret_digest", "previous_secret_expires_at", "secret_version" from "api_clients"`,
  ],
};

/**
 * 0013 on both dialects; and on SQLite where no tokens file is attached (Deno), the tokens
 * file's access tables and views in the data file, which a new database otherwise lacks
 * until it is opened again (sqlite-store.ts makes them on open once the schema is there).
 */
function accessViews(caps: SqlCapabilities): (db: AnyDb) => Promise<void> {
  return async (db) => {
    await run(ACCESS_VIEWS[caps.dialect])(db);
    if (caps.dialect !== "sqlite") return;
    if ((await sql<{ name: string }>`pragma database_list`.execute(db)).rows.some((r) => r.name === "tokens")) return;
    await run([...TOKEN_TABLES.map((statement) => statement.replaceAll("tokens.", "main.")), ...SQLITE_ACCESS_VIEWS])(db);
  };
}

// Restricted credentials (docs/api.md, "Restricted credentials"): a client's restriction in
// a table of its own, read with the client and with each token's grant by primary key.
// A client that never had one has no row; one whose restriction was cleared keeps a row
// with no list, whose set_at still makes its older syncs answer 410. On SQLite it lives in
// the data file beside api_clients.
const CLIENT_RESTRICTIONS: readonly string[] = [
  `create table "client_restrictions" ("client_id" text primary key, "departments" text, "calendars" text, "fields" text, "set_at" bigint not null)`,
];

// A restricted client's deletions feed (docs/api.md, "Restricted credentials"): each time a
// record stops being listed with a department and calendar (deleted, hidden, or its
// employee moved), a row with those and the instant, so that the feed names exactly the
// records that left a client's selection, and never one the client could not have seen.
// Read by organisation, resource and instant; swept with the tombstones.
const SELECTION_EXITS: readonly string[] = [
  `create table "selection_exits" ("organisation_id" text not null, "resource" text not null, "id" text not null,
    "department" text, "holiday_calendar" text, "until" bigint not null)`,
  `create index "selection_exits_page" on "selection_exits" ("organisation_id", "resource", "until", "id")`,
];

// A restricted client's pages test each row they scan (a booking's employee, or the
// employee) for being in its selection (selected-employees.ts): one seek in this index by
// (organisation, id) finds the employee's department and calendar, with no table row read
// (deleted_at in it too, always null there: SQLite counts an index as covering only when it
// holds every column the query names).
const EMPLOYEE_SELECTION: readonly string[] = [
  `create index "employees_selection" on "employees" ("organisation_id", "id", "department", "holiday_calendar", "deleted_at")
    where "deleted_at" is null`,
];

// Conditional reads (docs/api.md, "Conditional reads"): one row per organisation whose
// value every import that commits replaces with a fresh random one, in its transaction
// (import-transaction.ts), so that an ETag made from it changes whenever a page could. Read
// by primary key before each page. Random rather than counted, so that a database restored
// from an older backup never shows a value a client saw with other data.
const DATA_VERSIONS: readonly string[] = [`create table "data_versions" ("organisation_id" text primary key, "version" text not null)`];

// Change notifications (docs/api.md, "Change notifications"): one row per credential's
// endpoint, which is also its outbox: the event waiting to be sent (its id, instant,
// resources, attempts and next attempt), the publication it covers up to, and a lease
// (`claimed_until`) that one sender takes so that, with many instances, one sends it. The
// secret is kept as it is, since it signs (SECURITY.md). On SQLite it lives in the data
// file beside api_clients.
const WEBHOOK_ENDPOINTS: readonly string[] = [
  `create table "webhook_endpoints" ("id" text primary key, "client_id" text not null, "organisation_id" text not null,
    "url" text not null, "secret" text not null, "created_at" bigint not null, "notified_through" bigint not null,
    "event_id" text, "event_at" bigint, "changed_since" bigint, "resources" text, "attempts" integer not null default 0,
    "first_attempt_at" bigint, "next_attempt_at" bigint, "claimed_until" bigint, "failing_since" bigint,
    "last_error" text, "last_error_at" bigint, "last_success_at" bigint)`,
  `create index "webhook_endpoints_by_client" on "webhook_endpoints" ("client_id")`,
  // Whether an import changed any booking at all, one seek: the sender asks it before the
  // leave page, which would otherwise scan every booking to find that none changed.
  `create index "leave_bookings_by_update" on "leave_bookings" ("organisation_id", "updated_at")`,
];

// A restricted client's employees page led by its departments or calendars
// (selected-employees.ts): one ordered scan per value, of an index that leads with it, so
// a page of one department reads a page's worth of rows, not the organisation's. Each
// holds the other list's column (tested in the scan), the status filter and, on SQLite,
// the body a page writes, so that SQLite reads the index alone; Postgres leaves the body
// out, as it does for employees_page (an index entry there is limited to about 2.7 kB).
const SELECTION_LEADS: Record<Dialect, readonly string[]> = {
  sqlite: [
    `create index "employees_by_department" on "employees" ("organisation_id", "department", "updated_at", "id", "holiday_calendar",
      "status", "deleted_at", "rendered") where "deleted_at" is null`,
    `create index "employees_by_calendar" on "employees" ("organisation_id", "holiday_calendar", "updated_at", "id", "department",
      "status", "deleted_at", "rendered") where "deleted_at" is null`,
  ],
  postgres: [
    `create index "employees_by_department" on "employees" ("organisation_id", "department", "updated_at", "id", "holiday_calendar",
      "status") where "deleted_at" is null`,
    `create index "employees_by_calendar" on "employees" ("organisation_id", "holiday_calendar", "updated_at", "id", "department",
      "status") where "deleted_at" is null`,
  ],
};

/**
 * 0020: the copies of restricted selections' bookings (selection-copies.ts), empty, and
 * filled for the selections that credentials hold already: nothing to copy where no
 * credential selects employees.
 */
function selectionCopies(caps: SqlCapabilities): (db: AnyDb) => Promise<void> {
  return async (db) => {
    await run(SELECTION_COPY_TABLES[caps.dialect])(db);
    await refreshSelectionCopies(db, caps);
  };
}

/** 0013 to 0020, by name. */
export function laterMigrations(caps: SqlCapabilities): Record<string, Migration> {
  return {
    "0013_access_views": { up: accessViews(caps) },
    "0014_client_restrictions": { up: run(CLIENT_RESTRICTIONS) },
    "0015_selection_exits": { up: run(SELECTION_EXITS) },
    "0016_employee_selection": { up: run(EMPLOYEE_SELECTION) },
    "0017_data_versions": { up: run(DATA_VERSIONS) },
    "0018_webhook_endpoints": { up: run(WEBHOOK_ENDPOINTS) },
    "0019_selection_leads": { up: run(SELECTION_LEADS[caps.dialect]) },
    "0020_selection_copies": { up: selectionCopies(caps) },
  };
}
