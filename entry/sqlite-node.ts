/**
 * `leaveapi/sqlite` outside Bun (Node 22.16+, Deno): the same SQL store as on Bun, on the
 * runtime's built-in `node:sqlite`, reading and writing the same database files. On a Node
 * without node:sqlite (Node 20) the import works and `openSqliteStore` throws a
 * `SqliteUnsupportedError` that says what to do instead (docs/embedding.md, "Entry points").
 * Exports the same names as entry/sqlite.ts, whose declarations serve both.
 */
export { openNodeSqliteStore as openSqliteStore, type NodeSqliteStoreOptions as SqliteStoreOptions } from "../adapters/node/sqlite.ts";
export { SqliteUnsupportedError } from "../lib/errors.ts";
export type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
