/**
 * Seeds the demo organisation: "Demo Ltd" with API access on, its data written through
 * the real import pipeline (so the demo exercises what an operator's import does), and
 * credentials with every scope.
 */
import type { AdminStore } from "../../lib/admin-store.ts";
import { mintClient } from "../../lib/credentials.ts";
import { randomUuid } from "../../lib/ids.ts";
import { ALL_SCOPES, type Scope } from "../../lib/scopes.ts";
import type { Organisation } from "../../lib/store.ts";
import { importRecords } from "../import/import-file.ts";
import { DEFAULT_DEMO_SEED, demoEmployees, demoHolidays, demoLeave } from "./demo-data.ts";

export const DEMO_ORGANISATION_NAME = "Demo Ltd";
/** The label of the credentials the demo mints: `serve --demo` revokes those of earlier starts by it. */
export const DEMO_CLIENT_NAME = "demo";

export interface SeededDemo {
  organisation: Organisation;
  client_id: string;
  client_secret: string;
  scopes: Scope[];
}

/** Numbers records as import lines (1-based), as a JSONL file of them would. */
function numbered(records: readonly unknown[]): { line: number; record: unknown }[] {
  return records.map((record, i) => ({ line: i + 1, record }));
}

/**
 * Creates a new demo organisation with data around `today` (also the instant its
 * records are written at) and mints its credentials; the secret is in the result only. Holidays are imported first so that the `days` the
 * importer computes for each booking leave out the closures. Throws when an import is
 * refused: the generator and the importer disagree, which is a bug, not a user's mistake.
 */
export async function seedDemo(store: AdminStore, today: Date, seed = DEFAULT_DEMO_SEED): Promise<SeededDemo> {
  const now = today.getTime();
  const organisation: Organisation = { id: randomUuid(), name: DEMO_ORGANISATION_NAME, api_enabled: true, created_at: now };
  await store.createOrganisation(organisation);
  const kinds = [
    ["holidays", demoHolidays(today)],
    ["employees", demoEmployees(today, seed)],
    ["leave", demoLeave(today, seed)],
  ] as const;
  for (const [kind, records] of kinds) {
    const label = `demo-${kind}`;
    const result = await importRecords(store, { organisationId: organisation.id, kind, label, records: numbered(records), now });
    if (!result.ok) {
      const shown = result.errors.slice(0, 5).join("\n  ");
      const more = result.errors.length > 5 ? `\n  … and ${result.errors.length - 5} more` : "";
      throw new Error(`the demo ${kind} did not import:\n  ${shown}${more}`);
    }
  }
  const scopes = [...ALL_SCOPES];
  const { client, secret } = mintClient(organisation.id, scopes, DEMO_CLIENT_NAME, now);
  await store.createClient(client);
  return { organisation, client_id: client.client_id, client_secret: secret, scopes };
}

/**
 * The demo organisation `serve --demo` reuses: the most recently created one named
 * "Demo Ltd", or `null` when there is none.
 */
export async function findDemoOrganisation(store: AdminStore): Promise<Organisation | null> {
  const demos = (await store.listOrganisations()).filter((o) => o.name === DEMO_ORGANISATION_NAME);
  return demos.reduce<Organisation | null>((latest, o) => (latest === null || o.created_at > latest.created_at ? o : latest), null);
}
