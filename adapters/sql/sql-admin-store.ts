/**
 * The admin side of the SQL store: migrations, organisations, clients, and imports run in
 * one transaction through the import writer (import-transaction.ts). `createSqlAdminStore`
 * composes it with the Store of sql-store.ts over one SqlContext.
 */
import { Migrator, sql, type Kysely } from "kysely";
import type { AdminStore, NewClient, OrganisationContents } from "../../lib/admin-store.ts";
import type { Organisation, Store } from "../../lib/store.ts";
import { TOKEN_GRANT_TTL_MS, withTokenGrantCache } from "../../lib/token-grant-cache.ts";
import { schemaMigrations } from "./migrations.ts";
import { bool, instant } from "./row-mapping.ts";
import { CLIENT_COLUMNS, copyControlsToDataFile, sqliteAccessControls, toClient } from "./access-controls.ts";
import { createSqlContext, type SqlContext, type SqlStoreOptions } from "./sql-context.ts";
import { bodiesAreCurrent, renderBodies } from "./render-bodies.ts";
import { employeeForErasure, scrubDeleted } from "./erasure.ts";
import { runImport } from "./import-transaction.ts";
import { createSqlStore } from "./sql-store.ts";
import { withRestrictions, writeRestriction } from "./client-restrictions.ts";
import { anyDb, refreshSelectionCopies } from "./selection-copies.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";

function toOrganisation(r: { id: string; name: string; api_enabled: boolean | number; created_at: number | string }): Organisation {
  return { id: r.id, name: r.name, api_enabled: bool(r.api_enabled), created_at: instant(r.created_at) };
}

/** The SQL store: the Store the API reads and the AdminStore the commands and imports write. */
export interface SqlAdminStore extends Store, AdminStore {}

/** The SQL store on `options`' connections, without a grant cache. */
export function createSqlAdminStore(options: SqlStoreOptions): SqlAdminStore {
  const ctx = createSqlContext(options);
  return { ...createSqlStore(ctx), ...adminQueries(ctx) };
}

/** Each opened store's primary connection, for sqlConnectionOf. */
const connections = new WeakMap<SqlAdminStore, Kysely<Tables>>();
/** Each opened store's migrator, for migrationStatusOf. */
const migrators = new WeakMap<SqlAdminStore, Migrator>();

/**
 * The SQL store as the openers (adapters/bun/sqlite.ts, adapters/node/sqlite.ts,
 * adapters/postgres.ts) give it: live token grants reused for a few seconds in front of it
 * (lib/token-grant-cache.ts), which saves a round trip per request and is what
 * docs/api.md ("Using a token") describes.
 */
export function openSqlAdminStore(options: SqlStoreOptions): SqlAdminStore {
  const ctx = createSqlContext(options);
  const store = withTokenGrantCache({ ...createSqlStore(ctx), ...adminQueries(ctx) }, { now: () => performance.now(), ttlMs: TOKEN_GRANT_TTL_MS });
  connections.set(store, options.db);
  migrators.set(store, migratorOf(ctx));
  contexts.set(store, ctx);
  return store;
}

const contexts = new WeakMap<SqlAdminStore, SqlContext>();

/** The context of a store from openSqlAdminStore, for what the commands ask of it beside the AdminStore (running-writers.ts). */
export function sqlContextOf(store: SqlAdminStore): SqlContext {
  const ctx = contexts.get(store);
  if (!ctx) throw new Error("Not a store opened by openSqlAdminStore.");
  return ctx;
}

/**
 * When each client last obtained a token (written at most once a minute per client and
 * process: token-queries.ts), for `leaveapi credentials list`; a client that never did is
 * absent.
 */
export async function clientsLastUsed(store: SqlAdminStore): Promise<Map<string, number>> {
  const ctx = sqlContextOf(store);
  const rows = await ctx.guard(() => ctx.db.selectFrom("client_usage").select(["client_id", "last_used_at"]).execute());
  return new Map(rows.map((r) => [r.client_id, instant(r.last_used_at)]));
}

