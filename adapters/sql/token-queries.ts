/**
 * Clients and tokens in the SQL store, on the primary (they must be fresh). Reusing a
 * live token's grant for a few seconds is not done here but in front of any store
 * (lib/token-grant-cache.ts).
 */
import { sql } from "kysely";
import { TOKEN_LIFETIME_SECONDS } from "../../lib/credentials.ts";
import type { AccessTokenGrant, ClientCredentials, Store } from "../../lib/store.ts";
import { defineQuery, rawQuery } from "./compiled-queries.ts";
import { bool, instant, scopeList } from "./row-mapping.ts";
import { takeSlot } from "./rate-limit-queries.ts";
import type { CredentialRestriction } from "../../lib/restriction.ts";
import { restrictionOfRow } from "./client-restrictions.ts";
import type { SqlContext } from "./sql-context.ts";

/** `{ restriction }` when the row's client has one, else nothing: the shape of an unrestricted client. */
function restrictionOf(row: Parameters<typeof restrictionOfRow>[0]): { restriction?: CredentialRestriction } {
  const restriction = restrictionOfRow(row);
  return restriction ? { restriction } : {};
}

/** Expired tokens are swept after every this many issued, rather than on every issue. */
const SWEEP_EVERY = 256;

const findClientQuery = defineQuery<{ clientId: string }>()((s, db) =>
  db
    .selectFrom("api_clients_now as c")
    .innerJoin("organisations_now as o", "o.id", "c.organisation_id")
    .leftJoin("client_restrictions as r", "r.client_id", "c.client_id")
    .select([
      "c.client_id",
      "c.organisation_id",
      "c.name",
      "c.secret_digest",
      "c.scopes",
      "c.created_at",
      "c.revoked_at",
      "c.previous_secret_digest",
      "c.previous_secret_expires_at",
      "o.api_enabled",
      "r.departments",
      "r.calendars",
      "r.fields",
      "r.set_at",
    ])
    .where("c.client_id", "=", s.clientId),
);

interface SaveTokenValues {
  digest: string;
  clientId: string;
  scopes: string;
  expiresAt: number;
  organisationId: string;
  enabled: boolean | number;
}

/**
 * One statement inserts only while API access is on. On Postgres, FOR SHARE makes a
 * switch-off in flight wait for this insert (its delete then sees the token) or this
 * insert wait for the switch-off (and then find access off). SQLite runs one writer at a
 * time per file, and the switch-off writes the tokens file this insert writes
 * (access-controls.ts), reading access through its view of both files. The casts type
 * the selected parameters for Postgres.
 */
const saveTokenQuery = defineQuery<SaveTokenValues>()((s, db, caps) =>
  rawQuery(
    sql`
      insert into access_tokens (digest, client_id, organisation_id, scopes, expires_at)
      select cast(${s.digest} as text), cast(${s.clientId} as text), id,
        cast(${s.scopes} as text), cast(${s.expiresAt} as bigint)
      from ${caps.advisoryLocks ? sql`organisations` : sql`organisations_now`}
      where id = ${s.organisationId} and api_enabled = ${s.enabled}${caps.advisoryLocks ? sql` for share` : sql``}`,
    db,
  ),
);

const findTokenQuery = defineQuery<{ digest: string }>()((s, db) =>
  db
    .selectFrom("access_tokens as t")
    .innerJoin("api_clients_now as c", "c.client_id", "t.client_id")
    .innerJoin("organisations_now as o", "o.id", "t.organisation_id")
    .leftJoin("client_restrictions as r", "r.client_id", "t.client_id")
    .select([
      "t.organisation_id",
      "t.client_id",
      "t.scopes",
      "t.expires_at",
      "c.revoked_at",
      "o.api_enabled",
      "r.departments",
      "r.calendars",
      "r.fields",
      "r.set_at",
    ])
    .where("t.digest", "=", s.digest),
);

