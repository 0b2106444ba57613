/**
 * Compile-once queries: the store's one mechanism for it. Kysely builds and compiles a
 * query on every call, which costs more than running a small indexed read, and for an
 * import's statements, run hundreds of thousands of times, about as much as running them.
 *
 * A query is built once from slots (typed SQL parameters standing for values to come), its
 * SQL kept, and later runs only bind values in the recorded order. Which query is built
 * follows from the values alone: a named query's cache key is the set of names bound
 * (an optional filter left `undefined` has no slot, so its condition cannot be built),
 * and a batch's is its statement and the number of values. Compiling checks that the SQL
 * binds slots only and every value bound, so a query that ignores a value, or keeps a
 * value of its first call frozen into its SQL, fails at once rather than running wrong.
 */
import { sql, type Compilable, type CompiledQuery, type Expression, type Kysely, type QueryResult, type RawBuilder } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";

/**
 * Every hot query's SQL starts with this comment, so that a driver can tell the few hot,
 * fixed statements from the rest and keep them prepared (fast-paths.ts).
 */
export const HOT_SQL_PREFIX = "/* leaveapi shape */ ";

/** What a slot binds: a value's name or position, never a value. */
class Slot {
  constructor(readonly key: string | number) {}
}

function slot<T>(key: string | number): Expression<T> {
  return sql<T>`${new Slot(key)}`;
}

/** The slots a named query is built from: one per bound value, none for an `undefined` one. */
export type Slots<V> = {
  readonly [K in keyof V]-?: undefined extends V[K] ? Expression<Exclude<V[K], undefined>> | undefined : Expression<V[K]>;
};

/** Builds a named query from its slots, on the store's connection and dialect, which never change for a cache. */
export type QueryBuilder<V, R> = (slots: Slots<V>, db: Kysely<Tables>, caps: SqlCapabilities) => Compilable<R>;

/**
 * A named query, built from its slots alone: define it at module level, where no request's
 * values are in scope to build from by mistake.
 */
export interface QueryDefinition<V, R> {
  readonly build: QueryBuilder<V, R>;
}

/** `defineQuery<Values>()(build)`: the values' type given, the rows' type inferred from the query built. */
export function defineQuery<V extends object>() {
  return <R>(build: QueryBuilder<V, R>): QueryDefinition<V, R> => ({ build });
}

/** A query written as raw SQL (sql`...` over slots), compiled for `db`'s dialect. */
export function rawQuery<R, D>(query: RawBuilder<R>, db: Kysely<D>): Compilable<R> {
  return { compile: () => query.compile(db) };
}

/**
 * Runs SQL straight on a driver, bypassing Kysely's executor (whose work per query is
 * more than a keyed read itself costs on SQLite). It must be a connection of its own: a
 * statement slipped in between the statements of a Kysely transaction on the same
 * connection would become part of it.
 */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => unknown[];

export interface CompiledQueriesOptions {
  /**
   * Hot queries (the API's reads, tokens, rate limits): marked for the driver to keep
   * prepared, and run on `direct` when given.
   */
  hot?: { direct?: DirectRunner };
}

interface Shape {
  compiled: CompiledQuery;
  /** For each parameter of the SQL, the value it binds: a name, or a position. */
  binds: (string | number)[];
  /** The parameters are the values, in order (a batch's usual case): no copy needed. */
  inOrder: boolean;
}

/** Beyond this many batch shapes the cache starts again: a re-import with scattered changes makes many sizes. */
const BATCH_SHAPE_LIMIT = 64;