/**
 * Which of the executable's migrations the database has run, and which it has not, without
 * running any: `leaveapi migrate` says from it whether it created the schema or upgraded it.
 */
export async function migrationStatusOf(store: SqlAdminStore): Promise<{ applied: string[]; pending: string[]; bodiesStale: boolean }> {
  const migrator = migrators.get(store);
  if (!migrator) throw new Error("Not a store opened by openSqlAdminStore.");
  const migrations = await migrator.getMigrations();
  const applied = migrations.filter((m) => m.executedAt !== undefined).map((m) => m.name);
  return {
    applied,
    pending: migrations.filter((m) => m.executedAt === undefined).map((m) => m.name),
    // Whether migrate will write the kept JSON bodies again (render-bodies.ts); a new database has none to write.
    bodiesStale: applied.length > 0 && !(await bodiesAreCurrent(sqlConnectionOf(store))),
  };
}

/** The primary connection of a store from openSqlAdminStore: for tests that read its tables as they are. */
export function sqlConnectionOf(store: SqlAdminStore): Kysely<Tables> {
  const db = connections.get(store);
  if (!db) throw new Error("Not a store opened by openSqlAdminStore.");
  return db;
}

/** The tables that hold an organisation's records, by the count each answers for; children before parents. */
const RECORD_TABLES = [
  ["leave_bookings", "leave_bookings"],
  ["leave_types", "leave_types"],
  ["employees", "employees"],
  ["closure_days", "closure_days"],
  ["public_holidays", "public_holidays"],
] as const satisfies readonly (readonly [keyof Tables, keyof OrganisationContents])[];

