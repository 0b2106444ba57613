/**
 * The access controls on SQLite: `credentials revoke` and `rotate`, `org disable-api` and
 * `enable-api` (AdminStore's revokeClient, rotateClientSecret, setApiEnabled). They never
 * wait for an import (DECISIONS §2, "The controls never wait"; issue 35): SQLite lets one
 * writer at a time write a file, and an import holds the data file's write lock for as
 * long as it writes. So each control is written into the tokens file
 * (`organisation_access`, `client_access`: sqlite-store.ts), in one transaction with the
 * deletion of the tokens it ends, and takes effect there at once: every query that asks
 * whether a client or an organisation may have tokens reads the views `api_clients_now`
 * and `organisations_now`, in which a control of the tokens file wins over the data file's
 * columns when its version is the higher (each control is one more than the version it
 * replaced; the data file keeps the version it copied, so an older tokens file put back
 * never undoes a newer control). The data file gets a copy (`copyControlsToDataFile`) when its lock is free, so
 * that a backup (VACUUM INTO of the data file) and a data file restored without its
 * tokens file still hold every revocation: right after the control, when the next command
 * opens the store, and when an import ends.
 *
 * On Postgres the controls write the tables themselves (sql-admin-store.ts): no import
 * locks a row of `organisations` or `api_clients` against them (the rows an import
 * inserts take only a key-share lock on their organisation).
 */
import { sql, type Kysely, type Transaction } from "kysely";
import type { AdminStore } from "../../lib/admin-store.ts";
import type { ApiClient } from "../../lib/store.ts";
import { instant, instantOrNull, scopeList } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

export const CLIENT_COLUMNS = ["client_id", "organisation_id", "name", "scopes", "created_at", "revoked_at"] as const;

/**
 * How long a control waits for the data file's lock to copy itself there, in ms: not at
 * all. It has taken effect already, and a lock held is held by an import for long; the
 * copy is made later (`copyControlsToDataFile`'s other callers).
 */
const COPY_WAIT_MS = 0;

/** A write that changes nothing: it takes the tokens file's lock, and only that, before the transaction reads. */
const LOCK_TOKENS_FILE = sql`delete from client_access where 0`;

export function toClient(r: {
  client_id: string;
  organisation_id: string;
  name: string | null;
  scopes: string;
  created_at: number | string;
  revoked_at: number | string | null;
}): ApiClient {
  return {
    client_id: r.client_id,
    organisation_id: r.organisation_id,
    name: r.name,
    scopes: scopeList(r.scopes),
    created_at: instant(r.created_at),
    revoked_at: instantOrNull(r.revoked_at),
  };
}

/** The controls as the SQLite store runs them, in the tokens file. */
export function sqliteAccessControls(ctx: SqlContext): Pick<AdminStore, "setApiEnabled" | "revokeClient" | "rotateClientSecret"> {
  /** `work` in one transaction of the tokens file; then the copy into the data file, if its lock is free. */
  const control = async <T>(work: (trx: Transaction<Tables>) => Promise<T>): Promise<T> => {
    const result = await ctx.tokens(() =>
      ctx.db.transaction().execute(async (trx) => {
        await LOCK_TOKENS_FILE.execute(trx);
        return work(trx);
      }),
    );
    await copyControlsToDataFile(ctx, COPY_WAIT_MS);
    return result;
  };
  const now = () => (ctx.options.now ?? Date.now)();
  return {
    setApiEnabled: (id, enabled) =>
      control(async (trx) => {
        const org = await trx.selectFrom("organisations_now").select("api_version").where("id", "=", id).executeTakeFirst();
        if (!org) return false;
        const setting = { api_enabled: ctx.boolValue(enabled), version: Number(org.api_version ?? 0) + 1, changed_at: now() };
        await trx
          .insertInto("organisation_access")
          .values({ organisation_id: id, ...setting })
          .onConflict((oc) => oc.column("organisation_id").doUpdateSet(setting))
          .execute();
        // Off revokes the live tokens for good, in the same transaction of the same file
        // that saveToken's insert checks access in (token-queries.ts).
        if (!enabled) await trx.deleteFrom("access_tokens").where("organisation_id", "=", id).execute();
        return true;
      }),

    revokeClient: (clientId, at) =>
      control(async (trx) => {
        const before = await trx.selectFrom("api_clients_now").select("client_id").where("client_id", "=", clientId).executeTakeFirst();
        if (!before) return null;
        await trx
          .insertInto("client_access")
          .values({ client_id: clientId, revoked_at: at, secret_version: 0, changed_at: now() })
          .onConflict((oc) =>
            // Revoking again keeps the first revocation.
            oc.column("client_id").doUpdateSet({ revoked_at: sql`coalesce(client_access.revoked_at, excluded.revoked_at)`, changed_at: now() }),
          )
          .execute();
        await trx.deleteFrom("access_tokens").where("client_id", "=", clientId).execute();
        const row = await trx.selectFrom("api_clients_now").select(CLIENT_COLUMNS).where("client_id", "=", clientId).executeTakeFirstOrThrow();
        return toClient(row);
      }),

    rotateClientSecret: (clientId, secretDigest, previousExpiresAt) =>
      control(async (trx) => {
        const row = await trx
          .selectFrom("api_clients_now")
          .select([...CLIENT_COLUMNS, "secret_digest", "secret_version"])
          .where("client_id", "=", clientId)
          .executeTakeFirst();
        if (!row || row.revoked_at !== null) return row ? toClient(row) : null;
        const keepPrevious = previousExpiresAt !== null;
        const secret = {
          secret_digest: secretDigest,
          previous_secret_digest: keepPrevious ? row.secret_digest : null,
          previous_secret_expires_at: keepPrevious ? previousExpiresAt : null,
          secret_version: Number(row.secret_version ?? 0) + 1,
          changed_at: now(),
        };
        await trx
          .insertInto("client_access")
          .values({ client_id: clientId, revoked_at: null, ...secret })
          .onConflict((oc) => oc.column("client_id").doUpdateSet(secret))
          .execute();
        return toClient(row);
      }),
  };
}