/** A token's insert as saveTokenQuery binds it. */
function saveTokenValues(ctx: SqlContext, digest: string, grant: AccessTokenGrant): SaveTokenValues {
  return {
    digest,
    clientId: grant.client_id,
    scopes: grant.scopes.join(" "),
    expiresAt: grant.expires_at,
    organisationId: grant.organisation_id,
    enabled: ctx.boolValue(true),
  };
}

/** A client's last use is written at most this often; `credentials list` shows it to the day. */
export const CLIENT_USE_EVERY_MS = 60_000;

export function tokenQueries(ctx: SqlContext): Pick<Store, "findClient" | "saveToken" | "takeRateSlotAndSaveToken" | "findToken"> {
  let tokensSaved = 0;
  /** By client, the use this process wrote last. */
  const written = new Map<string, number>();
  /**
   * Notes that the client obtained a token (at the instant its grant was issued), once a
   * minute at most. Best effort: a failure here must not fail the token request it follows.
   */
  const noteUse = async (grant: AccessTokenGrant): Promise<void> => {
    const at = grant.expires_at - TOKEN_LIFETIME_SECONDS * 1000;
    const last = written.get(grant.client_id);
    if (last !== undefined && at - last < CLIENT_USE_EVERY_MS) return;
    if (written.size >= 10_000) written.clear();
    written.set(grant.client_id, at);
    await ctx.db
      .insertInto("client_usage")
      .values({ client_id: grant.client_id, last_used_at: at })
      .onConflict((oc) => oc.column("client_id").doUpdateSet({ last_used_at: at }).where("client_usage.last_used_at", "<", at))
      .execute()
      .catch(() => written.delete(grant.client_id));
  };
  /** Expired tokens are useless; sweep them now and then rather than on every issue. */
  const sweepNowAndThen = async (grant: AccessTokenGrant): Promise<void> => {
    if (++tokensSaved % SWEEP_EVERY === 0) {
      await ctx.db
        .deleteFrom("access_tokens")
        .where("expires_at", "<", grant.expires_at - 2 * 3600_000)
        .execute();
    }
  };
  return {
    findClient: (clientId) =>
      ctx.tokens(async (): Promise<ClientCredentials | null> => {
        const [row] = await ctx.primary.rows(findClientQuery, { clientId });
        if (!row) return null;
        return {
          client_id: row.client_id,
          organisation_id: row.organisation_id,
          name: row.name,
          secret_digest: row.secret_digest,
          scopes: scopeList(row.scopes),
          created_at: instant(row.created_at),
          revoked_at: row.revoked_at === null ? null : instant(row.revoked_at),
          api_enabled: bool(row.api_enabled),
          // Absent rather than null when there is none: the shape a store that never rotates answers.
          ...(row.previous_secret_digest !== null && row.previous_secret_expires_at !== null
            ? { previous_secret: { digest: row.previous_secret_digest, expires_at: instant(row.previous_secret_expires_at) } }
            : {}),
          ...restrictionOf(row),
        };
      }),

    saveToken: (digest, grant) =>
      ctx.tokens(async () => {
        await ctx.primary.rows(saveTokenQuery, saveTokenValues(ctx, digest, grant));
        await sweepNowAndThen(grant);
        await noteUse(grant);
      }),

    takeRateSlotAndSaveToken: (slot, digest, grant) =>
      ctx.tokens(async () => {
        const decision = await takeSlot(ctx, slot, { query: saveTokenQuery, values: saveTokenValues(ctx, digest, grant) });
        if (decision.allowed) await sweepNowAndThen(grant).then(() => noteUse(grant));
        return decision;
      }),

    /** The grant as stored, asked of the database every time. */
    findToken: (digest) =>
      ctx.tokens(async (): Promise<AccessTokenGrant | null> => {
        const [row] = await ctx.primary.rows(findTokenQuery, { digest });
        if (!row || row.revoked_at !== null || !bool(row.api_enabled)) return null;
        return {
          organisation_id: row.organisation_id,
          client_id: row.client_id,
          scopes: scopeList(row.scopes),
          expires_at: instant(row.expires_at),
          ...restrictionOf(row),
        };
      }),
  };
}
