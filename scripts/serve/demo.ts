/** `serve --demo`: working credentials for a newcomer, printed on stderr (docs/cli.md, "serve"). */
import { mintClient } from "../../lib/credentials.ts";
import { ALL_SCOPES } from "../../lib/scopes.ts";
import type { SqlAdminStore } from "../../adapters/sql/sql-admin-store.ts";
import type { CommandContext } from "../cli-kit.ts";

/**
 * Seeds the demo organisation into an empty store, or mints fresh demo credentials (old
 * secrets cannot be shown again) and revokes those of earlier starts.
 */
export async function prepareDemo(ctx: CommandContext, store: SqlAdminStore, baseUrl: string): Promise<void> {
  // Loaded here, not with `serve`: the demo's data computes holidays, and a server without
  // --demo should not hold the holiday dataset in the thread that answers requests.
  const { DEMO_CLIENT_NAME, findDemoOrganisation, seedDemo } = await import("../demo/seed-demo.ts");
  let credentials: { organisation: string; clientId: string; clientSecret: string };
  if ((await store.listOrganisations()).length === 0) {
    ctx.io.err("seeding the demo organisation (first start only)…");
    const seeded = await seedDemo(store, new Date());
    credentials = { organisation: seeded.organisation.name, clientId: seeded.client_id, clientSecret: seeded.client_secret };
  } else {
    const existing = await findDemoOrganisation(store);
    if (!existing) {
      ctx.io.err("--demo: the store already holds organisations and no demo organisation; serving it as it is");
      return;
    }
    // Each start mints fresh credentials (a secret cannot be shown twice) and revokes the
    // ones earlier starts minted, so that restarts do not leave live demo clients behind.
    const now = Date.now();
    const earlier = (await store.listClients(existing.id)).filter((c) => c.name === DEMO_CLIENT_NAME && c.revoked_at === null);
    for (const c of earlier) await store.revokeClient(c.client_id, now);
    if (earlier.length > 0)
      ctx.io.err(`--demo: revoked the ${earlier.length === 1 ? "demo credentials" : `${earlier.length} demo credentials`} of earlier starts`);
    const { client, secret } = mintClient(existing.id, [...ALL_SCOPES], DEMO_CLIENT_NAME, now);
    await store.createClient(client);
    credentials = { organisation: existing.name, clientId: client.client_id, clientSecret: secret };
  }
  ctx.io.err(
    [
      "",
      `demo organisation: ${credentials.organisation}`,
      `client_id:         ${credentials.clientId}`,
      `client_secret:     ${credentials.clientSecret}`,
      "",
      "get a token:",
      `  curl -s -u '${credentials.clientId}:${credentials.clientSecret}' -d grant_type=client_credentials ${baseUrl}/v1/oauth/token`,
      "",
    ].join("\n"),
  );
}
