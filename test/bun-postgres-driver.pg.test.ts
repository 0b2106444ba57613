/**
 * The Bun.SQL driver (adapters/bun/postgres-driver.ts) answers as the store's pg set-up
 * (adapters/postgres.ts) does: the same rows for every column type the store reads, the
 * same error codes, one session for what must share one, and "cannot reach the database"
 * recognised the same way. The store contracts and fast-path properties run on both
 * drivers too (store-contract-postgres.pg.test.ts, sql-fast-paths.pg.test.ts).
 */
import { beforeAll, expect, test } from "bun:test";
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { bunSqlDialect, bunSqlUrl, dateText, RECONNECT_WAIT_MS, textParameter } from "../adapters/bun/postgres-driver.ts";
import { isPostgresUnavailable, openPostgresStore } from "../adapters/postgres.ts";
import { HOT_SQL_PREFIX } from "../adapters/sql/compiled-queries.ts";
import { scratchDatabases } from "./pg-scratch.ts";
import { startTcpProxy } from "./tcp-proxy.ts";

const newDatabase = scratchDatabases("bun driver", async () => {
  await Promise.all([bun?.destroy(), node?.destroy()]);
});
let url: string;
let bun: Kysely<unknown>;
let node: Kysely<unknown>;

const bunAt = (at: string, statementTimeoutMs = 10_000, connectionTimeoutMs = 5000) =>
  new Kysely<unknown>({ dialect: bunSqlDialect({ url: at, max: 3, connectionTimeoutMs, statementTimeoutMs, settings: {} }) });

beforeAll(async () => {
  url = await newDatabase();
  bun = bunAt(url);
  // The store's pg parsers (adapters/postgres.ts): DATE as text, INT8 as a number.
  const types = {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === 1082 ? (v: string) => v : oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text"),
  };
  node = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2, types }) }) });
  await sql`create table t (id text primary key, day date, at bigint, n numeric, flag boolean, doc json, docb jsonb, ts timestamptz)`.execute(node);
});

test("every type the store reads comes back as pg gives it: DATE as text (BC, infinity, in any time zone), INT8 and counts as numbers", async () => {
  const text = `select $1::date as day, '0044-03-15 BC'::date as bc, 'infinity'::date as inf, '-infinity'::date as ninf,
    '0099-12-31'::date as early, 1795879891806::int8 as at, count(*) as n, 1.50::numeric as num, true as flag, null::date as none,
    json_build_object('a', 1, 'b', json_build_array('x')) as doc, '{"k": [1, 2]}'::jsonb as docb, 'x'::text as word, 7::int4 as small,
    2.5::float8 as real, '2026-01-02T03:04:05.678Z'::timestamptz as ts from (values (1), (2)) v(x)`;
  const query = CompiledQuery.raw(text, ["2024-02-29"]);
  const [fromBun, fromPg] = await Promise.all([bun.executeQuery(query), node.executeQuery(query)]);
  expect(fromBun.rows).toEqual(fromPg.rows);
  expect(fromBun.rows[0]).toMatchObject({
    day: "2024-02-29",
    bc: "0044-03-15 BC",
    inf: "infinity",
    ninf: "-infinity",
    early: "0099-12-31",
    at: 1795879891806,
    n: 2,
  });
  expect(dateText(new Date("2026-06-30T00:00:00Z"))).toBe("2026-06-30");
});

test("writes report the rows they changed as pg's do, and a unique violation carries SQLSTATE 23505 in `code`, with its constraint", async () => {
  const insert = CompiledQuery.raw("insert into t (id, day, at) values ($1, $2, $3), ($4, $5, $6)", ["a", "2026-01-01", 1, "b", "2026-01-02", 2]);
  const inserted = await bun.executeQuery(insert);
  expect(inserted.numAffectedRows).toBe(2n);
  const update = CompiledQuery.raw("update t set at = at + 1 where id = any($1::text[])", ["{a,b,c}"]);
  expect((await bun.executeQuery(update)).numAffectedRows).toBe((await node.executeQuery(update)).numAffectedRows!);
  const again = CompiledQuery.raw("insert into t (id) values ($1)", ["a"]);
  const [bunError, pgError] = await Promise.all([bun.executeQuery(again).catch((e: unknown) => e), node.executeQuery(again).catch((e: unknown) => e)]);
  expect(bunError).toMatchObject({ code: "23505", constraint: "t_pkey", message: (pgError as Error).message });
  expect((pgError as { code: string }).code).toBe("23505");
  expect(isPostgresUnavailable(bunError)).toBe(false);
});

test("a transaction runs on one session: the migrator's session lock, taken before it, is released on the session that took it", async () => {
  const pids = await bun.connection().execute(async (db) => {
    const pid = async (on: Kysely<unknown>) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(on)).rows[0]!.pid;
    const first = await pid(db);
    await sql`select pg_advisory_lock(4242)`.execute(db);
    const inside = await db.transaction().execute(async (trx) => [await pid(trx), await pid(trx)]);
    await sql`select pg_advisory_unlock(4242)`.execute(db);
    return [first, ...inside];
  });
  expect(new Set(pids).size).toBe(1);
  // Released: another session takes it at once.
  const taken = await sql<{ ok: boolean }>`select pg_try_advisory_lock(4242) as ok`.execute(node);
  expect(taken.rows[0]!.ok).toBe(true);
  await sql`select pg_advisory_unlock_all()`.execute(node);
});

