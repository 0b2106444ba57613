/**
 * authenticateBearer (lib/authenticate-bearer.ts) called directly on the memory store:
 * which tokens are live at `now` and hold the scope. Reading the Authorization header and
 * the WWW-Authenticate challenges are bearer-auth.test.ts's.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { authenticateBearer } from "../lib/authenticate-bearer.ts";
import { digestSecret, mintAccessToken, mintClient } from "../lib/credentials.ts";
import { randomUuid } from "../lib/ids.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";

const NOW = Date.parse("2026-03-01T09:30:00Z");

async function storeWithToken() {
  const store = createMemoryStore();
  const organisationId = randomUuid();
  await store.createOrganisation({ id: organisationId, name: "Acme Ltd", api_enabled: true, created_at: NOW });
  const { client } = mintClient(organisationId, ["leave:read"], "payroll", NOW);
  await store.createClient(client);
  const grant: AccessTokenGrant = { organisation_id: organisationId, client_id: client.client_id, scopes: ["leave:read"], expires_at: NOW + 1000 };
  const token = mintAccessToken();
  await store.saveToken(digestSecret(token), grant);
  return { store, organisationId, grant, token };
}

describe("authenticateBearer", () => {
  test("a live token with the scope gives its grant", async () => {
    const { store, grant, token } = await storeWithToken();
    expect(await authenticateBearer(store, token, "leave:read", NOW)).toEqual(grant);
  });

  test("expired at exactly expires_at → 401 invalid_token", async () => {
    const { store, token } = await storeWithToken();
    expect(await authenticateBearer(store, token, "leave:read", NOW + 999)).toBeDefined();
    await expect(authenticateBearer(store, token, "leave:read", NOW + 1000)).rejects.toMatchObject({ status: 401, code: "invalid_token" });
  });

  test("an unknown token, or one whose client was revoked → 401 invalid_token", async () => {
    const { store, grant, token } = await storeWithToken();
    await expect(authenticateBearer(store, mintAccessToken(), "leave:read", NOW)).rejects.toMatchObject({ code: "invalid_token" });
    await store.revokeClient(grant.client_id, NOW);
    await expect(authenticateBearer(store, token, "leave:read", NOW)).rejects.toMatchObject({ code: "invalid_token" });
  });

  test("a string not shaped like our tokens is refused without a store lookup", async () => {
    const lookups: string[] = [];
    const store: Pick<Store, "findToken"> = {
      findToken: async (digest) => {
        lookups.push(digest);
        return null;
      },
    };
    for (const token of ["abc", `svcs_${"a".repeat(43)}`, `svct_${"a".repeat(42)}`]) {
      await expect(authenticateBearer(store, token, "leave:read", NOW)).rejects.toMatchObject({ status: 401, code: "invalid_token" });
    }
    expect(lookups).toEqual([]);
  });

  test("a live token without the scope → 403 insufficient_scope naming it, with no HTTP header", async () => {
    const { store, token } = await storeWithToken();
    const error = await authenticateBearer(store, token, "employees:read", NOW).catch((e) => e);
    expect([error.status, error.code, error.headers]).toEqual([403, "insufficient_scope", {}]);
    expect(error.message).toContain("'employees:read'");
  });
});
