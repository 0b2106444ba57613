/**
 * The token benchmarks' credentials: a migrated store, one organisation with API access
 * on, and `count` clients, answered as the Basic `Authorization` header each sends. The
 * modules come from `root`, so that another checkout's code (`--root`) sets up its own store.
 */
import { join } from "node:path";

/** The little of a SqlAdminStore set-up needs, typed here because its module comes from `root`. */
export interface BenchAdminStore {
  migrate(): Promise<unknown>;
  createOrganisation(org: { id: string; name: string; api_enabled: boolean; created_at: number }): Promise<void>;
  setApiEnabled(id: string, enabled: boolean): Promise<boolean>;
  createClient(client: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function createTokenClients(root: string, store: BenchAdminStore, count: number): Promise<string[]> {
  const { mintClient } = await import(join(root, "lib/credentials.ts"));
  const { ALL_SCOPES } = await import(join(root, "lib/scopes.ts"));
  await store.migrate();
  const organisationId = crypto.randomUUID();
  await store.createOrganisation({ id: organisationId, name: "Token bench", api_enabled: false, created_at: Date.now() });
  await store.setApiEnabled(organisationId, true);
  const authorizations: string[] = [];
  for (let i = 0; i < count; i++) {
    const { client, secret } = mintClient(organisationId, [...ALL_SCOPES], `bench-token-${i}`, Date.now());
    await store.createClient(client);
    authorizations.push(`Basic ${btoa(`${client.client_id}:${secret}`)}`);
  }
  return authorizations;
}
