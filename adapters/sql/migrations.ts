/**
 * The schema, as migrations listed in code so that a compiled binary carries them.
 * Each is frozen as the literal SQL it ran when it shipped, per dialect where they differ:
 * nothing here reads live code, so a change elsewhere cannot change what a migration did.
 * Append new migrations; never edit one that has shipped. test/migrations-frozen.pg.test.ts
 * checks that the migrated page index is the one the leave page query plans on,
 * test/observed-calendars-plan.pg.test.ts that observedCalendars plans on the index of 0005,
 * and test/record-fields.test.ts that the tables hold the records' declared fields.
 */
import { sql, type Migration } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import { laterMigrations } from "./later-migrations.ts";
import { type AnyDb, type Dialect, run } from "./migration-steps.ts";

/** The column types 0001 used for dates and booleans, which are all its dialects differed in. */
const TYPES_0001: Record<Dialect, { date: string; bool: string }> = {
  sqlite: { date: "text", bool: "integer" },
  postgres: { date: "date", bool: "boolean" },
};

const initial = ({ date, bool }: { date: string; bool: string }) => [
  `create table "installation" ("name" text primary key, "value" text not null)`,
  `create table "organisations" ("id" text primary key, "name" text not null, "api_enabled" ${bool} not null,
    "created_at" bigint not null)`,
  `create table "api_clients" ("client_id" text primary key,
    "organisation_id" text not null references "organisations" ("id"), "name" text,
    "secret_digest" text not null, "scopes" text not null, "created_at" bigint not null, "revoked_at" bigint)`,
  `create index "api_clients_by_org" on "api_clients" ("organisation_id", "created_at")`,
  `create table "access_tokens" ("digest" text primary key,
    "client_id" text not null references "api_clients" ("client_id"), "organisation_id" text not null,
    "scopes" text not null, "expires_at" bigint not null)`,
  `create index "access_tokens_by_expiry" on "access_tokens" ("expires_at")`,
  `create table "rate_events" ("key" text not null, "at" bigint not null)`,
  `create index "rate_events_by_key" on "rate_events" ("key", "at")`,
  `create table "employees" ("organisation_id" text not null references "organisations" ("id"),
    "id" text not null, "external_id" text, "first_name" text, "last_name" text, "preferred_name" text,
    "job_title" text, "department" text, "status" text not null, "start_date" ${date}, "leaving_date" ${date},
    "holiday_calendar" text, "content_digest" text not null, "updated_at" bigint not null, "deleted_at" bigint,
    constraint "employees_pk" primary key ("organisation_id", "id"))`,
  `create index "employees_by_update" on "employees" ("organisation_id", "updated_at", "id")`,
  `create table "leave_types" ("organisation_id" text not null references "organisations" ("id"),
    "id" text not null, "name" text not null, "category" text not null, "is_paid" ${bool} not null,
    "updated_at" bigint not null, constraint "leave_types_pk" primary key ("organisation_id", "id"))`,
  `create table "leave_bookings" ("organisation_id" text not null references "organisations" ("id"),
    "id" text not null, "external_id" text, "employee_id" text not null, "leave_type_id" text not null,
    "start_date" ${date} not null, "end_date" ${date} not null, "start_half_day" ${bool} not null,
    "start_half_period" text, "end_half_day" ${bool} not null, "end_half_period" text, "days" real not null,
    "status" text not null, "requested_at" bigint, "reviewed_at" bigint, "cancelled_at" bigint,
    "content_digest" text not null, "updated_at" bigint not null, "deleted_at" bigint,
    constraint "leave_bookings_pk" primary key ("organisation_id", "id"),
    constraint "leave_bookings_employee_fk" foreign key ("organisation_id",
    "employee_id") references "employees" ("organisation_id", "id"),
    constraint "leave_bookings_type_fk" foreign key ("organisation_id",
    "leave_type_id") references "leave_types" ("organisation_id", "id"))`,
  `create index "leave_bookings_by_start" on "leave_bookings" ("organisation_id", "start_date", "id",
    "end_date")`,
  `create index "leave_bookings_by_type" on "leave_bookings" ("organisation_id", "leave_type_id")`,
  `create index "leave_bookings_by_employee" on "leave_bookings" ("organisation_id", "employee_id",
    "start_date")`,
  `create table "leave_spans" ("organisation_id" text primary key references "organisations" ("id"),
    "max_span_days" integer not null)`,
  `create table "closure_days" ("organisation_id" text not null references "organisations" ("id"),
    "id" text not null, "date" ${date} not null, "name" text not null, "applies_to" text not null,
    "department" text, "location" text, "deducts_from_leave" ${bool} not null, "content_digest" text not null,
    "updated_at" bigint not null, "deleted_at" bigint,
    constraint "closure_days_pk" primary key ("organisation_id", "id"))`,
  `create index "closure_days_by_date" on "closure_days" ("organisation_id", "date")`,
  `create table "public_holidays" ("organisation_id" text not null references "organisations" ("id"),
    "calendar" text not null, "year" integer not null, "date" ${date} not null, "name" text not null,
    constraint "public_holidays_pk" primary key ("organisation_id", "calendar", "date"))`,
  `create index "public_holidays_by_year" on "public_holidays" ("organisation_id", "calendar", "year")`,
];

