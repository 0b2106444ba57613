/**
 * Secrets at rest (docs/api.md, "Getting credentials"; issue 8): after a full session
 * (credentials created, tokens issued by Basic and by form, tokens used, wrong secrets and
 * unknown tokens presented, credentials revoked, API access switched off and on), every
 * cell of every table of the store is read, and no client secret or token is there in plain
 * text: only their SHA-256 digests. Runs on SQLite, and on Postgres with
 * LEAVEAPI_TEST_STORE.
 */
import { expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import { digestSecret } from "../lib/credentials.ts";
import { sqlConnectionOf } from "../adapters/sql/sql-admin-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { authorisedOrganisation, basicHeader, booking, createClient, createWorld, employee, requestToken, seed, type TestWorld } from "./support.ts";
import { testStoreKind } from "./test-stores.ts";

/** The store's own connection: the same code then reads SQLite and Postgres. */
function connectionOf(world: TestWorld): Kysely<Tables> {
  return sqlConnectionOf(world.store);
}

/** Every table of the store's schema, every row, every cell as text (bytes as Latin-1 and hex). */
/** Every table the store's connection reaches: on SQLite, in every attached file (the tokens file too), by `schema.name`. */
async function tablesOf(db: Kysely<Tables>): Promise<string[]> {
  if (testStoreKind === "postgres") {
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s;
    return (await db.introspection.getTables({ withInternalKyselyTables: true })).filter((t) => t.schema === schema).map((t) => t.name);
  }
  const files = (await sql<{ name: string }>`pragma database_list`.execute(db)).rows.map((r) => r.name);
  const names: string[] = [];
  for (const file of files) {
    const { rows } = await sql<{ name: string }>`select name from ${sql.raw(`"${file}".sqlite_master`)} where type = 'table'`.execute(db);
    names.push(...rows.map((r) => `${file}.${r.name}`));
  }
  return names;
}

async function dumpTables(db: Kysely<Tables>): Promise<Map<string, string[]>> {
  const dump = new Map<string, string[]>();
  for (const table of await tablesOf(db)) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    const cells = rows.flatMap((row) =>
      Object.values(row).flatMap((v) =>
        v instanceof Uint8Array ? [String.fromCharCode(...v), [...v].map((b) => b.toString(16).padStart(2, "0")).join("")] : [JSON.stringify(v)],
      ),
    );
    // By the table's own name, whichever file holds it.
    dump.set(table.split(".").at(-1)!, [...(dump.get(table.split(".").at(-1)!) ?? []), ...cells]);
  }
  return dump;
}

async function fullSession(world: TestWorld) {
  const secrets: string[] = [];
  const tokens: string[] = [];
  const presented: string[] = [];
  const org = await authorisedOrganisation(world);
  secrets.push(org.client.clientSecret);
  tokens.push(org.token);
  const people = [employee(), employee()];
  await seed(world, org.organisationId, { employees: people, bookings: [booking(people[0]!.id)] });

  const narrow = await createClient(world, org.organisationId, ["employees:read"]);
  const revoked = await createClient(world, org.organisationId);
  secrets.push(narrow.clientSecret, revoked.clientSecret);
  tokens.push((await requestToken(world, narrow)).body.access_token as string);
  const form = new URLSearchParams({ grant_type: "client_credentials", client_id: revoked.clientId, client_secret: revoked.clientSecret });
  const byForm = await world.call("/v1/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
  tokens.push(((await byForm.json()) as { access_token: string }).access_token);

  for (const token of tokens) {
    for (const path of [
      "/v1/employees",
      `/v1/employees/${people[0]!.id}`,
      "/v1/leave-requests?from=2026-01-01&to=2026-12-31",
      "/v1/holidays?from=2026-01-01&to=2026-12-31",
    ]) {
      expect((await world.call(path, { headers: { Authorization: `Bearer ${token}` } })).status).toBeLessThan(500);
    }
  }
  // What a caller presents and the server refuses must not be kept either.
  const wrongSecret = `svcs_${"W".repeat(43)}`;
  const unknownToken = `svct_${"U".repeat(43)}`;
  presented.push(wrongSecret, unknownToken);
  const wrong = await world.call("/v1/oauth/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(narrow.clientId, wrongSecret) },
    body: "grant_type=client_credentials",
  });
  expect(wrong.status).toBe(401);
  expect((await world.call("/v1/employees", { headers: { Authorization: `Bearer ${unknownToken}` } })).status).toBe(401);

  await world.store.revokeClient(revoked.clientId, world.clock.now());
  await world.store.setApiEnabled(org.organisationId, false);
  await world.store.setApiEnabled(org.organisationId, true);
  tokens.push((await requestToken(world, org.client)).body.access_token as string);
  for (const t of tokens) expect(t).toMatch(/^svct_/);
  return { secrets, tokens, presented };
}

test(`no client secret or token in plain text in any table, only their digests (${testStoreKind})`, async () => {
  const world = await createWorld();
  const { secrets, tokens, presented } = await fullSession(world);
  const dump = await dumpTables(connectionOf(world));
  const everything = [...dump.values()].flat().join("\n");

  // Non-vacuous: the tables that would hold them were read, and hold rows.
  expect(dump.get("api_clients")?.length).toBeGreaterThan(0);
  expect(dump.get("access_tokens")?.length).toBeGreaterThan(0);
  for (const secret of [...secrets, ...tokens, ...presented]) expect(everything).not.toContain(secret);
  for (const marker of ["svcs_", "svct_"]) expect(everything).not.toContain(marker);
  // ... and the digests are what is kept, so the test did look where they live.
  for (const secret of secrets) expect(dump.get("api_clients")!.join("\n")).toContain(digestSecret(secret));
  // Every token row is keyed by the digest of a token this session was issued (revoked ones may be gone), the latest among them.
  const tokenDigests = dump
    .get("access_tokens")!
    .filter((cell) => /^"[0-9a-f]{64}"$/.test(cell))
    .map((cell) => JSON.parse(cell) as string);
  expect(tokenDigests).toContain(digestSecret(tokens.at(-1)!));
  for (const digest of tokenDigests) expect(tokens.map(digestSecret)).toContain(digest);
});
