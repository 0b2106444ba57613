/**
 * The admin side of the SQL store: organisations, clients, and the import writer.
 * Upserts read the stored digests first and write only new or changed rows, so an
 * identical re-import leaves every `updated_at` where it was.
 */
import { Migrator, sql, type Kysely } from "kysely";
import { sha256Hex } from "../../lib/digest.ts";
import { parseDate } from "../../lib/dates.ts";
import type {
  AdminStore,
  ClosureDayInput,
  EmployeeCalendarFacts,
  EmployeeInput,
  ImportWriter,
  LeaveBookingInput,
  NewClient,
  WriteCounts,
} from "../../lib/admin-store.ts";
import type { ApiClient, Organisation } from "../../lib/store.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import { schemaMigrations } from "./migrations.ts";
import { bool, instant, instantOrNull, scopeList } from "./row-mapping.ts";
import { SqlStore, listClosureDaysQuery, listImportedPublicHolidaysQuery } from "./sql-store.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";

const BATCH = 400;

const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

function chunks<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Later rows with the same id win, as they would if written one by one. */
function lastById<T extends { id: string }>(rows: T[]): T[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()];
}

function toClient(r: {
  client_id: string;
  organisation_id: string;
  name: string | null;
  scopes: string;
  created_at: number | string;
  revoked_at: number | string | null;
}): ApiClient {
  return {
    client_id: r.client_id,
    organisation_id: r.organisation_id,
    name: r.name,
    scopes: scopeList(r.scopes),
    created_at: instant(r.created_at),
    revoked_at: instantOrNull(r.revoked_at),
  };
}

function toOrganisation(r: { id: string; name: string; api_enabled: boolean | number; created_at: number | string }): Organisation {
  return { id: r.id, name: r.name, api_enabled: bool(r.api_enabled), created_at: instant(r.created_at) };
}

type Digested = "employees" | "leave_bookings" | "closure_days";

/**
 * A digest of what a client can see of a record, over its fields in sorted order (so the
 * order an input was built in does not matter). `external_id` is left out: the API never
 * shows it, so it must not move `updated_at`, and an import that omits it keeps the
 * stored one.
 */
function contentDigest(row: object): string {
  const entries = Object.entries(row)
    .filter(([key]) => key !== "external_id")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(JSON.stringify(entries));
}