// The leave page (leave-page/leave-page-queries.ts) reads only this index: it leads with the
// booking's span class (leave-page/leave-span-classes.ts), an expression rather than a generated
// column because SQLite never reads a virtual generated column from an index (the page
// would read every row from the table: half its time at a million bookings), and holds
// every column the page shows or filters on, in page order, so a page is a few adjacent
// leaf pages. The page query must repeat the expression word for word for the planner to
// match them. Deleted employees' bookings are left out against the (usually empty) set of
// deleted employees, read once per page from a partial index, not by looking up each
// booking's employee. The leave-type index served only a rare rename's update of its
// bookings' updated_at; that now scans the organisation's bookings, and every import
// writes one index fewer.
const LEAVE_PAGE_INDEX: Record<Dialect, readonly string[]> = {
  sqlite: [
    `create index leave_bookings_page on leave_bookings (organisation_id, (case
      when (julianday(end_date) - julianday(start_date)) < 1 then 0
      when (julianday(end_date) - julianday(start_date)) < 2 then 1
      when (julianday(end_date) - julianday(start_date)) < 4 then 2
      when (julianday(end_date) - julianday(start_date)) < 8 then 3
      when (julianday(end_date) - julianday(start_date)) < 16 then 4
      when (julianday(end_date) - julianday(start_date)) < 32 then 5
      when (julianday(end_date) - julianday(start_date)) < 64 then 6
      when (julianday(end_date) - julianday(start_date)) < 128 then 7
      when (julianday(end_date) - julianday(start_date)) < 256 then 8
      when (julianday(end_date) - julianday(start_date)) < 512 then 9 else 10 end), start_date, id, end_date,
      deleted_at, employee_id, leave_type_id, status, updated_at, days, start_half_day, start_half_period,
      end_half_day, end_half_period, requested_at, reviewed_at, cancelled_at)`,
    `drop index "leave_bookings_by_start"`,
    `drop index "leave_bookings_by_type"`,
    `create index "employees_deleted" on "employees" ("organisation_id", "id") where "deleted_at" is not null`,
  ],
  postgres: [
    `create index leave_bookings_page on leave_bookings (organisation_id, (case
      when (end_date - start_date) < 1 then 0 when (end_date - start_date) < 2 then 1
      when (end_date - start_date) < 4 then 2 when (end_date - start_date) < 8 then 3
      when (end_date - start_date) < 16 then 4 when (end_date - start_date) < 32 then 5
      when (end_date - start_date) < 64 then 6 when (end_date - start_date) < 128 then 7
      when (end_date - start_date) < 256 then 8 when (end_date - start_date) < 512 then 9 else 10 end),
      start_date, id, end_date, deleted_at, employee_id, leave_type_id, status, updated_at, days,
      start_half_day, start_half_period, end_half_day, end_half_period, requested_at, reviewed_at, cancelled_at)`,
    `drop index "leave_bookings_by_start"`,
    `drop index "leave_bookings_by_type"`,
    `create index "employees_deleted" on "employees" ("organisation_id", "id") where "deleted_at" is not null`,
  ],
};

