/**
 * The speed-ups between Kysely and the drivers, all here. Each answers exactly as the plain
 * path would (test/sql-fast-paths.pg.test.ts checks the store against plain Kysely queries):
 *
 * - compiled-queries.ts: the store's queries compiled once (its own module);
 * - bun:sqlite: hot SQL runs from the driver's statement cache, and on a connection of its
 *   own for files (`sqliteHotConnection`);
 * - Postgres on pg: hot SQL runs as named prepared statements (`keepHotQueriesPrepared`;
 *   Bun.SQL prepares every statement with parameters, adapters/bun/postgres-driver.ts,
 *   and runs hot SQL on its pool without reserving a connection);
 * - SQLite: a larger page cache while an import runs (`withPageCache`).
 *
 * Drivers are typed here by the little this module calls, so that it imports none of them
 * (node:sqlite and Deno load the SQL store without bun:sqlite or pg).
 */
import { sql, type Kysely, type PostgresPool, type PostgresCursor, type PostgresPoolClient, type PostgresQueryResult, type SqliteDatabase } from "kysely";
import { HOT_SQL_PREFIX, type DirectRunner } from "./compiled-queries.ts";
import { kyselyStatement, type DriverStatement } from "./driver-statement.ts";

/** What bun:sqlite's Database and Statement offer that is used here. */
type BunBinding = string | number | bigint | boolean | null | Uint8Array;
interface BunStatement extends DriverStatement<BunBinding> {
  readonly columnNames: string[];
}
export interface BunDatabase {
  /** A statement from the database's own cache, prepared once per SQL text. */
  query(sql: string): BunStatement;
  prepare(sql: string): BunStatement;
  close(): void;
}

/** Kysely hands over `unknown[]`; bun:sqlite checks each value as it binds it. */
const bunBindings = (parameters: readonly unknown[]) => parameters as BunBinding[];

/**
 * Statements with more placeholders than this are not cached: multi-row writes vary in
 * shape, and each would stay in memory. The API's reads stay below it, the leave page's
 * one-scan-per-span-class query (one arm, with its placeholders, per span class) included.
 */
export const CACHED_PLACEHOLDER_LIMIT = 256;

function placeholderCount(text: string): number {
  let count = 0;
  for (let at = text.indexOf("?"); at !== -1 && count <= CACHED_PLACEHOLDER_LIMIT; at = text.indexOf("?", at + 1)) count++;
  return count;
}

/**
 * bun:sqlite as Kysely's SqliteDialect drives it, preparing the short, repeated SQL of the
 * API's reads once (bun:sqlite's `query` cache): parsing and planning a statement on every
 * request costs more than running it.
 */
export function cachingSqliteDatabase(database: BunDatabase): SqliteDatabase {
  return {
    prepare: (text) => {
      const statement = placeholderCount(text) <= CACHED_PLACEHOLDER_LIMIT ? database.query(text) : database.prepare(text);
      // A statement that yields columns (select, pragma, returning) is read with `all`.
      return kyselyStatement(statement, statement.columnNames.length > 0, bunBindings);
    },
    close: () => database.close(),
  };
}

/** A second connection to the same file for the store's hot queries. */
export interface HotConnection {
  run: DirectRunner;
  close: () => void;
}

/**
 * The hot queries' own connection (a file only: a second ":memory:" connection would be
 * another database). In WAL its reads never wait for a writer on the main connection,
 * such as an import, and never see that writer's uncommitted rows.
 */
export function sqliteHotConnection(database: BunDatabase): HotConnection {
  return {
    run: (text, parameters) => database.query(text).all(...bunBindings(parameters)),
    close: () => database.close(),
  };
}

/** What pg's Pool and PoolClient offer that is used here. */
interface PgClient {
  query(text: string, values: unknown[]): Promise<PgResult>;
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResult>;
  release(): void;
}
interface PgResult {
  command: string;
  rowCount: number | null;
  rows: unknown[];
}
export interface PgPool {
  connect(): Promise<PgClient>;
  end(): Promise<void>;
}

/** One name per hot SQL text, the same on every connection of the process. */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `leaveapi_shape_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * `pool` as Kysely's PostgresDialect drives it, running hot SQL (compiled-queries.ts) as
 * named prepared statements: parsed and planned once per connection, where an unnamed
 * statement is planned on every call (for the leave page's
 * one-scan-per-span-class query, planning costs more than running it). Other SQL, such as an import's
 * multi-row writes, goes through unchanged.
 */
export function keepHotQueriesPrepared(pool: PgPool): PostgresPool {
  // One wrapper per connection: Kysely keeps its connection state by client object.
  const wrappers = new WeakMap<PgClient, PostgresPoolClient>();
  const wrap = (client: PgClient): PostgresPoolClient => {
    function query<R>(text: string, values: readonly unknown[]): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query<R>(text: string | PostgresCursor<R>, values: readonly unknown[] = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
      // Kysely asks for a cursor only when its dialect is given one; this store's is not.
      if (typeof text !== "string") throw new Error("The store does not stream Postgres results.");
      const parameters = [...values];
      const result = text.startsWith(HOT_SQL_PREFIX) ? client.query({ name: statementName(text), text, values: parameters }) : client.query(text, parameters);
      return result.then((r) => ({ command: r.command as PostgresQueryResult<R>["command"], rowCount: r.rowCount ?? 0, rows: r.rows as R[] }));
    }
    return { query, release: () => client.release() };
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/**
 * Runs `work` with the connection's SQLite page cache (and with it SQLite's sorter, which
 * may take as much again) at `kib` KiB, then puts back the size it had, whatever `work` did.
 */
export async function withPageCache<T, D>(db: Kysely<D>, kib: number, work: () => Promise<T>): Promise<T> {
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  const before = Number(rows[0]?.cache_size ?? -2000);
  await sql.raw(`pragma cache_size = -${Math.trunc(kib)}`).execute(db);
  try {
    return await work();
  } finally {
    await sql.raw(`pragma cache_size = ${before}`).execute(db);
  }
}
