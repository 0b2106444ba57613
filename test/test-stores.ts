/**
 * Which store the handler-level suites run on. `LEAVEAPI_TEST_STORE=postgres` runs them on
 * the real Postgres server: one fresh database per test run (dropped at the end), one fresh
 * schema per world. A Postgres that cannot be reached fails the run loudly: it is never
 * passed over in silence.
 */
import { openPostgresStore, type PostgresDriver } from "../adapters/postgres.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { bunSqliteTemplates } from "./sqlite-templates.ts";
import pg from "pg";

export type TestStoreKind = "sqlite" | "postgres";

export const testStoreKind: TestStoreKind = process.env.LEAVEAPI_TEST_STORE === "postgres" ? "postgres" : "sqlite";

/**
 * The Postgres client libraries the store runs on (adapters/postgres.ts): the Postgres
 * contract and fast-path suites run on each. The handler-level suites run on the one
 * LEAVEAPI_PG_DRIVER names, by default the runtime's (Bun.SQL under `bun test`).
 */
export const POSTGRES_DRIVERS: readonly PostgresDriver[] = ["bun", "pg"];

const envDriver = process.env.LEAVEAPI_PG_DRIVER || undefined;
if (envDriver !== undefined && !POSTGRES_DRIVERS.includes(envDriver as PostgresDriver)) {
  throw new Error(`LEAVEAPI_PG_DRIVER must be one of ${POSTGRES_DRIVERS.join(", ")}; got '${envDriver}'`);
}
export const testPostgresDriver = envDriver as PostgresDriver | undefined;

/** The server the Postgres suites use; it must allow creating databases. */
export const PG_ADMIN_URL = process.env.LEAVEAPI_TEST_PG_URL || "postgres://postgres@127.0.0.1:5432/test";

let runDatabase: Promise<string> | undefined;
let schemaCounter = 0;
const opened = new Set<SqlAdminStore>();

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`The Postgres test suite needs a server at ${PG_ADMIN_URL} (set LEAVEAPI_TEST_PG_URL): ${(error as Error).message}`);
  }
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database made for this test run (created on first use). */
export function testRunDatabaseUrl(): Promise<string> {
  runDatabase ??= (async () => {
    const name = `leaveapi_test_${Date.now()}_${process.pid}`;
    await adminQuery(`create database ${name}`);
    return withDatabase(PG_ADMIN_URL, name);
  })();
  return runDatabase;
}

/** A schema name no other world of this run uses. */
export function freshSchemaName(): string {
  return `w${process.pid}_${++schemaCounter}`;
}

/**
 * Migrated schemas whose store was closed: the next world empties one instead of
 * migrating a new one, which is what makes the Postgres run affordable.
 */
const freeSchemas: string[] = [];
const schemaOfStore = new Map<SqlAdminStore, string>();
let schemaAdmin: pg.Pool | undefined;

/** DELETE rather than TRUNCATE: on tables this small it skips TRUNCATE's file swaps and fsyncs. */
async function emptySchema(schema: string): Promise<void> {
  if (schemaAdmin === undefined) {
    schemaAdmin = new pg.Pool({ connectionString: await testRunDatabaseUrl(), max: 1 });
    // Its idle connection is ended by the run's closing `drop database … with (force)` when
    // that comes first: pg then emits "error" on the pool, which unheard fails the run
    // ("terminating connection due to administrator command"). The next query would say.
    schemaAdmin.on("error", () => {});
  }
  const { rows } = await schemaAdmin.query<{ tablename: string }>("select tablename from pg_tables where schemaname = $1 and tablename not like 'kysely_%'", [
    schema,
  ]);
  // Children before parents, so foreign keys never object.
  const order = [
    "access_tokens",
    "rate_events",
    "leave_bookings",
    "leave_types",
    "leave_class_spans",
    "closure_days",
    "public_holidays",
    "employees",
    "api_clients",
  ];
  const names = rows
    .map((r) => r.tablename)
    .sort((a, b) => {
      const ia = order.indexOf(a);
      const ib = order.indexOf(b);
      return (ia === -1 ? order.length : ia) - (ib === -1 ? order.length : ib);
    });
  // As a freshly migrated schema: no rows, but the version of the (no) kept bodies that migrate records.
  const emptied = (t: string) => (t === "installation" ? `delete from ${schema}.${t} where name <> 'bodies_version';` : `delete from ${schema}.${t};`);
  await schemaAdmin.query(names.map(emptied).join("\n"));
}

async function openPostgresTestStore(now?: () => number, driver = testPostgresDriver): Promise<SqlAdminStore> {
  const reused = freeSchemas.pop();
  const schema = reused ?? freshSchemaName();
  if (reused) await emptySchema(schema);
  const store = openPostgresStore({ connectionString: await testRunDatabaseUrl(), schema, poolSize: 2, now, driver });
  if (!reused) await store.migrate();
  schemaOfStore.set(store, schema);
  return store;
}

/**
 * A fresh, migrated store of the kind this run tests; closed after the test by
 * `closeTestStores`. In memory, a copy of one migrated once (sqlite-templates.ts).
 */
export async function openTestStore(options: { filename?: string; now?: () => number } = {}): Promise<SqlAdminStore> {
  let store: SqlAdminStore;
  if (testStoreKind === "postgres" && options.filename === undefined) {
    store = await openPostgresTestStore(options.now);
  } else if (options.filename === undefined) {
    store = await bunSqliteTemplates.memory({ now: options.now });
  } else {
    // A file may be one a store of the test opened already: opened and migrated (a no-op then) as the product does.
    store = openSqliteStore({ filename: options.filename, now: options.now });
    await store.migrate();
  }
  opened.add(store);
  return store;
}

/**
 * A fresh, migrated Postgres store whatever this run tests, in a schema of the run's
 * database (an emptied one when a closed store left one free); `releaseTestStore` closes
 * it and frees its schema for the next. For the Postgres contract suites; `driver` as
 * openPostgresStore takes it (default: LEAVEAPI_PG_DRIVER's, else the runtime's).
 */
export async function openPostgresSchemaStore(driver?: PostgresDriver): Promise<SqlAdminStore> {
  const store = await openPostgresTestStore(undefined, driver ?? testPostgresDriver);
  opened.add(store);
  return store;
}

/** Closes one store of this module's, and frees its schema (if any) for the next. */
export async function releaseTestStore(store: SqlAdminStore): Promise<void> {
  opened.delete(store);
  await store.close().catch(() => {});
  const schema = schemaOfStore.get(store);
  schemaOfStore.delete(store);
  if (schema !== undefined) freeSchemas.push(schema);
}

export async function closeTestStores(): Promise<void> {
  await Promise.all([...opened].map(releaseTestStore));
}

/** Drops this run's database, if one was made. */
export async function dropTestRunDatabase(): Promise<void> {
  await schemaAdmin?.end();
  schemaAdmin = undefined;
  if (!runDatabase) return;
  const name = new URL(await runDatabase).pathname.slice(1);
  runDatabase = undefined;
  await adminQuery(`drop database if exists ${name} with (force)`);
}
