/**
 * The embedded SQLite store (bun:sqlite through kysely-bun-sqlite): WAL so readers never
 * wait for the importer, a busy timeout so concurrent writers queue instead of failing,
 * and foreign keys on.
 */
import { Database, type SQLQueryBindings } from "bun:sqlite";
import { BunSqliteDialect } from "kysely-bun-sqlite";
import type { SqlAdminStore } from "./sql/sql-admin-store.ts";
import { configureSqlite, sqliteStore, type HotConnection, type SqliteStoreOptions } from "./sql/sqlite-store.ts";

export type { SqliteStoreOptions };

const UNAVAILABLE_CODES = new Set(["SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_NOTADB"]);

function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && [...UNAVAILABLE_CODES].some((c) => code.startsWith(c));
}

/**
 * Statements with more placeholders than this are not cached: multi-row writes vary in
 * shape, and each would stay in memory. The API's reads stay below it, the leave page's
 * one-scan-per-span-class query (about 10 kB of SQL, up to ~110 placeholders) included.
 */
const CACHED_PLACEHOLDER_LIMIT = 256;

function placeholderCount(sql: string): number {
  let count = 0;
  for (let at = sql.indexOf("?"); at !== -1 && count <= CACHED_PLACEHOLDER_LIMIT; at = sql.indexOf("?", at + 1)) count++;
  return count;
}

/**
 * The database as kysely-bun-sqlite sees it, but `prepare` reuses bun:sqlite's cached
 * statements (`query`) for the short, repeated SQL of the API's reads: parsing and
 * planning a statement on every request costs more than running it.
 */
function withStatementCache(database: Database): Database {
  // kysely-bun-sqlite's driver calls only `prepare` and `close` on the database it is given.
  const facade = {
    prepare: (sql: string) => (placeholderCount(sql) <= CACHED_PLACEHOLDER_LIMIT ? database.query(sql) : database.prepare(sql)),
    close: () => database.close(),
  };
  return facade as unknown as Database;
}

/**
 * The hot queries' own connection (a file only: a second ":memory:" connection would be
 * another database). In WAL its reads never wait for a writer on the main connection,
 * such as an import, and never see that writer's uncommitted rows.
 */
function hotConnection(options: SqliteStoreOptions): HotConnection | undefined {
  if (options.filename === ":memory:") return undefined;
  const database = new Database(options.filename, { create: true, strict: true });
  configureSqlite(database, options);
  return {
    run: (sql, parameters) => database.query(sql).all(...(parameters as SQLQueryBindings[])),
    close: () => database.close(),
  };
}

/** Opens (creating if needed) a SQLite store. Call `migrate()` before use. */
export function openSqliteStore(options: SqliteStoreOptions): SqlAdminStore {
  const database = new Database(options.filename, { create: true, strict: true });
  configureSqlite(database, options);
  return sqliteStore(new BunSqliteDialect({ database: withStatementCache(database) }), isUnavailable, hotConnection(options));
}