test("a rolled-back transaction leaves nothing, and the store's hot statements run on the pool", async () => {
  await bun
    .transaction()
    .execute(async (trx) => {
      await sql`insert into t (id) values ('rolled back')`.execute(trx);
      throw new Error("undo");
    })
    .catch(() => {});
  const hot = CompiledQuery.raw(`${HOT_SQL_PREFIX}select count(*) as n from t where id = $1`, ["rolled back"]);
  expect((await bun.executeQuery(hot)).rows).toEqual([{ n: 0 }]);
});

test("a statement past the statement timeout fails with the server's 57014, as on pg; nothing it holds is unavailable", async () => {
  const slow = bunAt(url, 200);
  try {
    const error = await sql`select pg_sleep(2)`.execute(slow).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "57014" });
    expect(isPostgresUnavailable(error)).toBe(false);
  } finally {
    await slow.destroy();
  }
});

test("no server at the address is 'unavailable' (503), as pg's ECONNREFUSED is", async () => {
  const nowhere = bunAt("postgres://postgres@127.0.0.1:1/none", 1000, 2000);
  try {
    const error = await sql`select 1`.execute(nowhere).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isPostgresUnavailable(error)).toBe(true);
  } finally {
    await nowhere.destroy();
  }
});

test("the driver is chosen by name, the runtime's by default; an unknown one is a clear error", () => {
  expect(() => openPostgresStore({ connectionString: url, driver: "postgres.js" as never })).toThrow(
    `The Postgres driver must be "bun" or "pg"; got 'postgres.js'.`,
  );
});

test("a link cut (a proxy that accepts and closes) is answered promptly, as pg's failed connect is, and the pool recovers by itself", async () => {
  const target = new URL(url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(url);
  viaProxy.port = String(proxy.port);
  // A connection timeout far above what a prompt answer takes.
  const db = bunAt(viaProxy.toString(), 10_000, 8000);
  try {
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    proxy.cut();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const error = await sql`select 1`.execute(db).catch((e: unknown) => e);
      expect(isPostgresUnavailable(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(RECONNECT_WAIT_MS + 1000);
    }
    proxy.restore();
    expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    // In a transaction too: the reserved connection is refused as promptly.
    proxy.cut();
    await sql`select 1`.execute(db).catch(() => {});
    const started = Date.now();
    const error = await db
      .transaction()
      .execute((trx) => sql`select 1`.execute(trx))
      .catch((e: unknown) => e);
    expect(isPostgresUnavailable(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(RECONNECT_WAIT_MS + 1000);
  } finally {
    proxy.restore();
    await db.destroy();
    await proxy.close();
  }
});

test("parameters go as pg sends them, text of no stated type: one prepared statement serves small and large numbers, booleans and nulls alike", async () => {
  expect([5, 1.5, 12n, true, null, undefined, "x"].map(textParameter)).toEqual(["5", "1.5", "12", "true", null, null, "x"]);
  const prepared = await bun.transaction().execute(async (trx) => {
    for (const [id, at, flag] of [
      ["n1", 5, true],
      ["n2", 1795879891806, null],
      ["n3", null, false],
      ["n4", 2 ** 31, true],
    ] as const) {
      await trx.executeQuery(CompiledQuery.raw("insert into t (id, at, flag) values ($1, $2, $3)", [id, at, flag]));
    }
    const { rows } = await sql<{ n: number }>`select count(*) as n from pg_prepared_statements where statement like 'insert into t (id, at, flag)%'`.execute(
      trx,
    );
    return rows[0]!.n;
  });
  expect(prepared).toBe(1);
  const rows = await sql<{ id: string; at: number | null; flag: boolean | null }>`select id, at, flag from t where id like 'n%' order by id`.execute(node);
  expect(rows.rows).toEqual([
    { id: "n1", at: 5, flag: true },
    { id: "n2", at: 1795879891806, flag: null },
    { id: "n3", at: null, flag: false },
    { id: "n4", at: 2 ** 31, flag: true },
  ]);
});

test("a URL's TLS settings mean what they mean to pg: sslmode prefer, require and verify-ca, and ssl=true, check the server's certificate and name", () => {
  const cases: [string, string][] = [
    ["postgres://a:b@db:5432/d", "postgres://a:b@db:5432/d"],
    ["postgres://a@db/d?sslmode=require", "postgres://a@db/d?sslmode=verify-full"],
    ["postgres://a@db/d?sslmode=prefer&application_name=x", "postgres://a@db/d?sslmode=verify-full&application_name=x"],
    ["postgres://a@db/d?sslmode=verify-ca", "postgres://a@db/d?sslmode=verify-full"],
    ["postgres://a@db/d?sslmode=disable", "postgres://a@db/d?sslmode=disable"],
    ["postgres://a@db/d?ssl=true", "postgres://a@db/d?sslmode=verify-full"],
    ["postgres://a@db/d?ssl=false", "postgres://a@db/d"],
    // pg's switch to libpq's reading keeps libpq's reading, and is not sent to the server.
    ["postgres://a@db/d?uselibpqcompat=true&sslmode=require", "postgres://a@db/d?sslmode=require"],
    ["postgres://a@/d?host=/var/run/postgresql", "postgres://a@/d?host=/var/run/postgresql"],
  ];
  for (const [given, sent] of cases) expect(bunSqlUrl(given)).toBe(sent);
});
