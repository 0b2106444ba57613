/**
 * What every SQLite driver's store shares: the connection settings and the store itself
 * (the driver statement as Kysely's SqliteDialect runs it: driver-statement.ts).
 * WAL so readers never wait for the importer (not for ":memory:", which has no journal
 * file), a busy timeout so concurrent writers queue instead of failing, foreign keys on.
 */
import { Kysely, SqliteDialect, type SqliteDatabase } from "kysely";
import { cryptoRandomBytes } from "../../lib/credentials.ts";
import type { Sha256Hex } from "../../lib/digest.ts";
import { SQLITE } from "./capabilities.ts";
import type { HotConnection } from "./fast-paths.ts";
import { openSqlAdminStore, type SqlAdminStore } from "./sql-admin-store.ts";
import type { Tables } from "./tables.ts";
import { ACCESS_VIEWS, TOKEN_TABLES } from "./tokens-file-schema.ts";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:". */
  filename: string;
  /** Milliseconds a writer waits for another to finish before giving up (default 5000). */
  busyTimeoutMs?: number;
  /** The wall clock an import's publication is timed by (default Date.now); tests pass one they move. */
  now?: () => number;
}

/** The file beside a SQLite database that holds its access tokens and rate-limit events (`tokensFileOf`). */
export function tokensFileOf(filename: string): string {
  return filename === ":memory:" ? ":memory:" : `${filename}-tokens`;
}

/**
 * Access tokens, rate-limit events and when each client last obtained a token live in a
 * database file of their own beside the data, attached to every connection as `tokens`: SQLite lets one writer at a time write
 * a file, and an import holds the data file's lock from its first write to its end, so token requests,
 * which must write, would wait for it and fail after the busy timeout (issue 23:
 * token issuance stays available while an import runs). Each file has its own lock. The
 * tables are found by their plain names: SQLite looks in `main` first, where migration
 * 0008 dropped them. They are made here, not by a migration, so that a data file restored
 * from a backup without its tokens file opens with empty ones: every client then asks
 * for a new token, as after any loss of tokens. Where SQLite allows no attached file
 * (Deno), they stay in the data file.
 */
/** SQLite's words for a file it cannot open or read (CANTOPEN, NOTADB, CORRUPT, READONLY, IOERR, PERM). */
const TOKENS_FILE_FAULT = /unable to open|not a database|malformed|readonly|disk I\/O|permission|access denied/i;

function attachTokensFile(database: { exec(sql: string): unknown }, filename: string): void {
  const file = tokensFileOf(filename);
  try {
    database.exec(`ATTACH DATABASE '${file.replaceAll("'", "''")}' AS tokens`);
  } catch (error) {
    // A tokens file that is there but cannot be opened or read is a fault to name, never a
    // reason to keep tokens and controls in the data file instead (issue 35).
    const message = (error as Error).message;
    if (TOKENS_FILE_FAULT.test(message))
      throw new Error(
        `the tokens file ${file} cannot be used (${message}); run 'leaveapi check'. A damaged one can be moved aside: clients then ask for new tokens`,
        { cause: error },
      );
    // Deno's SQLite allowed no attached file at all. There the tables stay in the data file
    // (and a token request waits for an import, as before): made here again if a migration
    // under another runtime moved them out, once migration 0001 has made the schema (its
    // `installation` table is there); every runtime then finds them there first.
    try {
      database.exec("select 1 from main.installation limit 0");
    } catch {
      return;
    }
    for (const statement of TOKEN_TABLES) database.exec(statement.replaceAll("tokens.", "main."));
    for (const statement of ACCESS_VIEWS) database.exec(statement);
    return;
  }
  if (file !== ":memory:") database.exec("PRAGMA tokens.journal_mode = WAL");
  database.exec("PRAGMA tokens.synchronous = NORMAL");
  // Nothing of the tokens file is mapped into memory: a file another process truncates or
  // makes immutable would then fault the whole process (SIGBUS) instead of failing a query.
  database.exec("PRAGMA tokens.mmap_size = 0");
  for (const statement of TOKEN_TABLES) database.exec(statement);
  for (const statement of ACCESS_VIEWS) database.exec(statement);
}

export function configureSqlite(database: { exec(sql: string): unknown }, options: SqliteStoreOptions): void {
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  if (options.filename !== ":memory:") database.exec("PRAGMA journal_mode = WAL");
  database.exec("PRAGMA synchronous = NORMAL");
  database.exec("PRAGMA foreign_keys = ON");
  // Deleted rows are overwritten with zeros, not left in free pages (docs/api.md, "Personal data"; erasure.ts
  // clears the write-ahead log). Before the attach: an attached file takes the main file's setting.
  database.exec("PRAGMA secure_delete = ON");
  attachTokensFile(database, options.filename);
}

/** How a SQLite driver's store is built, besides its main connection. */
export interface SqliteStoreParts {
  /** Whether an error means the database cannot be reached: the driver's error shape. */
  isUnavailable: (error: unknown) => boolean;
  /** The hot queries' own connection (fast-paths.ts), for a file. */
  hot?: HotConnection;
  now?: () => number;
  /** The runtime's native SHA-256 for the import's content digests (sql-context.ts). */
  sha256Hex?: Sha256Hex;
  /** Throws StoreUnavailableError when the tokens file is no longer the one opened (adapters/sqlite-tokens-file.ts). */
  checkTokensFile?: () => void;
}

/**
 * The one SQL store on a SQLite database, with live token grants reused for a few seconds
 * (lib/token-grant-cache.ts).
 */
export function sqliteStore(database: SqliteDatabase, { isUnavailable, hot, now, sha256Hex, checkTokensFile }: SqliteStoreParts): SqlAdminStore {
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  return openSqlAdminStore({
    db,
    now,
    caps: SQLITE,
    isUnavailable,
    randomBytes: cryptoRandomBytes,
    sha256Hex,
    checkTokensFile,
    direct: hot?.run,
    close: async () => {
      await db.destroy();
      hot?.close();
    },
  });
}
