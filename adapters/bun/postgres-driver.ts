/**
 * Kysely over Bun.SQL, Bun's built-in Postgres client: the Postgres store's driver under Bun
 * (adapters/postgres.ts chooses). It answers every query as the `pg` driver does there:
 *
 * - DATE is the `YYYY-MM-DD` text Postgres sent (Bun.SQL makes a Date of it), INT8 a
 *   number (Bun.SQL makes a string of it), the rest as both drivers give it;
 * - a server's error carries its SQLSTATE in `code`, as pg's does (Bun.SQL puts it in
 *   `errno`, and `ERR_POSTGRES_SERVER_ERROR` in `code`);
 * - parameters go as text of no stated type, as pg sends them, so the server types each
 *   by where it stands. Bun.SQL would state int4, int8 or float8 for a number by its
 *   value: a statement first prepared with a small number in a bigint column is then
 *   prepared again for a large one, and an import's batches, each with other values,
 *   were nearly all prepared anew, each waiting a round trip for it (bench/RESULTS.md);
 * - a statement with no answer a second past the statement timeout is given up with
 *   pg's "Query read timeout", so a link that goes silent cannot hang a request;
 * - once the database was found unreachable, a statement that finds no connection within
 *   RECONNECT_WAIT_MS fails at once, as pg's does when its connect fails. Bun.SQL would
 *   retry a connection that is accepted and then closed (a proxy or load balancer with no
 *   database behind it) until its connection timeout, 5 s, for every request.
 *
 * Bun.SQL pools its connections, and a statement with parameters is a named prepared
 * statement on each (planned once, as pg's fast path does for the hot ones only). Kysely
 * asks for a connection for every statement, and a reserved connection costs a few
 * microseconds more than the pool's: so the store's hot statements (adapters/sql/compiled-queries.ts's
 * HOT_SQL_PREFIX: the API's reads, tokens, rate limits; none of them leaves anything on
 * its session) run on the pool when they are the first on a Kysely connection, and
 * anything else reserves a connection, kept until Kysely releases it: a transaction, the
 * import's `begin` of its own, the migrator's session lock taken before its transaction.
 *
 * Only the global `Bun` is used, never an import of "bun": the Postgres entry point loads
 * this module on Node and Deno too, where it is never asked to open a pool.
 */
import type { ReservedSQL, SQL } from "bun";
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { HOT_SQL_PREFIX } from "../sql/compiled-queries.ts";

export interface BunSqlOptions {
  url: string;
  /** Connections in the pool. */
  max: number;
  connectionTimeoutMs: number;
  /** The server's statement_timeout; no answer a second after it gives up the statement. */
  statementTimeoutMs: number;
  /** Other server settings sent as each connection opens (search_path, plan_cache_mode). */
  settings: Record<string, string>;
}

const DATE_OID = 1082;
const INT8_OID = 20;

/** A server's error as pg reports it: the SQLSTATE in `code`, the server's message, and its fields. */
export class PostgresServerError extends Error {
  readonly code: string;
  readonly detail?: string;
  readonly constraint?: string;
  readonly table?: string;
  readonly column?: string;
  readonly schema?: string;
  readonly severity?: string;
  constructor(from: {
    message: string;
    errno: string;
    detail?: string;
    constraint?: string;
    table?: string;
    column?: string;
    schema?: string;
    severity?: string;
  }) {
    super(from.message, { cause: from });
    this.name = "PostgresServerError";
    this.code = from.errno;
    this.detail = from.detail;
    this.constraint = from.constraint;
    this.table = from.table;
    this.column = from.column;
    this.schema = from.schema;
    this.severity = from.severity;
  }
}

/** Bun.SQL's error with the server's SQLSTATE moved to `code` (pg's place); Bun's own errors keep their ERR_POSTGRES_* code. */
export function pgShapedError(error: unknown): unknown {
  const e = error as { errno?: unknown; message?: unknown } | null;
  if (typeof e?.errno === "string" && /^[0-9A-Z]{5}$/.test(e.errno) && typeof e.message === "string") {
    return new PostgresServerError(e as ConstructorParameters<typeof PostgresServerError>[0]);
  }
  return error;
}

/**
 * `url` with its TLS settings as pg reads them, for Bun.SQL, which reads them as libpq
 * does: pg takes `sslmode=prefer`, `require` and `verify-ca`, and `ssl=true`, for
 * `verify-full` (the server's certificate and name checked), where libpq and Bun.SQL
 * would encrypt without checking whom they talk to. `uselibpqcompat=true`, pg's switch to
 * libpq's reading, keeps them as they are, and goes (Bun.SQL would send it to the server
 * as a setting, which the server refuses).
 */
