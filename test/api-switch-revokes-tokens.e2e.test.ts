/**
 * Switching an organisation's API access off revokes its live tokens for good: switching
 * it on again brings none back, and clients ask for new tokens (README, "The command
 * line"). Through the handler on the store this run tests (LEAVEAPI_TEST_STORE), through
 * `leaveapi org disable-api` / `enable-api`, and, on Postgres, against a switch-off that
 * is still in flight while a token is saved.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import pg from "pg";
import { openPostgresStore } from "../adapters/postgres.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { digestSecret, mintAccessToken, mintClient } from "../lib/credentials.ts";
import { createHandler } from "../server/handler.ts";
import { runJson, scratchDir } from "./cli-harness.ts";
import { pollUntil, scratchDatabases } from "./pg-scratch.ts";
import { BASE, authorisedOrganisation, basicHeader, createClient, createWorld, requestToken, type TestWorld } from "./support.ts";
import { expectError } from "./oauth-helpers.ts";
import { freshSchemaName, testRunDatabaseUrl, testStoreKind } from "./test-stores.ts";

const INVALID_TOKEN = { challenge: 'Bearer realm="leaveapi", error="invalid_token"' };

async function switchOffAndOn(world: TestWorld, organisationId: string) {
  await world.store.setApiEnabled(organisationId, false);
  await world.store.setApiEnabled(organisationId, true);
}

describe(`switching API access off and on again (${testStoreKind})`, () => {
  test("a token issued before the switch-off is refused while off and after access is back on", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    expect((await get("/v1/employees")).status).toBe(200);
    await world.store.setApiEnabled(organisationId, false);
    await expectError(await get("/v1/employees"), 401, "invalid_token", INVALID_TOKEN);
    await world.store.setApiEnabled(organisationId, true);
    await expectError(await get("/v1/employees"), 401, "invalid_token", INVALID_TOKEN);
    // Still within the token's hour: it is refused because it was revoked, not because it expired.
    world.clock.advance(60_000);
    await expectError(await get("/v1/employees"), 401, "invalid_token", INVALID_TOKEN);
  });

  test("once access is back on, the same credentials get a new token that works", async () => {
    const world = await createWorld();
    const { organisationId, client } = await authorisedOrganisation(world);
    await switchOffAndOn(world, organisationId);
    const { res, body } = await requestToken(world, client);
    expect(res.status).toBe(200);
    const data = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(data.status).toBe(200);
  });

  test("a grant the server was reusing is dropped at once by a switch through the same store", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    // Two answers in a row: the second one came from the reused grant (lib/token-grant-cache.ts).
    for (let i = 0; i < 2; i++) expect((await get("/v1/employees")).status).toBe(200);
    await switchOffAndOn(world, organisationId);
    await expectError(await get("/v1/employees"), 401, "invalid_token", INVALID_TOKEN);
  });

  test("switching on what is already on revokes nothing", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    await world.store.setApiEnabled(organisationId, true);
    expect((await get("/v1/employees")).status).toBe(200);
  });

  test("another organisation's tokens keep working", async () => {
    const world = await createWorld();
    const switched = await authorisedOrganisation(world);
    const other = await authorisedOrganisation(world);
    await switchOffAndOn(world, switched.organisationId);
    expect((await other.get("/v1/employees")).status).toBe(200);
  });

  test("a second client of the switched organisation loses its tokens too", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    const second = await createClient(world, organisationId);
    const { body } = await requestToken(world, second);
    await switchOffAndOn(world, organisationId);
    await expectError(await get("/v1/employees"), 401, "invalid_token", INVALID_TOKEN);
    const data = await world.call("/v1/employees", { headers: { Authorization: `Bearer ${body.access_token}` } });
    await expectError(data, 401, "invalid_token", INVALID_TOKEN);
  });
});

describe("Postgres: a token saved while a switch-off is in flight", () => {
  test("waits for the switch-off and is not kept, so switching access on again does not revive it", async () => {
    const schema = freshSchemaName();
    const connectionString = await testRunDatabaseUrl();
    const store = openPostgresStore({ connectionString, schema, poolSize: 2 });
    const admin = new pg.Client({ connectionString });
    try {
      await store.migrate();
      const org = { id: crypto.randomUUID(), name: "Race Ltd", api_enabled: true, created_at: Date.now() };
      await store.createOrganisation(org);
      const { client } = mintClient(org.id, ["employees:read"], "race", Date.now());
      await store.createClient(client);
      const grant = { organisation_id: org.id, client_id: client.client_id, scopes: ["employees:read" as const], expires_at: Date.now() + 3_600_000 };

      // The switch-off as setApiEnabled runs it, held open after both its statements: its
      // delete has already looked for tokens, so only the insert itself can keep this one out.
      await admin.connect();
      await admin.query(`set search_path to ${schema}`);
      await admin.query("begin");
      await admin.query("update organisations set api_enabled = false where id = $1", [org.id]);
      await admin.query("delete from access_tokens where organisation_id = $1", [org.id]);
      const digest = digestSecret(mintAccessToken());
      let saved = false;
      const saving = store.saveToken(digest, grant).then(() => void (saved = true));
      // The insert must reach the database while the switch-off is open: it then waits for
      // the row lock (or, were it not to wait, it is saved, and the last check fails).
      await pollUntil("the token insert waiting for the switch-off", 5000, async () => {
        // Inside a transaction the activity view is read once and kept, unless cleared.
        await admin.query("select pg_stat_clear_snapshot()");
        const { rows } = await admin.query<{ n: string }>(
          `select count(*) as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into access_tokens%'`,
        );
        return saved || Number(rows[0]!.n) > 0 ? true : undefined;
      });
      await admin.query("commit");
      await saving;

      await store.setApiEnabled(org.id, true);
      expect(await store.findToken(digest)).toBeNull();
    } finally {
      await admin.end().catch(() => {});
      await store.close();
    }
  }, 15_000);
});

describe(`through the command line (${testStoreKind})`, () => {
  const newPostgresDatabase = scratchDatabases("switch");

  /** Opens the database the commands use, in this process, for one step; closed after it, so no grant is reused across steps. */
  async function withStore<T>(location: { file?: string; url?: string }, work: (store: SqlAdminStore) => Promise<T>): Promise<T> {
    const store = location.url ? openPostgresStore({ connectionString: location.url, poolSize: 2 }) : openSqliteStore({ filename: location.file! });
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  test("org disable-api then org enable-api: the token issued before is refused for good, a new one works", async () => {
    const scratch = scratchDir();
    try {
      const location = testStoreKind === "postgres" ? { url: await newPostgresDatabase() } : { file: join(scratch.dir, "switch.sqlite") };
      const db = location.url ? ["--database-url", location.url] : ["--db", location.file!];
      const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Switch Ltd"]);
      await runJson([...db, "org", "enable-api", org.id]);
      const creds = await runJson<{ client_id: string; client_secret: string }>([...db, "credentials", "create", "--org", org.id]);

      const call = (store: SqlAdminStore, path: string, init: RequestInit = {}) =>
        createHandler({ store })(new Request(BASE + path, init), { remoteAddress: "127.0.0.1" });
      const issue = (store: SqlAdminStore) =>
        call(store, "/v1/oauth/token", {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(creds.client_id, creds.client_secret) },
          body: "grant_type=client_credentials",
        }).then(async (res) => {
          expect(res.status).toBe(200);
          return ((await res.json()) as { access_token: string }).access_token;
        });
      const employees = (store: SqlAdminStore, token: string) => call(store, "/v1/employees", { headers: { Authorization: `Bearer ${token}` } });

      const before = await withStore(location, async (store) => {
        const token = await issue(store);
        expect((await employees(store, token)).status).toBe(200);
        return token;
      });

      expect((await runJson<{ api_enabled: boolean }>([...db, "org", "disable-api", org.id])).api_enabled).toBe(false);
      expect((await runJson<{ api_enabled: boolean }>([...db, "org", "enable-api", org.id])).api_enabled).toBe(true);

      await withStore(location, async (store) => {
        await expectError(await employees(store, before), 401, "invalid_token", INVALID_TOKEN);
        const after = await issue(store);
        expect((await employees(store, after)).status).toBe(200);
      });
    } finally {
      scratch.dispose();
    }
  });
});