// A rotated-out client secret, kept by digest until its grace period ends (docs/cli.md,
// "credentials rotate"): the same statements on both dialects.
const CLIENT_SECRET_ROTATION: readonly string[] = [
  `alter table "api_clients" add column "previous_secret_digest" text`,
  `alter table "api_clients" add column "previous_secret_expires_at" bigint`,
];

// Tombstones of the deletions feed (docs/api.md, "GET /v1/deletions"): one row a record
// its list endpoint no longer returns, written and removed in the import's transaction
// (sql-import-writer.ts). A page is one scan of the second index, so its cost does not
// grow with the number of tombstones. No reference to organisations: an organisation's
// tombstones go with it, as its other rows do, when it is deleted.
const DELETIONS: readonly string[] = [
  `create table "deletions" ("organisation_id" text not null, "resource" text not null, "id" text not null,
    "deleted_at" bigint not null, constraint "deletions_pk" primary key ("organisation_id", "resource", "id"))`,
  `create index "deletions_page" on "deletions" ("organisation_id", "resource", "deleted_at", "id")`,
];

// The holiday calendars the organisation's employees observe (observed-calendars.ts): a
// few entries of this index per calendar, instead of every employee, answer which
// calendars have someone employed in a range. Partial, so deleted employees and those
// without a calendar are not in it; deleted_at, null in every entry, is in it so that
// SQLite reads the index alone. The same statement on both dialects.
const OBSERVED_CALENDARS: readonly string[] = [
  `create index "employees_observed_calendars" on "employees" ("organisation_id", "holiday_calendar", "start_date",
    "leaving_date", "deleted_at") where "deleted_at" is null and "holiday_calendar" is not null`,
];

// Records kept as JSON text (record-bodies.ts): each employee's and booking's body as
// a page writes it, so that a page is one index scan and a string join rather than a
// dozen columns a row turned into objects and serialized again. The import writes the
// body with the record; a record written before this had none until `migrate` rendered
// it, asked to by the installation row `render_pending` (since 0011, render-bodies.ts
// writes them again whenever what a body holds changes).
//
// The leave page index keeps what a page filters and orders on, and the body in place
// of the ten columns it replaces: a page merges one scan per span class, and each
// column it carries costs at every step of the merge (a deep page took several times as
// long with 15 columns as with 2). On SQLite the employees page gets an index of its own in the
// same way (deleted_at in it too, always null there: SQLite counts an index as covering
// only when it holds every column the query names, its own WHERE's included); Postgres
// keeps employees_by_update, as an index entry there is limited to about 2.7 kB and an
// employee's free-text fields can outgrow it (a booking's body holds no free text).
const SPAN_CLASS_0006: Record<Dialect, string> = {
  sqlite: `(case
      when (julianday(end_date) - julianday(start_date)) < 1 then 0
      when (julianday(end_date) - julianday(start_date)) < 2 then 1
      when (julianday(end_date) - julianday(start_date)) < 4 then 2
      when (julianday(end_date) - julianday(start_date)) < 8 then 3
      when (julianday(end_date) - julianday(start_date)) < 16 then 4
      when (julianday(end_date) - julianday(start_date)) < 32 then 5
      when (julianday(end_date) - julianday(start_date)) < 64 then 6
      when (julianday(end_date) - julianday(start_date)) < 128 then 7
      when (julianday(end_date) - julianday(start_date)) < 256 then 8
      when (julianday(end_date) - julianday(start_date)) < 512 then 9 else 10 end)`,
  postgres: `(case
      when (end_date - start_date) < 1 then 0 when (end_date - start_date) < 2 then 1
      when (end_date - start_date) < 4 then 2 when (end_date - start_date) < 8 then 3
      when (end_date - start_date) < 16 then 4 when (end_date - start_date) < 32 then 5
      when (end_date - start_date) < 64 then 6 when (end_date - start_date) < 128 then 7
      when (end_date - start_date) < 256 then 8 when (end_date - start_date) < 512 then 9 else 10 end)`,
};