export function bunSqlUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const params = u.searchParams;
  const libpq = params.get("uselibpqcompat") === "true";
  const sslmode = params.get("sslmode");
  const ssl = params.get("ssl");
  let changed = params.has("uselibpqcompat");
  params.delete("uselibpqcompat");
  if (!libpq && (sslmode === "prefer" || sslmode === "require" || sslmode === "verify-ca")) {
    params.set("sslmode", "verify-full");
    changed = true;
  }
  if (!libpq && sslmode === null && ssl !== null) {
    params.delete("ssl");
    if (ssl === "true" || ssl === "1") params.set("sslmode", "verify-full");
    changed = true;
  }
  return changed ? u.toString() : url;
}

/** A parameter as pg sends it: text (or null, or bytes), whose type the server infers from where it stands. */
export function textParameter(value: unknown): unknown {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
    case "boolean":
      return String(value);
    case "undefined":
      return null;
    default:
      if (value === null || value instanceof Uint8Array) return value;
      if (value instanceof Date) return value.toISOString();
      return JSON.stringify(value);
  }
}

/** A DATE as Postgres writes it (ISO DateStyle): `YYYY-MM-DD`, with ` BC` before year 1, or ±infinity. */
export function dateText(value: unknown): unknown {
  if (value === Number.POSITIVE_INFINITY) return "infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-infinity";
  if (!(value instanceof Date)) return value;
  const year = value.getUTCFullYear();
  const month = String(value.getUTCMonth() + 1).padStart(2, "0");
  const day = String(value.getUTCDate()).padStart(2, "0");
  return year > 0 ? `${String(year).padStart(4, "0")}-${month}-${day}` : `${String(1 - year).padStart(4, "0")}-${month}-${day} BC`;
}

type Column = { name: string; type: number };
type Convert = (row: Record<string, unknown>) => void;

/** One converter per statement's columns (Bun shares the array between runs of a prepared statement); null when none needs one. */
const converters = new WeakMap<readonly Column[], Convert | null>();

function converterFor(columns: readonly Column[]): Convert | null {
  let convert = converters.get(columns);
  if (convert !== undefined) return convert;
  const dates = columns.filter((c) => c.type === DATE_OID).map((c) => c.name);
  const int8s = columns.filter((c) => c.type === INT8_OID).map((c) => c.name);
  convert =
    dates.length === 0 && int8s.length === 0
      ? null
      : (row) => {
          for (const name of dates) row[name] = dateText(row[name]);
          for (const name of int8s) {
            const v = row[name];
            if (typeof v === "string") row[name] = Number(v);
          }
        };
  converters.set(columns, convert);
  return convert;
}

type BunQuery = Promise<Record<string, unknown>[] & { command: string | null; affectedRows: number; columns: Column[] | null }> & {
  active: boolean;
  cancel(): unknown;
};

const WRITES = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

/** Once the database was found unreachable, how long a statement may wait for a connection before it fails too. */
export const RECONNECT_WAIT_MS = 500;

/** Bun.SQL's codes, and ours, for "the database cannot be reached". */
const UNREACHABLE = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ETIMEDOUT",
]);

/** What the connections of one pool share: whether its database was last found unreachable. */
interface PoolHealth {
  unreachable: boolean;
}

class BunSqlConnection implements DatabaseConnection {
  /** The connection reserved for this one's statements; null while they may run on the pool. */
  #reserved: Promise<ReservedSQL> | null = null;
  /** Whether a statement has run: only the first may go to the pool. */
  #used = false;

  constructor(
    private readonly pool: SQL,
    private readonly queryTimeoutMs: number,
    private readonly health: PoolHealth,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const text = compiled.sql;
    const pooled = !this.#used && text.startsWith(HOT_SQL_PREFIX);
    this.#used = true;
    const result = await this.run(pooled ? this.pool : await this.reserved(), text, compiled.parameters.map(textParameter));
    const convert = result.columns === null ? null : converterFor(result.columns);
    if (convert !== null) for (const row of result) convert(row);
    return {
      rows: result as unknown as R[],
      numAffectedRows: result.command !== null && WRITES.has(result.command) ? BigInt(result.affectedRows) : undefined,
    };
  }

