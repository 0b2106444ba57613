/**
 * A Store over a host application's own tables (host-schema.ts), on bun:sqlite with raw
 * SQL: no Kysely, nothing of leaveapi's but the types and `StoreUnavailableError` that the
 * package exports.
 *
 * It passes `runStoreContract` (test/store-contract-host-example.test.ts); docs/embedding.md
 * walks through it. bun:sqlite is synchronous, so every method does its work in one
 * JavaScript turn and other requests of this process cannot interleave with it; across
 * processes, the read-count-writes (`takeRateSlot`, `takeRateSlotAndSaveToken`) take
 * SQLite's write lock first.
 */
import type { Database } from "bun:sqlite";
import { StoreUnavailableError, type AccessTokenGrant, type ClientCredentials, type RateDecision, type RateSlot, type Scope, type Store } from "leaveapi";
import { hostReads } from "./host-reads.ts";

/** SQLite errors that mean "cannot reach the database now" (answered 503), not a bug (500). */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|NOTADB|FULL)/;

function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNAVAILABLE.test(code);
}

const scopeList = (text: string) => (text === "" ? [] : (text.split(" ") as Scope[]));

/**
 * Stores a token only while its company's API access is on, in one statement: a token
 * whose request raced a switch-off must not be stored after the trigger (host-schema.ts)
 * deleted the others, or switching access on again would revive it.
 */
export function insertToken(db: Database, digest: string, grant: AccessTokenGrant): void {
  db.query(`insert into leaveapi_tokens (digest, client_id, company_no, scopes, expires_ms)
      select ?, ?, company_no, ?, ? from companies where public_id = ? and api_access = 1`).run(
    digest,
    grant.client_id,
    grant.scopes.join(" "),
    grant.expires_at,
    grant.organisation_id,
  );
}

/**
 * The host's Store on its open database. `close()` stops the Store answering (it then
 * throws StoreUnavailableError, a 503) but leaves the database, which the host owns, open.
 */
