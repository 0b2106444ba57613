/**
 * The SQLite store keeps access tokens and rate-limit events in a file of their own beside
 * the data (adapters/sql/sqlite-store.ts, `attachTokensFile`), so that an import, which
 * holds the data file's one write lock for its whole run, never holds up a token request
 * (docs/api.md, "Rate limits"). Here on real files, with the import held open by the test.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { SQLITE } from "../adapters/sql/capabilities.ts";
import { cachingSqliteDatabase } from "../adapters/sql/fast-paths.ts";
import { schemaMigrations } from "../adapters/sql/migrations.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { configureSqlite, tokensFileOf } from "../adapters/sql/sqlite-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { employee } from "./support.ts";

const dirs: string[] = [];
const stores: SqlAdminStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-tokens-file-"));
  dirs.push(dir);
  return join(dir, "leaveapi.sqlite");
}

/** A store on `file` with a short busy timeout, so that a lock it waits for shows as a failure at once. */
async function open(file: string, busyTimeoutMs = 100): Promise<SqlAdminStore> {
  const store = openSqliteStore({ filename: file, busyTimeoutMs });
  stores.push(store);
  await store.migrate();
  return store;
}

async function organisationWithClient(store: SqlAdminStore) {
  const id = crypto.randomUUID();
  await store.createOrganisation({ id, name: "Tokens Ltd", api_enabled: true, created_at: Date.now() });
  const clientId = `svcc_${"a".repeat(24)}`;
  await store.createClient({
    client_id: clientId,
    organisation_id: id,
    name: null,
    secret_digest: "0".repeat(64),
    scopes: ["employees:read"],
    created_at: Date.now(),
    revoked_at: null,
  });
  return { id, clientId };
}

/** Starts an import that writes and then holds its transaction open until `release` is called. */
function heldImport(store: SqlAdminStore, organisationId: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding!: () => void;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const done = store.runImport(async (w) => {
    await w.upsertEmployees(organisationId, [employee()], Date.now());
    holding();
    await gate;
  });
  return { held, release, done };
}

test("token requests and token checks are answered while an import holds the data file's lock", async () => {
  const file = scratchFile();
  const importer = await open(file);
  const server = await open(file);
  const org = await organisationWithClient(importer);
  const running = heldImport(importer, org.id);
  await running.held;

  const grant = { organisation_id: org.id, client_id: org.clientId, scopes: ["employees:read" as const], expires_at: Date.now() + 3_600_000 };
  const slot = { key: `token-requests:${org.clientId}`, now: Date.now(), limit: 10, windowMs: 60_000 };
  expect(await server.takeRateSlotAndSaveToken(slot, "1".repeat(64), grant)).toEqual({ allowed: true });
  await server.saveToken("2".repeat(64), grant);
  expect(await server.findToken("1".repeat(64))).toEqual(grant);
  expect(await server.findToken("2".repeat(64))).toEqual(grant);
  // The data file itself is still the import's alone.
  await expect(server.createOrganisation({ id: crypto.randomUUID(), name: "Waits", api_enabled: false, created_at: Date.now() })).rejects.toThrow();

  running.release();
  await running.done;
  expect(existsSync(tokensFileOf(file))).toBe(true);
});

test("an import that finds another running waits for it, past the busy timeout, and both land", async () => {
  const file = scratchFile();
  const first = await open(file, 20);
  const second = await open(file, 20);
  const a = await organisationWithClient(first);
  const b = crypto.randomUUID();
  await first.createOrganisation({ id: b, name: "Second Ltd", api_enabled: true, created_at: Date.now() });
  const running = heldImport(first, a.id);
  await running.held;
  const waiting = second.runImport((w) => w.upsertEmployees(b, [employee(), employee()], Date.now()));
  // However long the second has waited, it is still waiting: nothing of it is written.
  let settled = false;
  void waiting.finally(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBe(false);
  running.release();
  await running.done;
  expect(await waiting).toMatchObject({ created: 2 });
  expect(await first.listEmployees({ organisationId: b, filters: {}, limit: 10 })).toHaveLength(2);
  expect(await first.listEmployees({ organisationId: a.id, filters: {}, limit: 10 })).toHaveLength(1);
});

test("an upgrade moves live tokens and rate-limit events into the tokens file, and they keep working", async () => {
  const file = scratchFile();
  // The database as the release before the tokens file left it: schema 0007, tokens in the data file.
  const database = new Database(file, { create: true, strict: true });
  configureSqlite(database, { filename: file });
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cachingSqliteDatabase(database) }) });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => schemaMigrations(SQLITE) } });
  expect((await migrator.migrateTo("0007_publications")).error).toBeUndefined();
  const org = crypto.randomUUID();
  await db.insertInto("organisations").values({ id: org, name: "Old Ltd", api_enabled: 1, created_at: Date.now() }).execute();
  await db
    .insertInto("api_clients")
    .values({
      client_id: "svcc_old",
      organisation_id: org,
      name: null,
      secret_digest: "0".repeat(64),
      scopes: "employees:read",
      created_at: Date.now(),
      revoked_at: null,
    })
    .execute();
  const expiresAt = Date.now() + 3_600_000;
  await db
    .insertInto("main.access_tokens" as "access_tokens")
    .values({ digest: "3".repeat(64), client_id: "svcc_old", organisation_id: org, scopes: "employees:read", expires_at: expiresAt })
    .execute();
  await db
    .insertInto("main.rate_events" as "rate_events")
    .values({ key: "token-requests:svcc_old", at: Date.now() })
    .execute();
  await db.destroy();

  const store = await open(file);
  expect(await store.findToken("3".repeat(64))).toEqual({ organisation_id: org, client_id: "svcc_old", scopes: ["employees:read"], expires_at: expiresAt });
  expect(await store.checkRateLimit("token-requests:svcc_old", Date.now(), 1, 60_000)).toMatchObject({ allowed: false });
  const data = new Database(file, { readonly: true });
  const tables = data
    .query<{ name: string }, []>("select name from sqlite_master where type = 'table'")
    .all()
    .map((t) => t.name);
  data.close();
  expect(tables).not.toContain("access_tokens");
  expect(tables).not.toContain("rate_events");
});

test("a data file whose tokens file is gone (restored from a backup) opens with no tokens, and issues new ones", async () => {
  const file = scratchFile();
  const store = await open(file);
  const org = await organisationWithClient(store);
  const grant = { organisation_id: org.id, client_id: org.clientId, scopes: ["employees:read" as const], expires_at: Date.now() + 3_600_000 };
  await store.saveToken("4".repeat(64), grant);
  await store.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${tokensFileOf(file)}${suffix}`, { force: true });

  const restored = await open(file);
  expect(await restored.findToken("4".repeat(64))).toBeNull();
  await restored.saveToken("5".repeat(64), grant);
  expect(await restored.findToken("5".repeat(64))).toEqual(grant);
});
