/**
 * An import's statements, compiled once per shape and then run with positional values.
 * Kysely builds and compiles a query on every call, which for statements run hundreds of
 * thousands of times cost about as much as running them; and the same SQL again keeps
 * its prepared form in SQLite's statement cache. A shape is a statement name and a row
 * count, never values, so the shapes stay few.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";

const MARK = "\u0000value:";

/** Beyond this many shapes the cache starts again: a re-import with scattered changes makes many sizes. */
const SHAPE_LIMIT = 64;

export class BatchStatements {
  private readonly shapes = new Map<string, CompiledQuery>();

  constructor(private readonly db: Kysely<never>) {}

  /**
   * Runs statement `name` for `rows` rows. `build` makes it the first time, calling
   * `value()` where each value goes; `values` holds them in the order of those calls.
   */
  async run<R>(name: string, rows: number, build: (value: () => never) => Compilable, values: unknown[]): Promise<QueryResult<R>> {
    const key = `${name}:${rows}`;
    let shape = this.shapes.get(key);
    if (shape === undefined) {
      shape = compileShape(key, build);
      if (this.shapes.size >= SHAPE_LIMIT) this.shapes.clear();
      this.shapes.set(key, shape);
    }
    // The shape's own compiled query with these values: not CompiledQuery.raw, which
    // freezes the values array, and freezing a few hundred values cost more than binding them.
    return this.db.executeQuery<R>({ ...shape, parameters: values });
  }
}

/** A shape, checked to bind exactly the marked values in the order they were placed. */
function compileShape(key: string, build: (value: () => never) => Compilable): CompiledQuery {
  let placed = 0;
  const compiled = build(() => `${MARK}${placed++}` as never).compile();
  const inOrder = compiled.parameters.length === placed && compiled.parameters.every((p, i) => p === `${MARK}${i}`);
  if (!inOrder) throw new Error(`Batch statement '${key}' does not bind its values in the order they were placed.`);
  return compiled;
}
