/**
 * Opens the store the global options name (docs/cli.md, "Global options"): `--database-url`
 * / DATABASE_URL for Postgres, else `--db` / LEAVEAPI_DB for SQLite, default
 * ./leaveapi.sqlite. Every command creates or upgrades the schema as it opens the store.
 */
import { openPostgresStore, type PostgresDriver } from "../adapters/postgres.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { StoreUnavailableError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import type { Organisation } from "../lib/store.ts";
import { CommandError, UsageError, type CommandContext, type GlobalOptions, type Io } from "./cli-kit.ts";

export const DEFAULT_SQLITE_FILE = "./leaveapi.sqlite";

export interface StoreLocation {
  kind: "sqlite" | "postgres";
  /** For messages: the SQLite path, or the Postgres URL without its password. */
  label: string;
  open: () => SqlAdminStore;
  /**
   * When a SQLite file and a Postgres URL were both configured: which store is used, by
   * which setting, and which setting is ignored, for stderr (docs/cli.md, "Environment variables"). Else null.
   */
  notice: string | null;
}

export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable database URL)";
  }
}

function positiveInteger(env: Record<string, string | undefined>, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new UsageError(`${name} must be a whole number above 0; got '${text}'`);
  return Number(text);
}

/** LEAVEAPI_PG_DRIVER: the Postgres client library, "bun" (Bun.SQL, the default) or "pg". */
function postgresDriver(env: Record<string, string | undefined>): PostgresDriver | undefined {
  const text = env.LEAVEAPI_PG_DRIVER;
  if (text === undefined || text === "") return undefined;
  if (text !== "bun" && text !== "pg") throw new UsageError(`LEAVEAPI_PG_DRIVER must be bun or pg; got '${text}'`);
  return text;
}

export function locateStore(global: GlobalOptions, env: Record<string, string | undefined>): StoreLocation {
  // An empty variable is unset (as `LEAVEAPI_DB= leaveapi …` or a blank line in an env file means).
  const envUrl = env.DATABASE_URL || undefined;
  const envDb = env.LEAVEAPI_DB || undefined;
  const databaseUrl = global.databaseUrl ?? (global.db === undefined ? envUrl : undefined);
  const readUrl = global.databaseReadUrl ?? env.DATABASE_READ_URL;
  const notice = (kind: string, label: string, by: string, ignored: string | undefined) =>
    ignored === undefined ? null : `leaveapi: using the ${kind} database ${label} (from ${by}); ignoring ${ignored}`;
  if (databaseUrl) {
    const label = describeDatabaseUrl(databaseUrl);
    return {
      kind: "postgres",
      label,
      notice: notice("postgres", label, global.databaseUrl !== undefined ? "--database-url" : "DATABASE_URL", envDb === undefined ? undefined : "LEAVEAPI_DB"),
      open: () =>
        openPostgresStore({
          connectionString: databaseUrl,
          readConnectionString: readUrl || undefined,
          poolSize: positiveInteger(env, "LEAVEAPI_PG_POOL_SIZE"),
          statementTimeoutMs: positiveInteger(env, "LEAVEAPI_PG_STATEMENT_TIMEOUT_MS"),
          driver: postgresDriver(env),
        }),
    };
  }
  if (global.databaseReadUrl !== undefined) throw new UsageError("--database-read-url needs --database-url (a replica of a Postgres primary)");
  // An empty LEAVEAPI_DB is unset, not a file named "": SQLite opens that as a private
  // temporary database, so every command would succeed and keep nothing.
  const file = global.db ?? envDb ?? DEFAULT_SQLITE_FILE;
  return {
    kind: "sqlite",
    label: file,
    open: () => openSqliteStore({ filename: file }),
    // Only --db can set SQLite while a Postgres URL is set: the URL would have won otherwise.
    notice: notice("sqlite", file, "--db", envUrl === undefined ? undefined : "DATABASE_URL"),
  };
}

/**
 * Opens and migrates; a database that cannot be opened is a CommandError naming it.
 * `beforeMigrating` sees the store first (`migrate` asks it what the schema was).
 */
export async function openMigratedStore(
  ctx: { global: GlobalOptions; io: Pick<Io, "env" | "err"> },
  beforeMigrating?: (store: SqlAdminStore) => Promise<void>,
): Promise<SqlAdminStore> {
  const location = locateStore(ctx.global, ctx.io.env);
  if (location.notice) ctx.io.err(location.notice);
  let store: SqlAdminStore;
  try {
    store = location.open();
    await beforeMigrating?.(store);
    await store.migrate();
  } catch (error) {
    const reason = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
    throw new CommandError(`cannot open the ${location.kind} database ${location.label}: ${reason}`);
  }
  return store;
}

/** Runs `work` on the migrated store and closes it afterwards, whatever happens. */
export async function withMigratedStore<T>(ctx: CommandContext, work: (store: SqlAdminStore) => Promise<T>): Promise<T> {
  const store = await openMigratedStore(ctx);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The organisation an ORG_ID argument names (any letter case), or the CommandError (exit 1) that says there is none. */
export async function organisationNamed(store: SqlAdminStore, given: string): Promise<Organisation> {
  const id = given.toLowerCase();
  const org = isUuid(id) ? await store.findOrganisation(id) : null;
  if (!org) throw new CommandError(`no organisation with id ${given}`);
  return org;
}