  // biome-ignore lint/correctness/useYield: the store never streams (as with pg, where no cursor is configured)
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("The store does not stream Postgres results.");
  }

  /** The reserved connection, reserved on first need; waiting for one is bounded as a statement is. */
  private reserved(): Promise<ReservedSQL> {
    if (this.#reserved !== null) return this.#reserved;
    const long = AbortSignal.timeout(this.queryTimeoutMs);
    const short = this.health.unreachable ? AbortSignal.timeout(RECONNECT_WAIT_MS) : null;
    this.#reserved = this.pool.reserve({ signal: short ? AbortSignal.any([long, short]) : long }).then(
      (reserved) => {
        this.health.unreachable = false;
        return reserved;
      },
      (error: unknown) => {
        this.#reserved = null;
        throw this.failed(short?.aborted ? connectFailed() : long.aborted ? queryTimeout() : error);
      },
    );
    return this.#reserved;
  }

  /** Back to the pool (a connection still in a transaction, Bun closes instead). */
  release(): void {
    const reserved = this.#reserved;
    this.#reserved = null;
    reserved?.then((r) => r.release()).catch(() => {});
  }

  private run(on: SQL, text: string, parameters: readonly unknown[]) {
    const query = on.unsafe(text, parameters as unknown[]) as unknown as BunQuery;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const late = new Promise<never>((_, reject) => {
      timers.push(
        setTimeout(() => {
          // A reserved connection that went silent is closed, not handed back to the pool;
          // what is sent on it next fails (ERR_POSTGRES_CONNECTION_CLOSED), as it must in a
          // transaction, rather than running outside it.
          if (on !== this.pool) (on as ReservedSQL).close().catch(() => {});
          reject(queryTimeout());
        }, this.queryTimeoutMs),
      );
      // On the pool only: a reserved connection has its connection (and a statement may
      // wait behind another on it).
      if (this.health.unreachable && on === this.pool) {
        timers.push(
          setTimeout(() => {
            if (query.active) return;
            query.cancel();
            reject(connectFailed());
          }, RECONNECT_WAIT_MS),
        );
      }
    });
    // The query may still fail after a timer gave up on it: nobody waits for that.
    query.catch(() => {});
    return Promise.race([query, late])
      .then(
        (result) => {
          this.health.unreachable = false;
          return result;
        },
        (error: unknown) => {
          throw this.failed(error);
        },
      )
      .finally(() => {
        for (const timer of timers) clearTimeout(timer);
      });
  }

  /** `error` in pg's shape, noting whether it says the database cannot be reached. */
  private failed(error: unknown): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && UNREACHABLE.has(code)) this.health.unreachable = true;
    return pgShapedError(error);
  }
}

/** pg's words for it, which isPostgresUnavailable (adapters/postgres.ts) knows. */
const queryTimeout = () => Object.assign(new Error("Query read timeout"), { code: "ETIMEDOUT" });
/** Bun.SQL's code for a connection that could not be made, which isPostgresUnavailable knows. */
const connectFailed = () =>
  Object.assign(new Error(`Connection failed: the database was unreachable, and no connection was made within ${RECONNECT_WAIT_MS} ms`), {
    code: "ERR_POSTGRES_CONNECTION_FAILED",
  });

class BunSqlDriver implements Driver {
  #pool: SQL | undefined;
  readonly #health: PoolHealth = { unreachable: false };

  constructor(private readonly options: BunSqlOptions) {}

  async init(): Promise<void> {
    const { url, max, connectionTimeoutMs, statementTimeoutMs, settings } = this.options;
    // `Bun` is looked up here, not at load: on Node and Deno this module loads, never runs.
    this.#pool = new (globalThis as unknown as { Bun: { SQL: new (options: object) => SQL } }).Bun.SQL({
      url: bunSqlUrl(url),
      max,
      connectionTimeout: connectionTimeoutMs / 1000,
      connection: { ...settings, statement_timeout: String(statementTimeoutMs) },
      // INT8 comes as text and is made a number by the converter, as pg's parser does.
      bigint: false,
      // A connection lost while idle (the link cut) says so before any statement fails:
      // the next one is not left to wait out the connection timeout.
      onclose: (error: unknown) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code === "string" && UNREACHABLE.has(code)) this.#health.unreachable = true;
      },
    });
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.#pool) throw new Error("driver has already been destroyed");
    return new BunSqlConnection(this.#pool, this.options.statementTimeoutMs + 1000, this.#health);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let text = "begin";
    if (settings.isolationLevel || settings.accessMode) {
      text = `start transaction${settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : ""}${settings.accessMode ? ` ${settings.accessMode}` : ""}`;
    }
    await connection.executeQuery(CompiledQuery.raw(text));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as BunSqlConnection).release();
  }

  async destroy(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    // Running statements may finish, for as long as one may take; then they are cut.
    await pool?.close({ timeout: Math.ceil(this.options.statementTimeoutMs / 1000) + 1 });
  }
}

/** Kysely's Postgres dialect (its SQL, adapter and introspector) on a Bun.SQL pool. */
export function bunSqlDialect(options: BunSqlOptions): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new BunSqlDriver(options),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  };
}
