/**
 * What every part of the SQL store shares: the connections, the dialect's capabilities,
 * the compiled-once queries on each connection, and the guard that turns "cannot reach
 * the database" into StoreUnavailableError. The parts (cursor-key.ts, token-queries.ts,
 * rate-limit-queries.ts, read-queries.ts, leave-page/leave-page-queries.ts, sql-admin-store.ts) each
 * take one and are composed into the store by sql-store.ts and sql-admin-store.ts.
 */
import type { Kysely } from "kysely";
import { sha256Hex, verifiedSha256Hex, type Sha256Hex } from "../../lib/digest.ts";
import { StoreUnavailableError } from "../../lib/errors.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { CompiledQueries, type DirectRunner } from "./compiled-queries.ts";
import { PublishedStamps } from "./published-stamps.ts";
import type { Tables } from "./tables.ts";

export interface SqlStoreOptions {
  db: Kysely<Tables>;
  /**
   * Where the data endpoints read employees, leave and holidays: a read replica. Tokens,
   * clients, rate limits and the cursor key always use `db`, the primary, because they
   * must be fresh. Default: `db`.
   */
  readDb?: Kysely<Tables>;
  caps: SqlCapabilities;
  /** Whether an error means the database cannot be reached (answered as 503, not 500). */
  isUnavailable: (error: unknown) => boolean;
  /** Fills the installation's cursor key when first needed. */
  randomBytes: (length: number) => Uint8Array;
  /**
   * The SHA-256 an import digests every row's content with (content-digest.ts), checked
   * against lib/digest.ts's on a probe when the store is built. The stores of
   * adapters/bun/sqlite.ts, adapters/node/sqlite.ts and adapters/postgres.ts pass
   * node:crypto's (adapters/node-crypto.ts); default: lib/digest.ts's pure-JavaScript one,
   * so that this folder runs unchanged on any runtime.
   */
  sha256Hex?: Sha256Hex;
  /** The schema that holds the tables and the migrations' bookkeeping (Postgres); default: the connection's. */
  schema?: string;
  /**
   * Runs the hot, compiled-once queries on a connection of their own, bypassing Kysely
   * (SQLite files: a second connection to the same file). Default: through `db`/`readDb`.
   */
  direct?: DirectRunner;
  /**
   * Throws StoreUnavailableError (part "token_issuance") when the SQLite tokens file was
   * deleted, replaced or made read-only since it was opened; called before every use of it.
   */
  checkTokensFile?: () => void;
  /**
   * The wall clock an import's publication is timed by (published-stamps.ts); default
   * Date.now. Tests pass a clock they move.
   */
  now?: () => number;
  close: () => Promise<void>;
}

export interface SqlContext {
  readonly options: SqlStoreOptions;
  readonly db: Kysely<Tables>;
  /** The data reads' connection: the replica when there is one, else the primary. */
  readonly reader: Kysely<Tables>;
  readonly caps: SqlCapabilities;
  /** Hot queries compiled once, on the primary and on the reader. */
  readonly primary: CompiledQueries;
  readonly replica: CompiledQueries;
  /** How the stamps records are stored with are shown, on the reader (published-stamps.ts). */
  readonly stamps: PublishedStamps;
  /** `options.sha256Hex`, verified, or lib/digest.ts's. */
  readonly sha256Hex: Sha256Hex;
  /** Runs a query, turning "cannot reach the database" (or a closed store) into StoreUnavailableError. */
  guard<T>(work: () => Promise<T>): Promise<T>;
  /** A boolean as the dialect stores it. */
  boolValue(b: boolean): boolean | number;
  /** Runs `work` on what the tokens file holds, once the file is known to be the one opened (`options.checkTokensFile`). */
  tokens<T>(work: () => Promise<T>): Promise<T>;
  /** Idempotent: a second close resolves at once. */
  close(): Promise<void>;
}

const TOKENS_UNAVAILABLE = "The store cannot issue or check tokens now.";

export function createSqlContext(options: SqlStoreOptions): SqlContext {
  const db = options.db;
  const reader = options.readDb ?? db;
  const hot = { hot: { direct: options.direct } };
  let closed = false;
  const replica = new CompiledQueries(reader, options.caps, hot);
  return {
    options,
    db,
    reader,
    caps: options.caps,
    primary: new CompiledQueries(db, options.caps, hot),
    replica,
    stamps: new PublishedStamps(replica, reader),
    sha256Hex: options.sha256Hex === undefined ? sha256Hex : verifiedSha256Hex(options.sha256Hex),
    async guard<T>(work: () => Promise<T>): Promise<T> {
      // A closed store cannot reach its database: answered as 503, like a lost connection.
      if (closed) throw new StoreUnavailableError("The data store has been closed.");
      try {
        return await work();
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        if (closed || options.isUnavailable(error)) throw new StoreUnavailableError(undefined, { cause: error });
        throw error;
      }
    },
    boolValue: (b) => (options.caps.booleanType === "integer" ? (b ? 1 : 0) : b),
    tokens<T>(work: () => Promise<T>): Promise<T> {
      return this.guard(async () => {
        options.checkTokensFile?.();
        try {
          return await work();
        } catch (error) {
          // A tokens file that cannot be written or read (read-only, damaged) fails token
          // issuance, not the reads: /healthz names which (DECISIONS §9).
          if (options.isUnavailable(error))
            throw new StoreUnavailableError(`${TOKENS_UNAVAILABLE} (${(error as Error).message})`, { cause: error, part: "token_issuance" });
          throw error;
        }
      });
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      return options.close();
    },
  };
}
