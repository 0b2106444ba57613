/**
 * The schema, as migrations listed in code so that a compiled binary carries them.
 * One list serves SQLite and Postgres; column types come from the capabilities.
 * Append new migrations; never edit one that has shipped.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import { LEAVE_PAGE_INDEX_COLUMNS, spanClassExpression } from "./leave-span-classes.ts";

// Migrations run before the typed schema exists, so they take an untyped Kysely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export function schemaMigrations(caps: SqlCapabilities): Record<string, Migration> {
  const date = caps.dateType;
  const bool = caps.booleanType;
  return {
    "0001_initial": {
      async up(db: AnyDb) {
        await db.schema
          .createTable("installation")
          .addColumn("name", "text", (c) => c.primaryKey())
          .addColumn("value", "text", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("organisations")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("api_enabled", bool, (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("api_clients")
          .addColumn("client_id", "text", (c) => c.primaryKey())
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("name", "text")
          .addColumn("secret_digest", "text", (c) => c.notNull())
          .addColumn("scopes", "text", (c) => c.notNull())
          .addColumn("created_at", "bigint", (c) => c.notNull())
          .addColumn("revoked_at", "bigint")
          .execute();
        await db.schema.createIndex("api_clients_by_org").on("api_clients").columns(["organisation_id", "created_at"]).execute();

        await db.schema
          .createTable("access_tokens")
          .addColumn("digest", "text", (c) => c.primaryKey())
          .addColumn("client_id", "text", (c) => c.notNull().references("api_clients.client_id"))
          .addColumn("organisation_id", "text", (c) => c.notNull())
          .addColumn("scopes", "text", (c) => c.notNull())
          .addColumn("expires_at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("access_tokens_by_expiry").on("access_tokens").column("expires_at").execute();

        await db.schema
          .createTable("rate_events")
          .addColumn("key", "text", (c) => c.notNull())
          .addColumn("at", "bigint", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("rate_events_by_key").on("rate_events").columns(["key", "at"]).execute();

        await db.schema
          .createTable("employees")
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("external_id", "text")
          .addColumn("first_name", "text")
          .addColumn("last_name", "text")
          .addColumn("preferred_name", "text")
          .addColumn("job_title", "text")
          .addColumn("department", "text")
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("start_date", date)
          .addColumn("leaving_date", date)
          .addColumn("holiday_calendar", "text")
          .addColumn("content_digest", "text", (c) => c.notNull())
          .addColumn("updated_at", "bigint", (c) => c.notNull())
          .addColumn("deleted_at", "bigint")
          .addPrimaryKeyConstraint("employees_pk", ["organisation_id", "id"])
          .execute();
        // The employees page: keyset on (updated_at, id) within an organisation.
        await db.schema
          .createIndex("employees_by_update")
          .on("employees")
          .columns(["organisation_id", "updated_at", "id"])
          .execute();

        await db.schema
          .createTable("leave_types")
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("category", "text", (c) => c.notNull())
          .addColumn("is_paid", bool, (c) => c.notNull())
          .addColumn("updated_at", "bigint", (c) => c.notNull())
          .addPrimaryKeyConstraint("leave_types_pk", ["organisation_id", "id"])
          .execute();

        await db.schema
          .createTable("leave_bookings")
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("external_id", "text")
          .addColumn("employee_id", "text", (c) => c.notNull())
          .addColumn("leave_type_id", "text", (c) => c.notNull())
          .addColumn("start_date", date, (c) => c.notNull())
          .addColumn("end_date", date, (c) => c.notNull())
          .addColumn("start_half_day", bool, (c) => c.notNull())
          .addColumn("start_half_period", "text")
          .addColumn("end_half_day", bool, (c) => c.notNull())
          .addColumn("end_half_period", "text")
          .addColumn("days", "real", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("requested_at", "bigint")
          .addColumn("reviewed_at", "bigint")
          .addColumn("cancelled_at", "bigint")
          .addColumn("content_digest", "text", (c) => c.notNull())
          .addColumn("updated_at", "bigint", (c) => c.notNull())
          .addColumn("deleted_at", "bigint")
          .addPrimaryKeyConstraint("leave_bookings_pk", ["organisation_id", "id"])
          .addForeignKeyConstraint("leave_bookings_employee_fk", ["organisation_id", "employee_id"], "employees", ["organisation_id", "id"])
          .addForeignKeyConstraint("leave_bookings_type_fk", ["organisation_id", "leave_type_id"], "leave_types", ["organisation_id", "id"])
          .execute();
        // The leave page: keyset on (start_date, id); end_date rides along so the overlap
        // test is answered from the index before a row is read.
        await db.schema
          .createIndex("leave_bookings_by_start")
          .on("leave_bookings")
          .columns(["organisation_id", "start_date", "id", "end_date"])
          .execute();
        await db.schema
          .createIndex("leave_bookings_by_type")
          .on("leave_bookings")
          .columns(["organisation_id", "leave_type_id"])
          .execute();
        await db.schema
          .createIndex("leave_bookings_by_employee")
          .on("leave_bookings")
          .columns(["organisation_id", "employee_id", "start_date"])
          .execute();

        await db.schema
          .createTable("leave_spans")
          .addColumn("organisation_id", "text", (c) => c.primaryKey().references("organisations.id"))
          .addColumn("max_span_days", "integer", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("closure_days")
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("date", date, (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("applies_to", "text", (c) => c.notNull())
          .addColumn("department", "text")
          .addColumn("location", "text")
          .addColumn("deducts_from_leave", bool, (c) => c.notNull())
          .addColumn("content_digest", "text", (c) => c.notNull())
          .addColumn("updated_at", "bigint", (c) => c.notNull())
          .addColumn("deleted_at", "bigint")
          .addPrimaryKeyConstraint("closure_days_pk", ["organisation_id", "id"])
          .execute();
        await db.schema.createIndex("closure_days_by_date").on("closure_days").columns(["organisation_id", "date"]).execute();

        await db.schema
          .createTable("public_holidays")
          .addColumn("organisation_id", "text", (c) => c.notNull().references("organisations.id"))
          .addColumn("calendar", "text", (c) => c.notNull())
          .addColumn("year", "integer", (c) => c.notNull())
          .addColumn("date", date, (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("public_holidays_pk", ["organisation_id", "calendar", "date"])
          .execute();
        await db.schema
          .createIndex("public_holidays_by_year")
          .on("public_holidays")
          .columns(["organisation_id", "calendar", "year"])
          .execute();
      },
    },
    // The leave page (leave-span-classes.ts) reads only this index: it leads with the
    // booking's span class, an expression rather than a generated column because SQLite
    // never reads a virtual generated column from an index (the page would read every
    // row from the table: half its time at a million bookings), and holds every column
    // the page shows or filters on, in page order, so a page is a few adjacent leaf
    // pages. Deleted employees' bookings are left out against the (usually empty) set of
    // deleted employees, read once per page from a partial index, not by looking up each
    // booking's employee. The leave-type index served only a rare rename's update of its
    // bookings' updated_at; that now scans the organisation's bookings, and every import
    // writes one index fewer.
    "0002_leave_page_index": {
      async up(db: AnyDb) {
        const columns = LEAVE_PAGE_INDEX_COLUMNS.map((c) => (c === "span_class" ? `(${spanClassExpression(caps)})` : c));
        await sql`create index leave_bookings_page on leave_bookings (${sql.raw(columns.join(", "))})`.execute(db);
        await db.schema.dropIndex("leave_bookings_by_start").execute();
        await db.schema.dropIndex("leave_bookings_by_type").execute();
        await db.schema
          .createIndex("employees_deleted")
          .on("employees")
          .columns(["organisation_id", "id"])
          .where(sql.ref("deleted_at"), "is not", null)
          .execute();
      },
    },
  };
}