export class CompiledQueries {
  private readonly named = new Map<object, Map<string, Shape>>();
  private readonly batches = new Map<string, Shape>();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly caps: SqlCapabilities,
    private readonly options: CompiledQueriesOptions = {},
  ) {}

  /** Runs `definition` with `values`: the rows, typed as the built query's. */
  async rows<V extends object, R>(definition: QueryDefinition<V, R>, values: NoInfer<V>): Promise<R[]> {
    const { shape, parameters } = this.bind(definition, values);
    return (await this.execute(shape, parameters)) as R[];
  }

  /**
   * Like `rows`, on a transaction of this connection (Postgres, a SQLite store without a
   * direct connection): the statement keeps its one compiled shape, and on Postgres its
   * prepared statement.
   */
  async rowsIn<V extends object, R>(executor: Kysely<Tables>, definition: QueryDefinition<V, R>, values: NoInfer<V>): Promise<R[]> {
    const { shape, parameters } = this.bind(definition, values);
    return (await executor.executeQuery({ ...shape.compiled, parameters })).rows as R[];
  }

  /** The direct connection's synchronous runner, when this connection has one (a bun:sqlite file). */
  get direct(): DirectRunner | undefined {
    return this.options.hot?.direct;
  }

  /**
   * Like `rows`, now, on the direct connection: statements run this way in one JavaScript
   * turn cannot interleave with another request's, so a transaction opened on `direct`
   * holds only their work.
   */
  rowsNow<V extends object, R>(definition: QueryDefinition<V, R>, values: NoInfer<V>): R[] {
    const direct = this.direct;
    if (!direct) throw new Error("rowsNow needs a direct connection.");
    const { shape, parameters } = this.bind(definition, values);
    return direct(shape.compiled.sql, parameters) as R[];
  }

  /** The shape compiled for these values' names, and the values in the order its SQL binds them. */
  private bind<V extends object, R>(definition: QueryDefinition<V, R>, values: V): { shape: Shape; parameters: unknown[] } {
    const key = boundKey(values);
    let shapes = this.named.get(definition);
    if (!shapes) {
      shapes = new Map();
      this.named.set(definition, shapes);
    }
    let shape = shapes.get(key);
    if (!shape) {
      const bound = boundNames(values);
      const slots = Object.fromEntries(bound.map((name) => [name, slot(name)])) as Slots<V>;
      shape = this.compile(key, definition.build(slots, this.db, this.caps), bound);
      shapes.set(key, shape);
    }
    const record = values as Record<string, unknown>;
    return { shape, parameters: shape.binds.map((name) => record[name]) };
  }

  /**
   * Runs statement `name` with positional `values`: `build` gets one slot per value, in
   * order, and must bind each once in that order (a row count follows from their number).
   */
  batch<R>(name: string, build: (slots: Expression<unknown>[]) => Compilable, values: readonly unknown[]): Promise<QueryResult<R>> {
    const key = `${name}#${values.length}`;
    let shape = this.batches.get(key);
    if (!shape) {
      const positions = values.map((_, i) => i);
      shape = this.compile(key, build(positions.map((i) => slot(i))), positions);
      if (!shape.inOrder) throw new Error(`Batch statement '${key}' does not bind its values in the order they were given.`);
      if (this.batches.size >= BATCH_SHAPE_LIMIT) this.batches.clear();
      this.batches.set(key, shape);
    }
    // The shape's own compiled query with these values: not CompiledQuery.raw, which
    // freezes the values array, and freezing a few hundred values cost more than binding them.
    return this.db.executeQuery<R>({ ...shape.compiled, parameters: values });
  }

  private compile(key: string, query: Compilable, bound: readonly (string | number)[]): Shape {
    const compiled = query.compile();
    const binds = compiled.parameters.map((p) => {
      if (!(p instanceof Slot)) throw new Error(`Query '${key}' has a literal parameter; build it from its slots only.`);
      return p.key;
    });
    const unused = bound.filter((name) => !binds.includes(name));
    if (unused.length > 0) throw new Error(`Query '${key}' binds ${unused.join(", ")} but its SQL never uses them.`);
    const hot = this.options.hot !== undefined;
    return {
      compiled: hot ? { ...compiled, sql: HOT_SQL_PREFIX + compiled.sql } : compiled,
      binds,
      inOrder: binds.length === bound.length && binds.every((b, i) => b === bound[i]),
    };
  }

  private async execute(shape: Shape, parameters: unknown[]): Promise<unknown[]> {
    const direct = this.options.hot?.direct;
    if (direct) return direct(shape.compiled.sql, parameters);
    return (await this.db.executeQuery({ ...shape.compiled, parameters })).rows;
  }
}

/**
 * `boundNames(values).join(",")`, without the arrays: it is asked on every run of a query,
 * a token request's half dozen included, and the shape it finds is almost always there.
 */
function boundKey(values: object): string {
  const record = values as Record<string, unknown>;
  let key = "";
  for (const name in record) {
    if (record[name] !== undefined) key = key === "" ? name : `${key},${name}`;
  }
  return key;
}

/** The names of the values bound: those not `undefined`, in the order given. */
function boundNames(values: object): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(values)) if (value !== undefined) names.push(name);
  return names;
}
