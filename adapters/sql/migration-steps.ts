/**
 * What every migration is written with (migrations.ts, later-migrations.ts): an untyped
 * Kysely and a runner of SQL statements.
 */
import { sql, type Kysely } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";

// Migrations run before the typed schema exists, so they take an untyped Kysely (as Kysely's own Migration type does).
// biome-ignore lint/suspicious/noExplicitAny: the schema a migration runs on has no type until it has run
export type AnyDb = Kysely<any>;

export type Dialect = SqlCapabilities["dialect"];

/** Runs statements written over several lines for reading: each newline and its indent stood for one space. */
export function run(statements: readonly string[]): (db: AnyDb) => Promise<void> {
  return async (db) => {
    for (const statement of statements) await sql.raw(statement.replace(/\n\s*/g, " ")).execute(db);
  };
}