export function createHostStore(db: Database): Store {
  let closed = false;
  const reads = hostReads(db);

  /** Runs one synchronous piece of work as the Store's promise, errors mapped for the handler. */
  function guard<T>(work: () => T): Promise<T> {
    try {
      if (closed) throw new StoreUnavailableError("The host store has been closed.");
      return Promise.resolve(work());
    } catch (error) {
      if (error instanceof StoreUnavailableError || !isUnavailable(error)) return Promise.reject(error);
      return Promise.reject(new StoreUnavailableError(undefined, { cause: error }));
    }
  }

  /** How long until the `limit`-th newest event in the window leaves it, so one more fits. */
  const refusal = (key: string, now: number, limit: number, windowMs: number): RateDecision => {
    const row = db
      .query<{ at_ms: number }, [string, number, number]>(
        "select at_ms from leaveapi_rate_events where key = ? and at_ms > ? order by at_ms desc limit 1 offset ?",
      )
      .get(key, now - windowMs, limit - 1);
    return { allowed: false, retryAfterMs: Math.max(1, (row?.at_ms ?? now) + windowMs - now) };
  };

  const countInWindow = (key: string, now: number, windowMs: number) =>
    db.query<{ n: number }, [string, number]>("select count(*) as n from leaveapi_rate_events where key = ? and at_ms > ?").get(key, now - windowMs)!.n;

  // BEGIN IMMEDIATE takes the write lock before counting, so another process sharing the
  // file cannot count the same free slot between this count and this insert.
  const takeSlot = db.transaction((key: string, now: number, limit: number, windowMs: number): RateDecision => {
    db.query("delete from leaveapi_rate_events where key = ? and at_ms <= ?").run(key, now - windowMs);
    if (countInWindow(key, now, windowMs) >= limit) return refusal(key, now, limit, windowMs);
    db.query("insert into leaveapi_rate_events (key, at_ms) values (?, ?)").run(key, now);
    return { allowed: true };
  });

  // The slot and the token in one transaction: one commit, and the token only with its slot.
  const takeSlotAndSave = db.transaction((slot: RateSlot, digest: string, grant: AccessTokenGrant): RateDecision => {
    const decision = takeSlot(slot.key, slot.now, slot.limit, slot.windowMs);
    if (decision.allowed) insertToken(db, digest, grant);
    return decision;
  });

  return {
    installationKey: () =>
      guard(() => {
        // Insert-if-absent, then read: every process sharing the file agrees on one key.
        db.query("insert or ignore into leaveapi_settings (name, value) values ('cursor_key', randomblob(32))").run();
        const row = db.query<{ value: Uint8Array }, []>("select value from leaveapi_settings where name = 'cursor_key'").get();
        return new Uint8Array(row!.value);
      }),

    findClient: (clientId) =>
      guard(() => {
        const row = db
          .query<
            {
              client_id: string;
              organisation_id: string;
              label: string | null;
              secret_digest: string;
              scopes: string;
              created_ms: number;
              revoked_ms: number | null;
              api_access: number;
            },
            [string]
          >(`select l.client_id, c.public_id as organisation_id, l.label, l.secret_digest, l.scopes, l.created_ms, l.revoked_ms, c.api_access
            from leaveapi_clients l join companies c on c.company_no = l.company_no where l.client_id = ?`)
          .get(clientId);
        if (!row) return null;
        const client: ClientCredentials = {
          client_id: row.client_id,
          organisation_id: row.organisation_id,
          name: row.label,
          secret_digest: row.secret_digest,
          scopes: scopeList(row.scopes),
          created_at: row.created_ms,
          revoked_at: row.revoked_ms,
          api_enabled: row.api_access === 1,
        };
        return client;
      }),

    saveToken: (digest, grant) => guard(() => insertToken(db, digest, grant)),

    findToken: (digest) =>
      guard(() => {
        // The client and the company's switch are read with the token, so revoking a client
        // or switching the API off takes effect on the very next request.
        const row = db
          .query<{ organisation_id: string; client_id: string; scopes: string; expires_ms: number }, [string]>(
            `select c.public_id as organisation_id, t.client_id, t.scopes, t.expires_ms
            from leaveapi_tokens t
            join leaveapi_clients l on l.client_id = t.client_id
            join companies c on c.company_no = t.company_no
            where t.digest = ? and l.revoked_ms is null and c.api_access = 1`,
          )
          .get(digest);
        if (!row) return null;
        const grant: AccessTokenGrant = {
          organisation_id: row.organisation_id,
          client_id: row.client_id,
          scopes: scopeList(row.scopes),
          expires_at: row.expires_ms,
        };
        return grant;
      }),

    takeRateSlot: (key, now, limit, windowMs) => guard(() => takeSlot.immediate(key, now, limit, windowMs)),

    takeRateSlotAndSaveToken: (slot, digest, grant) => guard(() => takeSlotAndSave.immediate(slot, digest, grant)),

    checkRateLimit: (key, now, limit, windowMs) =>
      guard(() => (countInWindow(key, now, windowMs) < limit ? { allowed: true } : refusal(key, now, limit, windowMs))),

    sweepRateEvents: (now, windowMs) => guard(() => db.query("delete from leaveapi_rate_events where at_ms <= ?").run(now - windowMs).changes),
    // The tombstones are the host's own removed rows (host-reads.ts, listDeletions), which
    // are the host's to purge, not the API's: kept, as lib/store.ts allows.
    sweepDeletions: async () => 0,

    listEmployees: (query) => guard(() => reads.listEmployees(query)),
    findEmployee: (organisationId, id) => guard(() => reads.findEmployee(organisationId, id)),
    listOverlappingLeave: (query) => guard(() => reads.listOverlappingLeave(query)),
    listDeletions: (query) => guard(() => reads.listDeletions(query)),
    listClosureDays: (organisationId, from, to) => guard(() => reads.listClosureDays(organisationId, from, to)),
    observedCalendars: (organisationId, from, to) => guard(() => reads.observedCalendars(organisationId, from, to)),
    listImportedPublicHolidays: (organisationId, calendars, fromYear, toYear) =>
      guard(() => reads.listImportedPublicHolidays(organisationId, calendars, fromYear, toYear)),

    ping: () =>
      guard(() => {
        db.query("select 1").get();
      }),

    close: async () => {
      closed = true;
    },
  };
}