/** Counts what the organisation holds, on `db` (a transaction when deleting). `null` when it does not exist. */
async function countContents(db: Kysely<Tables>, id: string): Promise<OrganisationContents | null> {
  const org = await db.selectFrom("organisations").select("id").where("id", "=", id).executeTakeFirst();
  if (!org) return null;
  const count = async (table: keyof Tables) => {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("organisation_id", "=", id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const contents: OrganisationContents = { employees: 0, leave_bookings: 0, leave_types: 0, closure_days: 0, public_holidays: 0, clients: 0, tokens: 0 };
  for (const [table, key] of RECORD_TABLES) contents[key] = await count(table);
  contents.clients = await count("api_clients");
  contents.tokens = await count("access_tokens");
  return contents;
}

function migratorOf(ctx: SqlContext): Migrator {
  const schema = ctx.options.schema;
  return new Migrator({
    db: ctx.db,
    provider: { getMigrations: async () => schemaMigrations(ctx.caps) },
    // Without this, Kysely looks for its bookkeeping tables in every schema and may
    // find another tenant's; with it they live beside this store's tables.
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
}

/** The access controls the SQLite tokens file keeps of an organisation deleted (access-controls.ts). */
async function forgetControls(trx: Kysely<Tables>, id: string, clients: { client_id: string }[]): Promise<void> {
  await trx.deleteFrom("organisation_access").where("organisation_id", "=", id).execute();
  if (clients.length > 0)
    await trx
      .deleteFrom("client_access")
      .where(
        "client_id",
        "in",
        clients.map((c) => c.client_id),
      )
      .execute();
}

function adminQueries(ctx: SqlContext): AdminStore {
  const { db } = ctx;
  return {
    migrate: () =>
      ctx.guard(async () => {
        const schema = ctx.options.schema;
        // Two processes that start at once on a new database both try to create it, and
        // Postgres's IF NOT EXISTS does not stop the second failing on the first one's
        // (a unique violation): then it is there, which is all this asks.
        if (schema !== undefined)
          await sql`create schema if not exists ${sql.id(schema)}`.execute(db).catch((error: unknown) => {
            if ((error as { code?: unknown } | null)?.code !== "23505") throw error;
          });
        const { error } = await migratorOf(ctx).migrateToLatest();
        if (error) throw error instanceof Error ? error : new Error(String(error));
        await renderBodies(db);
        // Controls set while an import held the data file's lock (access-controls.ts), if it is free now.
        await copyControlsToDataFile(ctx, 0);
      }),

    createOrganisation: (org: Organisation) =>
      ctx.guard(async () => {
        await db
          .insertInto("organisations")
          .values({ id: org.id, name: org.name, api_enabled: ctx.boolValue(org.api_enabled), created_at: org.created_at })
          .execute();
      }),

    listOrganisations: () =>
      ctx.guard(async () => {
        const rows = await db.selectFrom("organisations_now").selectAll().orderBy("created_at").orderBy("id").execute();
        return rows.map(toOrganisation);
      }),

    findOrganisation: (id) =>
      ctx.guard(async () => {
        const row = await db.selectFrom("organisations_now").selectAll().where("id", "=", id).executeTakeFirst();
        return row ? toOrganisation(row) : null;
      }),

    setApiEnabled: (id, enabled) =>
      ctx.guard(() =>
        db.transaction().execute(async (trx) => {
          const result = await trx
            .updateTable("organisations")
            .set({ api_enabled: ctx.boolValue(enabled) })
            .where("id", "=", id)
            .executeTakeFirst();
          // Off revokes the live tokens for good, so switching on again revives none of them
          // (README, "The command line"); saveToken never stores one while access is off.
          if (!enabled) await trx.deleteFrom("access_tokens").where("organisation_id", "=", id).execute();
          return Number(result.numUpdatedRows) > 0;
        }),
      ),

    renameOrganisation: (id, name) =>
      ctx.guard(async () => {
        await db.updateTable("organisations").set({ name }).where("id", "=", id).execute();
        const row = await db.selectFrom("organisations_now").selectAll().where("id", "=", id).executeTakeFirst();
        return row ? toOrganisation(row) : null;
      }),

    countOrganisationContents: (id) => ctx.guard(() => countContents(db, id)),

    deleteOrganisation: (id) =>
      ctx.guard(async () => {
        const gone = await db.transaction().execute(async (trx) => {
          const contents = await countContents(trx, id);
          if (!contents) return null;
          for (const [table] of RECORD_TABLES) await trx.deleteFrom(table).where("organisation_id", "=", id).execute();
          await trx.deleteFrom("leave_class_spans").where("organisation_id", "=", id).execute();
          // Tombstones of the deletions feed: nobody can ask for the organisation's feed any more.
          await trx.deleteFrom("deletions").where("organisation_id", "=", id).execute();
          await trx.deleteFrom("selection_exits").where("organisation_id", "=", id).execute();
          await trx.deleteFrom("publications").where("organisation_id", "=", id).execute();
          await trx.deleteFrom("data_versions").where("organisation_id", "=", id).execute();
          await trx.deleteFrom("access_tokens").where("organisation_id", "=", id).execute();
          await trx.deleteFrom("webhook_endpoints").where("organisation_id", "=", id).execute();
          const clients = await trx.selectFrom("api_clients").select("client_id").where("organisation_id", "=", id).execute();
          // The clients' rate-limit events would otherwise linger until the next sweep.
          const keys = clients.map((c) => `token-requests:${c.client_id}`);
          if (keys.length > 0) await trx.deleteFrom("rate_events").where("key", "in", keys).execute();
          if (ctx.caps.dialect === "sqlite") await forgetControls(trx, id, clients);
          if (clients.length > 0)
            await trx
              .deleteFrom("client_usage")
              .where(
                "client_id",
                "in",
                clients.map((c) => c.client_id),
              )
              .execute();
          if (clients.length > 0)
            await trx
              .deleteFrom("client_restrictions")
              .where(
                "client_id",
                "in",
                clients.map((c) => c.client_id),
              )
              .execute();
          await trx.deleteFrom("api_clients").where("organisation_id", "=", id).execute();
          await refreshSelectionCopies(anyDb(trx), ctx.caps);
          await trx.deleteFrom("organisations").where("id", "=", id).execute();
          return contents;
        });
        // Its people's records went with it: what they left in the files goes too (docs/api.md, "Personal data").
        if (gone !== null) await scrubDeleted(ctx);
        return gone;
      }),

    createClient: (client: NewClient) =>
      ctx.guard(() =>
        db.transaction().execute(async (trx) => {
          await trx
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
          if (client.restriction) {
            await writeRestriction(trx, client.client_id, client.restriction);
            await refreshSelectionCopies(anyDb(trx), ctx.caps);
          }
        }),
      ),

    restrictClient: (clientId, restriction) =>
      ctx.guard(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom("api_clients").select(CLIENT_COLUMNS).where("client_id", "=", clientId).executeTakeFirst();
          if (!row) return null;
          await writeRestriction(trx, clientId, restriction);
          await refreshSelectionCopies(anyDb(trx), ctx.caps);
          const client = toClient(row);
          return restriction ? { ...client, restriction } : client;
        }),
      ),

    listClients: (organisationId) =>
      ctx.guard(async () => {
        const rows = await db
          .selectFrom("api_clients_now")
          .select(CLIENT_COLUMNS)
          .where("organisation_id", "=", organisationId)
          .orderBy("created_at")
          .orderBy("client_id")
          .execute();
        return withRestrictions(db, rows.map(toClient));
      }),

    listAllClients: () =>
      ctx.guard(async () => {
        const rows = await db.selectFrom("api_clients_now").select(CLIENT_COLUMNS).orderBy("created_at").orderBy("client_id").execute();
        return withRestrictions(db, rows.map(toClient));
      }),

    rotateClientSecret: (clientId, secretDigest, previousExpiresAt) =>
      ctx.guard(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx
            .selectFrom("api_clients")
            .select([...CLIENT_COLUMNS, "secret_digest"])
            .where("client_id", "=", clientId)
            .executeTakeFirst();
          if (!row || row.revoked_at !== null) return row ? toClient(row) : null;
          const keepPrevious = previousExpiresAt !== null;
          await trx
            .updateTable("api_clients")
            .set({
              secret_digest: secretDigest,
              previous_secret_digest: keepPrevious ? row.secret_digest : null,
              previous_secret_expires_at: keepPrevious ? previousExpiresAt : null,
            })
            .where("client_id", "=", clientId)
            .execute();
          return toClient(row);
        }),
      ),

    revokeClient: (clientId, now) =>
      ctx.guard(() =>
        db.transaction().execute(async (trx) => {
          await trx.updateTable("api_clients").set({ revoked_at: now }).where("client_id", "=", clientId).where("revoked_at", "is", null).execute();
          // The tokens are useless now; removing them keeps the token table small.
          await trx.deleteFrom("access_tokens").where("client_id", "=", clientId).execute();
          // Its change notifications stop with it (docs/api.md, "Change notifications").
          await trx.deleteFrom("webhook_endpoints").where("client_id", "=", clientId).execute();
          // A revoked credential reads nothing: its selection's copy goes with the last that held it.
          await refreshSelectionCopies(anyDb(trx), ctx.caps);
          const row = await trx.selectFrom("api_clients").select(CLIENT_COLUMNS).where("client_id", "=", clientId).executeTakeFirst();
          return row ? toClient(row) : null;
        }),
      ),

    findEmployeeForErasure: (organisationId, key) => ctx.guard(() => employeeForErasure(db, organisationId, key)),

    scrubDeleted: (options) => ctx.guard(() => scrubDeleted(ctx, options)),

    runImport: (work, options) =>
      ctx.guard(async () => {
        try {
          return await runImport(ctx, work, options);
        } finally {
          // Controls set while it held the data file's lock (access-controls.ts) are copied there now.
          await copyControlsToDataFile(ctx, 0).catch(() => false);
        }
      }),

    // On SQLite, in the tokens file, so that no import delays them (access-controls.ts).
    ...(ctx.caps.dialect === "sqlite" ? sqliteAccessControls(ctx) : {}),
  };
}

export type { SqlCapabilities, SqlStoreOptions };
