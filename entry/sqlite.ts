/**
 * `leaveapi/sqlite` on Bun: the embedded SQLite store on Bun's `bun:sqlite` (package.json's
 * `bun` export condition). Other runtimes get entry/sqlite-node.ts, the same store on
 * `node:sqlite`, under the same names. Like the Postgres store it is both `Store` and
 * `AdminStore`: `migrate()` before use.
 */
export { openSqliteStore, type SqliteStoreOptions } from "../adapters/bun/sqlite.ts";
/** Never thrown on Bun; exported so that code written for either runtime names it. */
export { SqliteUnsupportedError } from "../lib/errors.ts";
export type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
