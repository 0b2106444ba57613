/**
 * What every SQLite driver's store shares: the connection settings and the store itself.
 * WAL so readers never wait for the importer (not for ":memory:", which has no journal
 * file), a busy timeout so concurrent writers queue instead of failing, foreign keys on.
 */
import { Kysely, type Dialect } from "kysely";
import { cryptoRandomBytes } from "../../lib/credentials.ts";
import { SQLITE } from "./capabilities.ts";
import { SqlAdminStore } from "./sql-admin-store.ts";
import type { Tables } from "./tables.ts";
import type { DirectRunner } from "./query-shapes.ts";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:". */
  filename: string;
  /** Milliseconds a writer waits for another to finish before giving up (default 5000). */
  busyTimeoutMs?: number;
}

export function configureSqlite(database: { exec(sql: string): unknown }, options: SqliteStoreOptions): void {
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  if (options.filename !== ":memory:") database.exec("PRAGMA journal_mode = WAL");
  database.exec("PRAGMA synchronous = NORMAL");
  database.exec("PRAGMA foreign_keys = ON");
}

/** A second connection to the same file for the store's hot queries (QueryShapes' DirectRunner). */
export interface HotConnection {
  run: DirectRunner;
  close: () => void;
}

/** The one SQL store on a SQLite dialect; `isUnavailable` knows the driver's error shape. */
export function sqliteStore(dialect: Dialect, isUnavailable: (error: unknown) => boolean, hot?: HotConnection): SqlAdminStore {
  const db = new Kysely<Tables>({ dialect });
  return new SqlAdminStore({
    db,
    caps: SQLITE,
    isUnavailable,
    randomBytes: cryptoRandomBytes,
    direct: hot?.run,
    close: async () => {
      await db.destroy();
      hot?.close();
    },
  });
}