const RENDERED_RECORDS: Record<Dialect, readonly string[]> = {
  sqlite: [
    `alter table "employees" add column "rendered" text`,
    `alter table "leave_bookings" add column "rendered" text`,
    `insert into "installation" ("name", "value") values ('render_pending', '0006')`,
    `create index "employees_page" on "employees" ("organisation_id", "updated_at", "id", "status", "deleted_at", "rendered")
      where "deleted_at" is null`,
    `drop index "employees_by_update"`,
    `drop index "leave_bookings_page"`,
    `create index leave_bookings_page on leave_bookings (organisation_id, ${SPAN_CLASS_0006.sqlite}, start_date, id, end_date,
      deleted_at, employee_id, leave_type_id, status, updated_at, rendered)`,
  ],
  postgres: [
    `alter table "employees" add column "rendered" text`,
    `alter table "leave_bookings" add column "rendered" text`,
    `insert into "installation" ("name", "value") values ('render_pending', '0006')`,
    `drop index "leave_bookings_page"`,
    `create index leave_bookings_page on leave_bookings (organisation_id, ${SPAN_CLASS_0006.postgres},
      start_date, id, end_date, deleted_at, employee_id, leave_type_id, status, updated_at, rendered)`,
  ],
};

// When each import's changes became visible (published-stamps.ts, docs/api.md,
// "Incremental sync"): an import writes its records with the stamp it started with, and
// records here, in its own transaction, the instant it published them. A page shows a
// record's `updated_at` (a tombstone's `deleted_at`) as that instant, so a change that took
// minutes to commit is not stamped minutes before anyone could see it. The second index
// turns a sync's `updated_since` into the stamps to scan from. The same statements on
// both dialects.
const PUBLICATIONS: readonly string[] = [
  `create table "publications" ("organisation_id" text not null, "stamp" bigint not null,
    "published_at" bigint not null, constraint "publications_pk" primary key ("organisation_id", "stamp"))`,
  `create index "publications_by_time" on "publications" ("organisation_id", "published_at")`,
];

// On SQLite, access tokens and rate-limit events move to the tokens file beside the data
// (sqlite-store.ts, `attachTokensFile`, which has made their tables there by now), so that
// token requests never wait for an import's lock. Tokens still live keep working. Nothing
// changes on Postgres, where a row lock is all an import holds.
const TOKENS_FILE: Record<Dialect, readonly string[]> = {
  sqlite: [
    `insert or ignore into tokens.access_tokens select "digest", "client_id", "organisation_id", "scopes", "expires_at"
      from main.access_tokens`,
    `drop table main.access_tokens`,
    `insert into tokens.rate_events select "key", "at" from main.rate_events`,
    `drop table main.rate_events`,
  ],
  postgres: [],
};

/** Runs `statements` only where the tokens file is attached: under Deno, whose SQLite attaches nothing, the tables stay. */
function moveTokensWhereAttached(statements: readonly string[]): (db: AnyDb) => Promise<void> {
  return async (db) => {
    if (statements.length === 0) return;
    const { rows } = await sql<{ name: string }>`pragma database_list`.execute(db);
    if (rows.some((r) => r.name === "tokens")) await run(statements)(db);
  };
}

// When each client last obtained a token, for `credentials list` (docs/api.md, "Personal data"): written at
// most once a minute per client (token-queries.ts). On SQLite the table is in the tokens
// file, made when the file is attached (sqlite-store.ts), except under Deno.
const CLIENT_USAGE: Record<Dialect, readonly string[]> = {
  sqlite: [`create table if not exists "client_usage" ("client_id" text primary key, "last_used_at" bigint not null)`],
  postgres: [`create table "client_usage" ("client_id" text primary key, "last_used_at" bigint not null)`],
};

/** On SQLite only where no tokens file is attached (Deno): there the table lives in the data file. */
function clientUsage(caps: SqlCapabilities): (db: AnyDb) => Promise<void> {
  return async (db) => {
    if (caps.dialect === "sqlite" && (await sql<{ name: string }>`pragma database_list`.execute(db)).rows.some((r) => r.name === "tokens")) return;
    await run(CLIENT_USAGE[caps.dialect])(db);
  };
}

