/**
 * Credentials' restrictions in the SQL store (docs/api.md, "Restricted credentials"): one
 * row per restricted client in `client_restrictions` (migration 0014), its lists as JSON
 * text, kept apart from `api_clients` so that the client's own columns stay as they were.
 */
import type { Kysely } from "kysely";
import { decodeRestrictionLists, encodeRestrictionLists, type CredentialRestriction } from "../../lib/restriction.ts";
import type { ApiClient } from "../../lib/store.ts";
import { instant } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

/** A restriction row's columns as a grant or a client carries them; null when the client has none. */
export function restrictionOfRow(row: {
  departments: string | null;
  calendars: string | null;
  fields: string | null;
  set_at: number | string | null;
}): CredentialRestriction | null {
  if (row.set_at === null) return null;
  return decodeRestrictionLists({ departments: row.departments, calendars: row.calendars, fields: row.fields, set_at: instant(row.set_at) });
}

/** Writes the client's restriction (null: none), replacing the one it had. */
export async function writeRestriction(db: Kysely<Tables>, clientId: string, restriction: CredentialRestriction | null): Promise<void> {
  await db.deleteFrom("client_restrictions").where("client_id", "=", clientId).execute();
  if (restriction === null) return;
  await db
    .insertInto("client_restrictions")
    .values({ client_id: clientId, ...encodeRestrictionLists(restriction), set_at: restriction.set_at })
    .execute();
}

/** The clients with their restrictions, where they have one. */
export async function withRestrictions(db: Kysely<Tables>, clients: ApiClient[]): Promise<ApiClient[]> {
  if (clients.length === 0) return clients;
  const rows = await db.selectFrom("client_restrictions").selectAll().execute();
  const byClient = new Map(rows.map((r) => [r.client_id, restrictionOfRow(r)!]));
  return clients.map((c) => {
    const restriction = byClient.get(c.client_id);
    return restriction ? { ...c, restriction } : c;
  });
}
