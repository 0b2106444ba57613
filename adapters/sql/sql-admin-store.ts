/**
 * The admin side of the SQL store: migrations, organisations, clients, and imports run in
 * one transaction through the import writer (sql-import-writer.ts).
 */
import { Migrator, sql } from "kysely";
import type { AdminStore, ImportWriter, NewClient } from "../../lib/admin-store.ts";
import type { ApiClient, Organisation } from "../../lib/store.ts";
import { schemaMigrations } from "./migrations.ts";
import { bool, instant, instantOrNull, scopeList } from "./row-mapping.ts";
import { SqlStore } from "./sql-store.ts";
import { SqlImportWriter } from "./sql-import-writer.ts";
import type { SqlCapabilities } from "./capabilities.ts";

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

/** The SQLite page cache of an import, in KiB: most of what the import's memory budget leaves. */
const IMPORT_CACHE_KIB = 128 * 1024;

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
      this.forgetGrants();
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
    return this.guard(async () => {
      const revoked = await this.db.transaction().execute(async (trx) => {
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
      });
      // After the commit, so that no lookup can bring back what it read before it.
      this.forgetGrants();
      return revoked;
    });
  }

  runImport<T>(work: (writer: ImportWriter) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      let failure: { error: unknown } | undefined;
      let result: T;
      const restoreCache = await this.enlargePageCache();
      try {
        result = await this.db.transaction().execute(async (trx) => {
          try {
            return await work(new SqlImportWriter(trx, this.caps, (b) => this.boolValue(b)));
          } catch (error) {
            failure = { error };
            throw error;
          }
        });
      } catch (error) {
        // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR), so
        // Kysely's ROLLBACK then fails with "no transaction is active": the first error is the real one.
        throw failure ? failure.error : error;
      } finally {
        await restoreCache();
      }
      await this.refreshStatistics();
      return result;
    });
  }

  /**
   * A large SQLite page cache while an import runs: its rows go into indexes of random
   * keys, and with the default 2 MB cache a large import reads nearly every page it
   * changes again. Put back afterwards, so a long-running process keeps its own budget.
   */
  private async enlargePageCache(): Promise<() => Promise<void>> {
    if (this.caps.dialect !== "sqlite") return async () => {};
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(this.db);
    const before = Number(rows[0]?.cache_size ?? -2000);
    await sql.raw(`pragma cache_size = -${IMPORT_CACHE_KIB}`).execute(this.db);
    return async () => {
      await sql.raw(`pragma cache_size = ${before}`).execute(this.db);
    };
  }

  /**
   * Fresh planner statistics after an import: a large first import otherwise leaves
   * Postgres planning on an empty table's figures (it chose a full scan of the
   * organisation's bookings for the leave page) until autovacuum gets round to it.
   * SQLite plans without statistics unless ANALYZE is run, and its queries here are
   * written for that (sampled statistics from PRAGMA optimize misled it).
   */
  private async refreshStatistics(): Promise<void> {
    if (this.caps.dialect === "postgres") await sql`analyze employees, leave_types, leave_bookings, closure_days, public_holidays`.execute(this.db);
  }
}

export type { SqlCapabilities };