/**
 * Copies the controls of the tokens file that the data file does not hold yet into it,
 * waiting at most `waitMs` for its write lock (0: not at all). Takes no lock when there is
 * nothing to copy. `true` when nothing is left to copy; a lock held by an import is
 * `false`, never an error: the controls have taken effect in the tokens file already.
 */
export async function copyControlsToDataFile(ctx: SqlContext, waitMs: number): Promise<boolean> {
  if (ctx.caps.dialect !== "sqlite") return true;
  return ctx.db.connection().execute(async (conn) => {
    const organisations = await conn
      .selectFrom("organisation_access as a")
      .innerJoin("organisations as o", "o.id", "a.organisation_id")
      .select(["a.organisation_id", "a.api_enabled", "a.version"])
      .where(sql<boolean>`a.version > coalesce(o.api_version, 0)`)
      .execute();
    const clients = await conn
      .selectFrom("client_access as a")
      .innerJoin("api_clients as c", "c.client_id", "a.client_id")
      .select(["a.client_id", "a.revoked_at", "a.secret_digest", "a.previous_secret_digest", "a.previous_secret_expires_at", "a.secret_version"])
      .where(sql<boolean>`(a.revoked_at is not null and c.revoked_at is null) or a.secret_version > coalesce(c.secret_version, 0)`)
      .execute();
    if (organisations.length === 0 && clients.length === 0) return true;
    const [timeout] = Object.values((await sql<Record<string, number>>`pragma busy_timeout`.execute(conn)).rows[0] ?? {});
    await sql.raw(`pragma busy_timeout = ${Math.trunc(waitMs)}`).execute(conn);
    try {
      await conn.transaction().execute(async (trx) => {
        for (const o of organisations)
          await trx
            .updateTable("organisations")
            .set({ api_enabled: o.api_enabled, api_version: Number(o.version) })
            .where("id", "=", o.organisation_id)
            .execute();
        for (const c of clients) await copyClient(trx, c);
      });
      return true;
    } catch (error) {
      if (ctx.options.isUnavailable(error)) return false;
      throw error;
    } finally {
      await sql.raw(`pragma busy_timeout = ${Math.trunc(Number(timeout ?? 5000))}`).execute(conn);
    }
  });
}

async function copyClient(
  trx: Kysely<Tables>,
  c: {
    client_id: string;
    revoked_at: number | string | null;
    secret_digest: string | null;
    previous_secret_digest: string | null;
    previous_secret_expires_at: number | string | null;
    secret_version: number | string;
  },
): Promise<void> {
  if (c.revoked_at !== null) {
    await trx
      .updateTable("api_clients")
      .set({ revoked_at: Number(c.revoked_at) })
      .where("client_id", "=", c.client_id)
      .where("revoked_at", "is", null)
      .execute();
    // Revoking a credential removes its change-notification endpoints (docs/api.md), here
    // where the revocation reaches the data file; webhook-queries.ts skips them until then.
    await trx.deleteFrom("webhook_endpoints").where("client_id", "=", c.client_id).execute();
  }
  if (c.secret_digest !== null)
    await trx
      .updateTable("api_clients")
      .set({
        secret_digest: c.secret_digest,
        previous_secret_digest: c.previous_secret_digest,
        previous_secret_expires_at: c.previous_secret_expires_at === null ? null : Number(c.previous_secret_expires_at),
        secret_version: Number(c.secret_version),
      })
      .where("client_id", "=", c.client_id)
      .where(sql<boolean>`coalesce(secret_version, 0) < ${Number(c.secret_version)}`)
      .execute();
}
