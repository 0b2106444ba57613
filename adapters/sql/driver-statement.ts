/**
 * A SQLite driver's prepared statement as Kysely's SqliteDialect runs it: bun:sqlite's
 * (fast-paths.ts) and node:sqlite's (adapters/node/sqlite.ts) have the same three methods.
 */
import type { SqliteStatement } from "kysely";

/** A prepared statement as bun:sqlite and node:sqlite both have it, binding values of type B. */
export interface DriverStatement<B> {
  all(...parameters: B[]): unknown[];
  run(...parameters: B[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: B[]): IterableIterator<unknown>;
}

/** A driver's statement as Kysely's SqliteDialect runs it; `reader` when it yields columns. */
export function kyselyStatement<B>(statement: DriverStatement<B>, reader: boolean, bind: (parameters: readonly unknown[]) => B[]): SqliteStatement {
  return {
    reader,
    all: (parameters) => statement.all(...bind(parameters)),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}
