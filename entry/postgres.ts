/**
 * `leaveapi/postgres`: the Postgres store (Kysely over Bun.SQL under Bun, over node-postgres
 * under Node and Deno, or as its `driver` option says), for Bun, Node and Deno. It is both the `Store` the handler reads and the `AdminStore` that migrates,
 * creates organisations and clients, and imports. Call `migrate()` before use and
 * `close()` at shutdown.
 */
export { openPostgresStore, isPostgresUnavailable, type PostgresStoreOptions } from "../adapters/postgres.ts";
export type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
