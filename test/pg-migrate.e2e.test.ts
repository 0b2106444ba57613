/**
 * Schema upgrades on Postgres are safe to race: `leaveapi migrate` or `leaveapi serve`
 * started several times at once on an empty database ends with one correct schema (the
 * migration lock), and `leaveapi migrate` run again changes nothing.
 */
import { beforeAll, expect, test } from "bun:test";
import { POSTGRES } from "../adapters/sql/capabilities.ts";
import { schemaMigrations } from "../adapters/sql/migrations.ts";
import { runCli, startServer, type RunningServer } from "./cli-harness.ts";
import { queryDatabase, scratchDatabases } from "./pg-scratch.ts";

const servers: RunningServer[] = [];
const newDatabase = scratchDatabases("migrate", async () => {
  for (const code of await Promise.all(servers.map((s) => s.stop()))) expect(code).toBe(0);
});

const MIGRATION_NAMES = Object.keys(schemaMigrations(POSTGRES)).sort();

/** Every column, type, default and index of the public schema, as comparable text. */
async function schemaOf(url: string): Promise<string[]> {
  const columns = await queryDatabase<{ line: string }>(
    url,
    `select concat_ws(' ', table_name, column_name, data_type, is_nullable, column_default) as line
       from information_schema.columns where table_schema = 'public' order by table_name, column_name`,
  );
  const indexes = await queryDatabase<{ line: string }>(url, "select indexdef as line from pg_indexes where schemaname = 'public' order by indexname");
  const constraints = await queryDatabase<{ line: string }>(
    url,
    `select concat_ws(' ', conrelid::regclass::text, conname, pg_get_constraintdef(oid)) as line
       from pg_constraint where connamespace = 'public'::regnamespace order by conrelid::regclass::text, conname`,
  );
  return [...columns, ...indexes, ...constraints].map((r) => r.line);
}

const migrationRows = (url: string) =>
  queryDatabase<{ name: string }>(url, "select name from kysely_migration order by name").then((rows) => rows.map((r) => r.name));

/** The schema one lone `leaveapi migrate` makes: what every race must end with. */
let reference: string[];

beforeAll(async () => {
  const url = await newDatabase();
  const result = await runCli(["--database-url", url, "migrate"]);
  expect(result).toMatchObject({ code: 0, stderr: "" });
  reference = await schemaOf(url);
  // A sanity check on the reference itself: the tables the store needs are there.
  for (const table of ["organisations", "api_clients", "access_tokens", "rate_events", "employees", "leave_bookings", "closure_days"]) {
    expect(reference.some((line) => line.startsWith(`${table} `))).toBe(true);
  }
}, 30_000);

test("leaveapi migrate started four times at once on an empty database: all succeed, one schema", async () => {
  const url = await newDatabase();
  const results = await Promise.all(Array.from({ length: 4 }, () => runCli(["--database-url", url, "migrate", "--json"])));
  for (const result of results) {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ database: "postgres", migrated: true });
  }
  expect(await migrationRows(url)).toEqual(MIGRATION_NAMES);
  expect(await schemaOf(url)).toEqual(reference);

  // Run again: nothing to do, nothing changed.
  const again = await runCli(["--database-url", url, "migrate"]);
  expect(again).toMatchObject({ code: 0, stderr: "" });
  expect(await migrationRows(url)).toEqual(MIGRATION_NAMES);
  expect(await schemaOf(url)).toEqual(reference);
}, 30_000);

test("two leaveapi serve started at once on an empty database both come up on one schema", async () => {
  const url = await newDatabase();
  const settled = await Promise.allSettled([startServer(["--database-url", url]), startServer(["--database-url", url])]);
  const started = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  servers.push(...started);
  for (const r of settled) if (r.status === "rejected") throw r.reason;
  for (const server of started) {
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);
  }
  expect(await migrationRows(url)).toEqual(MIGRATION_NAMES);
  expect(await schemaOf(url)).toEqual(reference);
}, 30_000);