class SqlImportWriter implements ImportWriter {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly boolValue: (b: boolean) => boolean | number,
  ) {}

  /** Splits rows into new, changed and unchanged by their stored digest. */
  private async classify<T extends { id: string; digest: string }>(table: Digested, organisationId: string, rows: T[]) {
    const stored = new Map<string, { digest: string; deleted: boolean }>();
    if (rows.length > 0) {
      const found = await this.db
        .selectFrom(table)
        .select(["id", "content_digest", "deleted_at"])
        .where("organisation_id", "=", organisationId)
        .where("id", "in", rows.map((r) => r.id))
        .execute();
      for (const f of found) stored.set(f.id, { digest: f.content_digest, deleted: f.deleted_at !== null });
    }
    const created: T[] = [];
    const changed: T[] = [];
    for (const row of rows) {
      const s = stored.get(row.id);
      if (!s) created.push(row);
      else if (s.deleted || s.digest !== row.digest) changed.push(row);
    }
    return { created, changed, unchanged: rows.length - created.length - changed.length };
  }

  async upsertEmployees(organisationId: string, rows: EmployeeInput[], now: number): Promise<WriteCounts> {
    const counts = noCounts();
    for (const batch of chunks(lastById(rows))) {
      const digested = batch.map((r) => ({ ...r, digest: contentDigest(r) }));
      const { created, changed, unchanged } = await this.classify("employees", organisationId, digested);
      counts.created += created.length;
      counts.updated += changed.length;
      counts.unchanged += unchanged;
      const writes = [...created, ...changed];
      if (writes.length === 0) continue;
      await this.db
        .insertInto("employees")
        .values(
          writes.map((r) => ({
            organisation_id: organisationId,
            id: r.id,
            external_id: r.external_id,
            first_name: r.first_name,
            last_name: r.last_name,
            preferred_name: r.preferred_name,
            job_title: r.job_title,
            department: r.department,
            status: r.status,
            start_date: r.start_date,
            leaving_date: r.leaving_date,
            holiday_calendar: r.holiday_calendar,
            content_digest: r.digest,
            updated_at: now,
            deleted_at: null,
          })),
        )
        .onConflict((oc) =>
          oc.columns(["organisation_id", "id"]).doUpdateSet((eb) => ({
            external_id: eb.fn.coalesce("excluded.external_id", "employees.external_id"),
            first_name: eb.ref("excluded.first_name"),
            last_name: eb.ref("excluded.last_name"),
            preferred_name: eb.ref("excluded.preferred_name"),
            job_title: eb.ref("excluded.job_title"),
            department: eb.ref("excluded.department"),
            status: eb.ref("excluded.status"),
            start_date: eb.ref("excluded.start_date"),
            leaving_date: eb.ref("excluded.leaving_date"),
            holiday_calendar: eb.ref("excluded.holiday_calendar"),
            content_digest: eb.ref("excluded.content_digest"),
            updated_at: eb.ref("excluded.updated_at"),
            deleted_at: null,
          })),
        )
        .execute();
    }
    return counts;
  }

  private async softDelete(table: Digested, organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
    const counts = noCounts();
    for (const batch of chunks([...new Set(ids)])) {
      const result = await this.db
        .updateTable(table)
        .set({ deleted_at: now, updated_at: now })
        .where("organisation_id", "=", organisationId)
        .where("id", "in", batch)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      const n = Number(result.numUpdatedRows);
      counts.deleted += n;
      counts.unchanged += batch.length - n;
    }
    return counts;
  }

  deleteEmployees(organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
    return this.softDelete("employees", organisationId, ids, now);
  }

  async employeeFacts(organisationId: string, ids: string[]): Promise<Map<string, EmployeeCalendarFacts>> {
    const facts = new Map<string, EmployeeCalendarFacts>();
    for (const batch of chunks([...new Set(ids)])) {
      const rows = await this.db
        .selectFrom("employees")
        .select(["id", "department", "holiday_calendar"])
        .where("organisation_id", "=", organisationId)
        .where("id", "in", batch)
        .where("deleted_at", "is", null)
        .execute();
      for (const r of rows) facts.set(r.id, { department: r.department, holiday_calendar: r.holiday_calendar });
    }
    return facts;
  }

  async upsertLeaveTypes(organisationId: string, types: LeaveTypeRecord[], now: number): Promise<WriteCounts> {
    const counts = noCounts();
    for (const t of lastById(types)) {
      const stored = await this.db
        .selectFrom("leave_types")
        .select(["name", "category", "is_paid"])
        .where("organisation_id", "=", organisationId)
        .where("id", "=", t.id)
        .executeTakeFirst();
      if (stored && stored.name === t.name && stored.category === t.category && bool(stored.is_paid) === t.is_paid) {
        counts.unchanged++;
        continue;
      }
      if (stored) {
        counts.updated++;
        await this.db
          .updateTable("leave_types")
          .set({ name: t.name, category: t.category, is_paid: this.boolValue(t.is_paid), updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("id", "=", t.id)
          .execute();
        // Bookings embed their leave type, so what a client sees of them changed too (DECISIONS §6).
        await this.db
          .updateTable("leave_bookings")
          .set({ updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("leave_type_id", "=", t.id)
          .execute();
      } else {
        counts.created++;
        await this.db
          .insertInto("leave_types")
          .values({
            organisation_id: organisationId,
            id: t.id,
            name: t.name,
            category: t.category,
            is_paid: this.boolValue(t.is_paid),
            updated_at: now,
          })
          .execute();
      }
    }
    return counts;
  }

  async upsertLeaveBookings(organisationId: string, rows: LeaveBookingInput[], now: number): Promise<WriteCounts> {
    const counts = noCounts();
    let longest = 0;
    for (const batch of chunks(lastById(rows))) {
      const digested = batch.map((r) => ({ ...r, digest: contentDigest(r) }));
      const { created, changed, unchanged } = await this.classify("leave_bookings", organisationId, digested);
      counts.created += created.length;
      counts.updated += changed.length;
      counts.unchanged += unchanged;
      const writes = [...created, ...changed];
      if (writes.length === 0) continue;
      for (const r of writes) longest = Math.max(longest, parseDate(r.end_date)! - parseDate(r.start_date)!);
      await this.db
        .insertInto("leave_bookings")
        .values(
          writes.map((r) => ({
            organisation_id: organisationId,
            id: r.id,
            external_id: r.external_id,
            employee_id: r.employee_id,
            leave_type_id: r.leave_type_id,
            start_date: r.start_date,
            end_date: r.end_date,
            start_half_day: this.boolValue(r.start_half_day),
            start_half_period: r.start_half_period,
            end_half_day: this.boolValue(r.end_half_day),
            end_half_period: r.end_half_period,
            days: r.days,
            status: r.status,
            requested_at: r.requested_at,
            reviewed_at: r.reviewed_at,
            cancelled_at: r.cancelled_at,
            content_digest: r.digest,
            updated_at: now,
            deleted_at: null,
          })),
        )
        .onConflict((oc) =>
          oc.columns(["organisation_id", "id"]).doUpdateSet((eb) => ({
            external_id: eb.fn.coalesce("excluded.external_id", "leave_bookings.external_id"),
            employee_id: eb.ref("excluded.employee_id"),
            leave_type_id: eb.ref("excluded.leave_type_id"),
            start_date: eb.ref("excluded.start_date"),
            end_date: eb.ref("excluded.end_date"),
            start_half_day: eb.ref("excluded.start_half_day"),
            start_half_period: eb.ref("excluded.start_half_period"),
            end_half_day: eb.ref("excluded.end_half_day"),
            end_half_period: eb.ref("excluded.end_half_period"),
            days: eb.ref("excluded.days"),
            status: eb.ref("excluded.status"),
            requested_at: eb.ref("excluded.requested_at"),
            reviewed_at: eb.ref("excluded.reviewed_at"),
            cancelled_at: eb.ref("excluded.cancelled_at"),
            content_digest: eb.ref("excluded.content_digest"),
            updated_at: eb.ref("excluded.updated_at"),
            deleted_at: null,
          })),
        )
        .execute();
    }
    if (longest > 0) await this.widenLeaveSpan(organisationId, longest);
    return counts;
  }

  /** Keeps the longest booking span, which bounds the overlap scan from below. It only grows. */
  private async widenLeaveSpan(organisationId: string, days: number): Promise<void> {
    await this.db
      .insertInto("leave_spans")
      .values({ organisation_id: organisationId, max_span_days: days })
      .onConflict((oc) =>
        oc
          .column("organisation_id")
          .doUpdateSet({ max_span_days: days })
          .where("leave_spans.max_span_days", "<", days),
      )
      .execute();
  }

  deleteLeaveBookings(organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
    return this.softDelete("leave_bookings", organisationId, ids, now);
  }

  async upsertClosureDays(organisationId: string, rows: ClosureDayInput[], now: number): Promise<WriteCounts> {
    const counts = noCounts();
    for (const batch of chunks(lastById(rows))) {
      const digested = batch.map((r) => ({ ...r, digest: contentDigest(r) }));
      const { created, changed, unchanged } = await this.classify("closure_days", organisationId, digested);
      counts.created += created.length;
      counts.updated += changed.length;
      counts.unchanged += unchanged;
      const writes = [...created, ...changed];
      if (writes.length === 0) continue;
      await this.db
        .insertInto("closure_days")
        .values(
          writes.map((r) => ({
            organisation_id: organisationId,
            id: r.id,
            date: r.date,
            name: r.name,
            applies_to: r.applies_to,
            department: r.department,
            location: r.location,
            deducts_from_leave: this.boolValue(r.deducts_from_leave),
            content_digest: r.digest,
            updated_at: now,
            deleted_at: null,
          })),
        )
        .onConflict((oc) =>
          oc.columns(["organisation_id", "id"]).doUpdateSet((eb) => ({
            date: eb.ref("excluded.date"),
            name: eb.ref("excluded.name"),
            applies_to: eb.ref("excluded.applies_to"),
            department: eb.ref("excluded.department"),
            location: eb.ref("excluded.location"),
            deducts_from_leave: eb.ref("excluded.deducts_from_leave"),
            content_digest: eb.ref("excluded.content_digest"),
            updated_at: eb.ref("excluded.updated_at"),
            deleted_at: null,
          })),
        )
        .execute();
    }
    return counts;
  }

  deleteClosureDays(organisationId: string, ids: string[], now: number): Promise<WriteCounts> {
    return this.softDelete("closure_days", organisationId, ids, now);
  }

  async replacePublicHolidays(
    organisationId: string,
    calendar: string,
    year: number,
    rows: { date: string; name: string }[],
  ): Promise<void> {
    await this.db
      .deleteFrom("public_holidays")
      .where("organisation_id", "=", organisationId)
      .where("calendar", "=", calendar)
      .where("year", "=", year)
      .execute();
    for (const batch of chunks(rows)) {
      await this.db
        .insertInto("public_holidays")
        .values(batch.map((r) => ({ organisation_id: organisationId, calendar, year, date: r.date, name: r.name })))
        .execute();
    }
  }

  listClosureDays(organisationId: string, from: string, to: string) {
    return listClosureDaysQuery(this.db, organisationId, from, to);
  }

  listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number) {
    return listImportedPublicHolidaysQuery(this.db, organisationId, calendars, fromYear, toYear);
  }
}

export class SqlAdminStore extends SqlStore implements AdminStore {
  constructor(...args: ConstructorParameters<typeof SqlStore>) {
    super(...args);
  }

  migrate(): Promise<void> {
    return this.guard(async () => {
      const schema = this.options.schema;
      if (schema !== undefined) await sql`create schema if not exists ${sql.id(schema)}`.execute(this.db);
      const migrator = new Migrator({
        db: this.db,
        provider: { getMigrations: async () => schemaMigrations(this.caps) },
        // Without this, Kysely looks for its bookkeeping tables in every schema and may
        // find another tenant's; with it they live beside this store's tables.
        ...(schema === undefined ? {} : { migrationTableSchema: schema }),
      });
      const { error } = await migrator.migrateToLatest();
      if (error) throw error instanceof Error ? error : new Error(String(error));
    });
  }

  createOrganisation(org: Organisation): Promise<void> {
    return this.guard(async () => {
      await this.db
        .insertInto("organisations")
        .values({ id: org.id, name: org.name, api_enabled: this.boolValue(org.api_enabled), created_at: org.created_at })
        .execute();
    });
  }

  listOrganisations(): Promise<Organisation[]> {
    return this.guard(async () => {
      const rows = await this.db.selectFrom("organisations").selectAll().orderBy("created_at").orderBy("id").execute();
      return rows.map(toOrganisation);
    });
  }

  findOrganisation(id: string): Promise<Organisation | null> {
    return this.guard(async () => {
      const row = await this.db.selectFrom("organisations").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toOrganisation(row) : null;
    });
  }

  setApiEnabled(id: string, enabled: boolean): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.db
        .updateTable("organisations")
        .set({ api_enabled: this.boolValue(enabled) })
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  createClient(client: NewClient): Promise<void> {
    return this.guard(async () => {
      await this.db
        .insertInto("api_clients")
        .values({
          client_id: client.client_id,
          organisation_id: client.organisation_id,
          name: client.name,
          secret_digest: client.secret_digest,
          scopes: client.scopes.join(" "),
          created_at: client.created_at,
          revoked_at: client.revoked_at,
        })
        .execute();
    });
  }

  listClients(organisationId: string): Promise<ApiClient[]> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom("api_clients")
        .select(["client_id", "organisation_id", "name", "scopes", "created_at", "revoked_at"])
        .where("organisation_id", "=", organisationId)
        .orderBy("created_at")
        .orderBy("client_id")
        .execute();
      return rows.map(toClient);
    });
  }

  revokeClient(clientId: string, now: number): Promise<ApiClient | null> {
    return this.guard(() =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .updateTable("api_clients")
          .set({ revoked_at: now })
          .where("client_id", "=", clientId)
          .where("revoked_at", "is", null)
          .execute();
        // The tokens are useless now; removing them keeps the token table small.
        await trx.deleteFrom("access_tokens").where("client_id", "=", clientId).execute();
        const row = await trx
          .selectFrom("api_clients")
          .select(["client_id", "organisation_id", "name", "scopes", "created_at", "revoked_at"])
          .where("client_id", "=", clientId)
          .executeTakeFirst();
        return row ? toClient(row) : null;
      }),
    );
  }

  runImport<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T> {
    return this.guard(() =>
      this.db.transaction().execute((trx) => work(new SqlImportWriter(trx, (b) => this.boolValue(b)))),
    );
  }
}

export type { SqlCapabilities };
