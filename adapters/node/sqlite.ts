/**
 * The SQLite store on `node:sqlite` (Deno, Bun, Node 23.11+ and 22.16+): the one SQL store
 * (SqlAdminStore) on Kysely's own SqliteDialect, over `DatabaseSync` shaped the way that
 * dialect expects. The schema and the queries are those of adapters/bun/sqlite.ts, so a file
 * that the `leaveapi` command created and manages is served unchanged from Node or Deno.
 * It is what `leaveapi/sqlite` gives outside Bun (docs/embedding.md, "Entry points").
 *
 * node:sqlite is loaded when a store is opened, not when this module is: on a Node
 * without it (Node 20) importing `leaveapi/sqlite` works and opening a store throws an
 * error that says what to do, instead of Node's ERR_UNKNOWN_BUILTIN_MODULE at import.
 */
import { createRequire } from "node:module";
import { SqliteUnsupportedError } from "../../lib/errors.ts";
import { nodeSha256Hex } from "../node-crypto.ts";
import { createTokensFile, watchTokensFile } from "../sqlite-tokens-file.ts";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { SqliteDatabase } from "kysely";
import type { SqlAdminStore } from "../sql/sql-admin-store.ts";
import { kyselyStatement } from "../sql/driver-statement.ts";
import { configureSqlite, sqliteStore, type SqliteStoreOptions } from "../sql/sqlite-store.ts";

export type NodeSqliteStoreOptions = SqliteStoreOptions;

/** SQLite's primary result codes that mean "the database cannot be reached now", not a bug. */
const UNAVAILABLE_ERRCODES = new Set([
  5, // SQLITE_BUSY
  6, // SQLITE_LOCKED
  10, // SQLITE_IOERR
  14, // SQLITE_CANTOPEN
  26, // SQLITE_NOTADB
  8, // SQLITE_READONLY: a read-only or damaged file is answered 503 and logged, never a 500 (issue 35)
  11, // SQLITE_CORRUPT
  3, // SQLITE_PERM
]);

function isUnavailable(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  // Extended result codes carry the primary code in their low byte.
  return typeof errcode === "number" && UNAVAILABLE_ERRCODES.has(errcode & 0xff);
}

/**
 * SQLite has no boolean type, and node:sqlite refuses to bind one (bun:sqlite binds 1/0
 * itself): store booleans as 1/0 here, as the SQLite schema declares them.
 */
function bindable(parameters: readonly unknown[]): SQLInputValue[] {
  return parameters.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : (p as SQLInputValue)));
}

/** DatabaseSync with the better-sqlite3-like surface Kysely's SqliteDialect drives. */
function kyselyDatabase(database: DatabaseSync): SqliteDatabase {
  return {
    prepare: (sql) => {
      const statement = database.prepare(sql);
      // A statement that yields columns (select, pragma, returning) is read with `all`.
      return kyselyStatement(statement, statement.columns().length > 0, bindable);
    },
    close: () => database.close(),
  };
}

type NodeSqlite = typeof import("node:sqlite");

/** node:sqlite with what this store calls (`columns()` came in Node 22.16 and 23.11), or a clear error. */
function loadNodeSqlite(): NodeSqlite {
  const runtime = `${process.release?.name ?? "this runtime"} ${process.version}`;
  const advice =
    "use Node 22.16 or later (its built-in node:sqlite), run the app on Bun (leaveapi/sqlite uses bun:sqlite there), or use leaveapi/postgres. " +
    "The leaveapi command line needs none of this: it runs on the Bun that npm installs with the package";
  let sqlite: NodeSqlite;
  try {
    sqlite = createRequire(import.meta.url)("node:sqlite") as NodeSqlite;
  } catch {
    throw new SqliteUnsupportedError(`leaveapi/sqlite needs node:sqlite, which ${runtime} does not have: ${advice}`);
  }
  if (typeof sqlite.StatementSync?.prototype?.columns !== "function") {
    throw new SqliteUnsupportedError(`leaveapi/sqlite needs node:sqlite's StatementSync.columns(), which ${runtime} does not have: ${advice}`);
  }
  return sqlite;
}

/** Opens (creating if needed) a SQLite store through node:sqlite. Call `migrate()` before use. */
export function openNodeSqliteStore(options: NodeSqliteStoreOptions): SqlAdminStore {
  const { DatabaseSync } = loadNodeSqlite();
  const database = new DatabaseSync(options.filename);
  createTokensFile(options.filename);
  configureSqlite(database, options);
  return nodeSqliteStoreOn(database, options);
}

/**
 * The store on a database already open and set up by `configureSqlite` for `options`:
 * openNodeSqliteStore's second half, apart so that the tests can hand it an in-memory copy
 * of a database migrated once (test/sqlite-templates.ts) instead of migrating each anew.
 */
export function nodeSqliteStoreOn(database: DatabaseSync, options: NodeSqliteStoreOptions): SqlAdminStore {
  return sqliteStore(kyselyDatabase(database), {
    isUnavailable,
    now: options.now,
    sha256Hex: nodeSha256Hex,
    checkTokensFile: watchTokensFile(options.filename),
  });
}
