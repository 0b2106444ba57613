/**
 * The embedded SQLite store on bun:sqlite, through Kysely's SqliteDialect: WAL so readers
 * never wait for the importer, a busy timeout so concurrent writers queue instead of
 * failing, and foreign keys on. Its statement cache and hot connection: adapters/sql/fast-paths.ts.
 */
import { Database } from "bun:sqlite";
import { nodeSha256Hex } from "../node-crypto.ts";
import { createTokensFile, watchTokensFile } from "../sqlite-tokens-file.ts";
import { cachingSqliteDatabase, sqliteHotConnection, type BunDatabase, type HotConnection } from "../sql/fast-paths.ts";
import type { SqlAdminStore } from "../sql/sql-admin-store.ts";
import { configureSqlite, sqliteStore, type SqliteStoreOptions } from "../sql/sqlite-store.ts";

export type { SqliteStoreOptions };

/** Also a read-only or damaged file: answered 503 and logged, never a 500 (issue 35). */
const UNAVAILABLE_CODES = new Set([
  "SQLITE_CANTOPEN",
  "SQLITE_IOERR",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_NOTADB",
  "SQLITE_FULL",
  "SQLITE_READONLY",
  "SQLITE_CORRUPT",
  "SQLITE_PERM",
]);

function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && [...UNAVAILABLE_CODES].some((c) => code.startsWith(c));
}

function openDatabase(options: SqliteStoreOptions): Database {
  const database = new Database(options.filename, { create: true, strict: true });
  createTokensFile(options.filename);
  configureSqlite(database, options);
  return database;
}

/** A file's second connection for the hot queries; none for ":memory:", which it would not share. */
function hotConnection(options: SqliteStoreOptions): HotConnection | undefined {
  return options.filename === ":memory:" ? undefined : sqliteHotConnection(openDatabase(options));
}

/** Opens (creating if needed) a SQLite store. Call `migrate()` before use. */
export function openSqliteStore(options: SqliteStoreOptions): SqlAdminStore {
  return sqliteStoreOn(openDatabase(options), options);
}

/**
 * The store on a database already open and set up by `configureSqlite` for `options`:
 * openSqliteStore's second half, apart so that the tests can hand it an in-memory copy of
 * a database migrated once (test/sqlite-templates.ts) instead of migrating each anew.
 * Typed by what it uses (`BunDatabase`), not bun:sqlite's class, so that the package's
 * declarations name no `bun:sqlite` a Node consumer's TypeScript cannot find.
 */
export function sqliteStoreOn(database: BunDatabase, options: SqliteStoreOptions): SqlAdminStore {
  const cached = cachingSqliteDatabase(database);
  const hot = hotConnection(options);
  return sqliteStore(cached, { isUnavailable, hot, now: options.now, sha256Hex: nodeSha256Hex, checkTokensFile: watchTokensFile(options.filename) });
}
