/**
 * The Postgres store: the same SQL store on Kysely's Postgres dialect, over Bun.SQL under
 * Bun (bun/postgres-driver.ts) and over `pg` elsewhere, or as `driver` says. Both answer
 * alike: DATE as the `YYYY-MM-DD` text Postgres sent (pg's default would make a local
 * midnight Date, shifting the day in some time zones), BIGINT instants as numbers, a
 * server's error with its SQLSTATE in `code`.
 */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { cryptoRandomBytes } from "../lib/credentials.ts";
import { bunSqlDialect } from "./bun/postgres-driver.ts";
import { nodeSha256Hex } from "./node-crypto.ts";
import { POSTGRES } from "./sql/capabilities.ts";
import { keepHotQueriesPrepared } from "./sql/fast-paths.ts";
import { openSqlAdminStore, type SqlAdminStore } from "./sql/sql-admin-store.ts";
import type { Tables } from "./sql/tables.ts";

export interface PostgresStoreOptions {
  connectionString: string;
  /** A read replica for the data endpoints' reads; tokens, rate limits and admin stay on the primary. */
  readConnectionString?: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Milliseconds before the server cancels a statement (default 10 000). */
  statementTimeoutMs?: number;
  /** Milliseconds to wait for a connection before giving up (default 5 000). */
  connectionTimeoutMs?: number;
  /**
   * A schema of its own for every table, migrations' bookkeeping included (created when
   * missing); by default the connection's search_path decides, usually `public`.
   */
  schema?: string;
  /** The wall clock an import's publication is timed by (default Date.now); tests pass one they move. */
  now?: () => number;
  /**
   * The client library: "bun" (Bun.SQL, Bun's own; the default under Bun) or "pg"
   * (node-postgres; the default elsewhere, and the only one there).
   */
  driver?: PostgresDriver;
}

export type PostgresDriver = "bun" | "pg";

const underBun = () => "Bun" in globalThis;

const DATE_OID = 1082;
const INT8_OID = 20;

/** Type parsers for this pool only: the process-wide pg defaults stay untouched for the host app. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === DATE_OID) return (value: string) => value;
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
};

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08006",
  "53300", // too_many_connections
  // Bun.SQL's own (bun/postgres-driver.ts)
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
]);

export function isPostgresUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === "string" && UNAVAILABLE_CODES.has(e.code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Query read timeout/i.test(
    message,
  );
}

export function openPostgresStore(options: PostgresStoreOptions): SqlAdminStore {
  // Without it, pg falls back to libpq's environment and defaults and dies deep inside with
  // "no PostgreSQL user name specified in startup packet".
  if (typeof options?.connectionString !== "string" || options.connectionString === "") {
    throw new TypeError("openPostgresStore needs connectionString, a postgres:// URL; it was not given (is DATABASE_URL set?).");
  }
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) {
    throw new Error(`The Postgres schema name must be a plain lower-case identifier; got '${options.schema}'.`);
  }
  const driver = options.driver ?? (underBun() ? "bun" : "pg");
  if (driver !== "bun" && driver !== "pg") throw new Error(`The Postgres driver must be "bun" or "pg"; got '${String(driver)}'.`);
  if (driver === "bun" && !underBun()) throw new Error('The Postgres driver "bun" (Bun.SQL) needs Bun; on this runtime use "pg".');
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const connectionTimeoutMs = options.connectionTimeoutMs ?? 5000;
  const poolSize = options.poolSize ?? 10;
  // Server settings for each connection. Named statements (pg: the store's hot queries,
  // sql/fast-paths.ts; Bun.SQL: every statement with parameters) get a generic plan,
  // planned once; a custom one, which Postgres otherwise keeps choosing for the leave
  // page, is planned again on every request, which costs more than running it. Their
  // plans do not hinge on the values: ordered index scans under a LIMIT, keyed by the
  // organisation.
  const settings: Record<string, string> = { plan_cache_mode: "force_generic_plan" };
  if (options.schema !== undefined) settings.search_path = options.schema;
  const connect = (connectionString: string) => {
    if (driver === "bun") {
      return new Kysely<Tables>({ dialect: bunSqlDialect({ url: connectionString, max: poolSize, connectionTimeoutMs, statementTimeoutMs, settings }) });
    }
    const pool = new pg.Pool({
      connectionString,
      max: poolSize,
      connectionTimeoutMillis: connectionTimeoutMs,
      statement_timeout: statementTimeoutMs,
      // The server cancels a slow statement itself; no answer a second after that means
      // the link went silent (a partition drops packets, it sends no reset), and without
      // this the request would wait for ever.
      query_timeout: statementTimeoutMs + 1000,
      types,
      options: Object.entries(settings)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(" "),
    });
    // An idle client losing its connection must not crash the process; the next query reports it.
    pool.on("error", () => {});
    // Nor one checked out (an import's transaction between two statements, when an
    // administrator terminates its backend): pg emits "error" on the client, and with no
    // listener that printed the driver's stack; the statement that fails says why.
    pool.on("connect", (client) => client.on("error", () => {}));
    return new Kysely<Tables>({ dialect: new PostgresDialect({ pool: keepHotQueriesPrepared(pool) }) });
  };
  const db = connect(options.connectionString);
  const readDb = options.readConnectionString === undefined ? undefined : connect(options.readConnectionString);
  return openSqlAdminStore({
    db,
    caps: POSTGRES,
    isUnavailable: isPostgresUnavailable,
    randomBytes: cryptoRandomBytes,
    sha256Hex: nodeSha256Hex,
    schema: options.schema,
    readDb,
    now: options.now,
    close: async () => {
      await Promise.all([db.destroy(), readDb?.destroy()]);
    },
  });
}
