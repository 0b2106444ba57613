/**
 * The SQL store reuses a live token's grant for a few seconds (findToken): docs/api.md
 * ("Using a token") says a revoked token may be honoured for up to 3 s. What
 * must still hold: revocation and switching API access off through the same store take
 * effect at once; a token saved by another instance works at once (nothing negative is
 * kept); another instance's revocation is seen within 5 s.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/sqlite.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import { digestSecret, mintAccessToken, mintClient } from "../lib/credentials.ts";

const dirs: string[] = [];
const stores: SqlAdminStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Two stores on one SQLite file, like two instances on one database, with a live token. */
async function twoInstances() {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-grants-"));
  dirs.push(dir);
  const file = join(dir, "db.sqlite");
  const a = openSqliteStore({ filename: file });
  await a.migrate();
  const b = openSqliteStore({ filename: file });
  stores.push(a, b);
  const org = { id: crypto.randomUUID(), name: "Grants Ltd", api_enabled: true, created_at: Date.now() };
  await a.createOrganisation(org);
  const { client } = mintClient(org.id, ["employees:read"], "cache", Date.now());
  await a.createClient(client);
  const digest = digestSecret(mintAccessToken());
  const grant = { organisation_id: org.id, client_id: client.client_id, scopes: ["employees:read" as const], expires_at: Date.now() + 3_600_000 };
  await a.saveToken(digest, grant);
  return { a, b, org, client, digest, grant };
}

async function refusedWithin(store: SqlAdminStore, digest: string, ms: number): Promise<number> {
  const started = performance.now();
  while ((await store.findToken(digest)) !== null) {
    if (performance.now() - started > ms) return Number.POSITIVE_INFINITY;
    await Bun.sleep(50);
  }
  return performance.now() - started;
}

test("revoking through the same store refuses its tokens at once", async () => {
  const { a, client, digest, grant } = await twoInstances();
  expect(await a.findToken(digest)).toEqual(grant);
  await a.revokeClient(client.client_id, Date.now());
  expect(await a.findToken(digest)).toBeNull();
});

test("switching API access off through the same store refuses its tokens at once", async () => {
  const { a, org, digest, grant } = await twoInstances();
  expect(await a.findToken(digest)).toEqual(grant);
  await a.setApiEnabled(org.id, false);
  expect(await a.findToken(digest)).toBeNull();
});

test("a token saved by another instance works at once, even after it was asked for unknown", async () => {
  const { a, b, grant } = await twoInstances();
  const fresh = digestSecret(mintAccessToken());
  expect(await a.findToken(fresh)).toBeNull();
  await b.saveToken(fresh, grant);
  expect(await a.findToken(fresh)).toEqual(grant);
});

test("another instance's revocation is seen within 5 s", async () => {
  const { a, b, client, digest, grant } = await twoInstances();
  expect(await a.findToken(digest)).toEqual(grant);
  await b.revokeClient(client.client_id, Date.now());
  expect(await refusedWithin(a, digest, 5000)).toBeLessThanOrEqual(5000);
});