// A deleted employee or booking keeps nothing but what its tombstone holds (docs/api.md,
// "Personal data"): imports now delete them outright, and the ones an earlier
// version kept, soft-deleted with every field, go here, with the bookings of deleted
// employees. Their tombstones (the deletions feed) stay. The same statements on both dialects.
const DELETED_RECORDS_ERASED: readonly string[] = [
  `delete from "leave_bookings" where "deleted_at" is not null or exists (select 1 from "employees" as e
    where e."organisation_id" = "leave_bookings"."organisation_id" and e."id" = "leave_bookings"."employee_id" and e."deleted_at" is not null)`,
  `delete from "employees" where "deleted_at" is not null`,
];

// The kept bodies are written by one versioned function from now on (render-bodies.ts):
// the installation row `bodies_version` names what they hold, and `migrate` writes them
// all again when it differs from the field list's. The bodies 0006 asked for are
// complete unless `render_pending` is still there; then no version is recorded and the
// next `migrate` writes them all. The literal is what they held when this shipped.
const BODIES_VERSIONED: readonly string[] = [
  `insert into "installation" ("name", "value") select 'bodies_version', '1;employees=id:text,first_name:text?,last_name:text?,preferred_name:text?,job_title:text?,department:text?,status:text,start_date:date?,leaving_date:date?,holiday_calendar:text?,updated_at:stamp;leave=id:text,employee_id:text,leave_type:leave_type,start_date:date,end_date:date,start_half_day:flag,start_half_period:half_period?,end_half_day:flag,end_half_period:half_period?,days:days,status:leave_status,requested_at:instant?,reviewed_at:instant?,cancelled_at:instant?,updated_at:stamp'
    where not exists (select 1 from "installation" where "name" = 'render_pending')`,
  `delete from "installation" where "name" = 'render_pending'`,
];

// Each span class's longest booking, in place of the organisation's longest: a page scans
// each class from `from` minus the longest span among its own bookings, not the longest
// its class could hold (adapters/sql/leave-page/leave-span-plan.ts), and skips a class with none. Filled here
// from the bookings stored; imports keep it from then on, in the transaction that writes
// the bookings.
const LEAVE_CLASS_SPANS: Record<Dialect, readonly string[]> = {
  sqlite: [
    `create table "leave_class_spans" ("organisation_id" text not null references "organisations" ("id"),
      "span_class" integer not null, "max_span_days" integer not null,
      constraint "leave_class_spans_pk" primary key ("organisation_id", "span_class"))`,
    `insert into "leave_class_spans" ("organisation_id", "span_class", "max_span_days")
      select "organisation_id", ${SPAN_CLASS_0006.sqlite}, max(cast(julianday(end_date) - julianday(start_date) as integer))
      from "leave_bookings" group by 1, 2`,
    `drop table "leave_spans"`,
  ],
  postgres: [
    `create table "leave_class_spans" ("organisation_id" text not null references "organisations" ("id"),
      "span_class" integer not null, "max_span_days" integer not null,
      constraint "leave_class_spans_pk" primary key ("organisation_id", "span_class"))`,
    `insert into "leave_class_spans" ("organisation_id", "span_class", "max_span_days")
      select "organisation_id", ${SPAN_CLASS_0006.postgres}, max(end_date - start_date)
      from "leave_bookings" group by 1, 2`,
    `drop table "leave_spans"`,
  ],
};

export function schemaMigrations(caps: SqlCapabilities): Record<string, Migration> {
  return {
    "0001_initial": { up: run(initial(TYPES_0001[caps.dialect])) },
    "0002_leave_page_index": { up: run(LEAVE_PAGE_INDEX[caps.dialect]) },
    "0003_client_secret_rotation": { up: run(CLIENT_SECRET_ROTATION) },
    "0004_deletions": { up: run(DELETIONS) },
    "0005_observed_calendars": { up: run(OBSERVED_CALENDARS) },
    "0006_rendered_records": { up: run(RENDERED_RECORDS[caps.dialect]) },
    "0007_publications": { up: run(PUBLICATIONS) },
    "0008_tokens_file": { up: moveTokensWhereAttached(TOKENS_FILE[caps.dialect]) },
    "0009_client_usage": { up: clientUsage(caps) },
    "0010_deleted_records_erased": { up: run(DELETED_RECORDS_ERASED) },
    "0011_bodies_versioned": { up: run(BODIES_VERSIONED) },
    "0012_leave_class_spans": { up: run(LEAVE_CLASS_SPANS[caps.dialect]) },
    ...laterMigrations(caps),
  };
}
