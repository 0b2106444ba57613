/**
 * Compile-once queries for the hot paths. Kysely builds and compiles a query on every
 * call, which costs more than running a small indexed read. A query shape is built once
 * with named placeholders, its SQL kept, and later runs only bind values in the
 * recorded order. Shapes differ by which optional filters are present (the caller names
 * the shape by a key), never by values, so the cache stays small.
 */
import { CompiledQuery, type Compilable, type Kysely, type RawBuilder } from "kysely";

const MARK = "\u0000param:";

/**
 * Every shape's SQL starts with this comment, so that a driver can tell the few hot,
 * fixed statements from the rest and keep them prepared (the Postgres adapter names
 * them, so the server parses and plans each once per connection, not once per request).
 */
export const SHAPE_SQL_PREFIX = "/* leaveapi shape */ ";

/** A placeholder for a named parameter while a shape is being built. */
export function param<T = string>(name: string): T {
  return `${MARK}${name}` as unknown as T;
}

interface Shape {
  sql: string;
  names: string[];
}

/**
 * Runs a shape's SQL straight on a driver, bypassing Kysely's executor (about 12 us a
 * query, more than a keyed read itself costs on SQLite). It must be a connection of its
 * own: a statement slipped in between the statements of a Kysely transaction on the same
 * connection would become part of it.
 */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => unknown[];

export class QueryShapes {
  private readonly shapes = new Map<string, Shape>();

  constructor(
    private readonly db: Kysely<never>,
    private readonly direct?: DirectRunner,
  ) {}

  private shape(key: string, build: () => Compilable): Shape {
    let shape = this.shapes.get(key);
    if (!shape) {
      const compiled = build().compile();
      const names = compiled.parameters.map((p) => {
        if (typeof p !== "string" || !p.startsWith(MARK)) {
          throw new Error(`Query shape '${key}' has a literal parameter; build it with param() only.`);
        }
        return p.slice(MARK.length);
      });
      shape = { sql: SHAPE_SQL_PREFIX + compiled.sql, names };
      this.shapes.set(key, shape);
    }
    return shape;
  }

  /** Like `rows`, for a shape written as raw SQL (sql`...` with param() values): the caller names the row type. */
  async rawRows<R>(key: string, build: () => RawBuilder<unknown>, values: Record<string, unknown>): Promise<R[]> {
    return (await this.run(key, () => ({ compile: () => build().compile(this.db) }), values)) as R[];
  }

  /** Runs shape `key` (built by `build` the first time) with `values` for its named parameters. */
  async rows<Q extends Compilable & { execute(): Promise<unknown[]> }>(
    key: string,
    build: () => Q,
    values: Record<string, unknown>,
  ): Promise<Awaited<ReturnType<Q["execute"]>>> {
    return (await this.run(key, build, values)) as Awaited<ReturnType<Q["execute"]>>;
  }

  private async run(key: string, build: () => Compilable, values: Record<string, unknown>): Promise<unknown[]> {
    const { sql, names } = this.shape(key, build);
    const parameters = names.map((n) => {
      if (!(n in values)) throw new Error(`Query shape '${key}' needs a value for '${n}'.`);
      return values[n];
    });
    if (this.direct) return this.direct(sql, parameters);
    const result = await this.db.executeQuery(CompiledQuery.raw(sql, parameters));
    return result.rows;
  }
}
