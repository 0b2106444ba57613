/**
 * `leaveapi/sqlite`: the embedded SQLite store on Bun's `bun:sqlite`, so it runs on Bun
 * only (the package's `bun` export condition serves this file as TypeScript). Like the
 * Postgres store it is both `Store` and `AdminStore`: `migrate()` before use.
 */
export { openSqliteStore, type SqliteStoreOptions } from "../adapters/sqlite.ts";
export type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
