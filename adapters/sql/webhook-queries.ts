/**
 * Change-notification endpoints in the SQL store (docs/api.md, "Change notifications"):
 * one row of `webhook_endpoints` (migration 0018) per endpoint, which is its outbox too.
 * An endpoint holds at most one event waiting: a later publication folds into it (a later
 * event may replace a pending one). One sender at a time works on an endpoint: it takes
 * the row's lease with one conditional update, which exactly one instance wins on
 * SQLite's one writer and on Postgres's row lock alike, so with many instances each
 * delivery is sent by one of them; a sender that dies leaves the lease to run out, and
 * another sends the event again (at least once).
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import type { ChangedResource, PendingEvent, WebhookEndpoint } from "../../lib/webhooks.ts";
import { instant, instantOrNull } from "./row-mapping.ts";
import type { Tables, WebhookEndpointsTable } from "./tables.ts";
import { sqlConnectionOf, type SqlAdminStore } from "./sql-admin-store.ts";

type Row = { [K in keyof WebhookEndpointsTable]: WebhookEndpointsTable[K] extends infer C ? (C extends { __select__: infer S } ? S : C) : never };

/** An endpoint as the sender needs it: with its secret and the organisation's latest publication. */
export interface DueEndpoint extends WebhookEndpoint {
  secret: string;
  /** The instant of the organisation's latest publication; null when it has none. */
  latest_published: number | null;
}

function toEndpoint(r: Row): WebhookEndpoint {
  const pending: PendingEvent | null =
    r.event_id === null
      ? null
      : {
          id: r.event_id,
          at: instant(r.event_at!),
          changed_since: instant(r.changed_since!),
          resources: JSON.parse(r.resources ?? "[]") as ChangedResource[],
          attempts: r.attempts,
          first_attempt_at: instant(r.first_attempt_at!),
          next_attempt_at: instant(r.next_attempt_at!),
        };
  return {
    id: r.id,
    client_id: r.client_id,
    organisation_id: r.organisation_id,
    url: r.url,
    created_at: instant(r.created_at),
    notified_through: instant(r.notified_through),
    pending,
    failing_since: instantOrNull(r.failing_since),
    last_error: r.last_error,
    last_error_at: instantOrNull(r.last_error_at),
    last_success_at: instantOrNull(r.last_success_at),
  };
}

/** What the sender writes back after working on an endpoint: its event (null: none waiting) and what happened. */
export type EndpointOutcome = Pick<WebhookEndpoint, "notified_through" | "pending" | "failing_since" | "last_error" | "last_error_at" | "last_success_at">;

/** Whether a sender has something to do: an attempt due, or a publication not yet looked at. */
function hasWork(e: DueEndpoint, now: number): boolean {
  return (e.pending !== null && e.pending.next_attempt_at <= now) || (e.latest_published !== null && e.latest_published > e.notified_through);
}

/**
 * The endpoint's credential is not revoked, as the access controls stand (api_clients_now):
 * on SQLite a revocation is written into the tokens file at once and reaches the data file,
 * where its endpoints are deleted (access-controls.ts), only when no import holds it; until
 * then, its endpoints are neither listed nor sent to.
 */
function notRevoked(eb: ExpressionBuilder<Tables & { e: WebhookEndpointsTable }, "e">) {
  return eb.not(
    eb.exists(eb.selectFrom("api_clients_now as c").select("c.client_id").whereRef("c.client_id", "=", "e.client_id").where("c.revoked_at", "is not", null)),
  );
}

export class SqlWebhooks {
  constructor(private readonly db: Kysely<Tables>) {}

  /** Adds an endpoint, notified through the organisation's latest publication: it hears of changes from now on. */
  async add(endpoint: { id: string; client_id: string; organisation_id: string; url: string; secret: string; created_at: number }): Promise<WebhookEndpoint> {
    const row = await this.db
      .selectFrom("publications")
      .select((eb) => eb.fn.max("published_at").as("latest"))
      .where("organisation_id", "=", endpoint.organisation_id)
      .executeTakeFirst();
    const notified = row?.latest == null ? 0 : instant(row.latest);
    await this.db
      .insertInto("webhook_endpoints")
      .values({ ...endpoint, notified_through: notified })
      .execute();
    return (await this.find(endpoint.id))!;
  }

  async find(id: string): Promise<(WebhookEndpoint & { secret: string }) | null> {
    const row = await this.db.selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? { ...toEndpoint(row as Row), secret: row.secret } : null;
  }

  /** The endpoints of these clients (every one when `clientIds` is null), in (created_at, id) order, without secrets. */
  async list(clientIds: readonly string[] | null): Promise<WebhookEndpoint[]> {
    if (clientIds !== null && clientIds.length === 0) return [];
    let query = this.db.selectFrom("webhook_endpoints as e").selectAll("e").where(notRevoked).orderBy("e.created_at").orderBy("e.id");
    if (clientIds !== null) query = query.where("e.client_id", "in", clientIds);
    return (await query.execute()).map((r) => toEndpoint(r as Row));
  }

  /** Removes an endpoint and its waiting event; false when there was none. */
  async remove(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom("webhook_endpoints").where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Endpoints with the organisation's latest publication, those not leased at `now` (or the one `id`). */
  private async withLatest(filter: { now: number } | { id: string }): Promise<DueEndpoint[]> {
    let query = this.db
      .selectFrom("webhook_endpoints as e")
      .selectAll("e")
      .where(notRevoked)
      .select((eb) =>
        eb
          .selectFrom("publications as p")
          .select((p) => p.fn.max("p.published_at").as("latest"))
          .whereRef("p.organisation_id", "=", "e.organisation_id")
          .as("latest_published"),
      );
    if ("id" in filter) query = query.where("e.id", "=", filter.id);
    else query = query.where((eb) => eb.or([eb("e.claimed_until", "is", null), eb("e.claimed_until", "<=", filter.now)]));
    return (await query.execute()).map((r) => ({
      ...toEndpoint(r as Row),
      secret: r.secret,
      latest_published: r.latest_published == null ? null : instant(r.latest_published as number | string),
    }));
  }

  /**
   * The endpoints with work now, not leased by another sender: an event whose attempt is
   * due, or a publication after the one notified.
   */
  async due(now: number): Promise<DueEndpoint[]> {
    return (await this.withLatest({ now })).filter((e) => hasWork(e, now));
  }

  /**
   * Takes the endpoint's lease until `until`, and answers it as it is now (another sender
   * may have done the work since `due` saw it): null when another holds it, it is gone,
   * or it has no work left (then the lease is given back).
   */
  async claim(id: string, now: number, until: number): Promise<DueEndpoint | null> {
    const result = await this.db
      .updateTable("webhook_endpoints")
      .set({ claimed_until: until })
      .where("id", "=", id)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return null;
    const [endpoint] = await this.withLatest({ id });
    if (endpoint && hasWork(endpoint, now)) return endpoint;
    await this.db.updateTable("webhook_endpoints").set({ claimed_until: null }).where("id", "=", id).execute();
    return null;
  }

  /** Writes what the sender did and gives the lease back; nothing when the endpoint was removed meanwhile. */
  async settle(id: string, outcome: EndpointOutcome): Promise<void> {
    const p = outcome.pending;
    await this.db
      .updateTable("webhook_endpoints")
      .set({
        notified_through: outcome.notified_through,
        event_id: p?.id ?? null,
        event_at: p?.at ?? null,
        changed_since: p?.changed_since ?? null,
        resources: p ? JSON.stringify(p.resources) : null,
        attempts: p?.attempts ?? 0,
        first_attempt_at: p?.first_attempt_at ?? null,
        next_attempt_at: p?.next_attempt_at ?? null,
        claimed_until: null,
        failing_since: outcome.failing_since,
        last_error: outcome.last_error,
        last_error_at: outcome.last_error_at,
        last_success_at: outcome.last_success_at,
      })
      .where("id", "=", id)
      .execute();
  }

  /**
   * Whether any booking of the organisation was written by a publication shown at or after
   * `since` (the stamps such publications wrote; a record shows its publication's instant,
   * published-stamps.ts). One seek of leave_bookings_by_update.
   */
  async bookingsChangedSince(organisationId: string, since: number): Promise<boolean> {
    const first = await this.leastPublished(organisationId, "stamp", ">=", since);
    const row = await this.db
      .selectFrom("leave_bookings")
      .select("organisation_id")
      .where("organisation_id", "=", organisationId)
      .where("updated_at", ">=", first === null ? since : Math.min(since, first))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The earliest instant published after `after` for the organisation: where the event's sync starts. */
  firstPublishedAfter(organisationId: string, after: number): Promise<number | null> {
    return this.leastPublished(organisationId, "published_at", ">", after);
  }

  /** The least `column` of the organisation's publications published `op` `at`; null when there is none. */
  private async leastPublished(organisationId: string, column: "stamp" | "published_at", op: ">" | ">=", at: number): Promise<number | null> {
    const row = await this.db
      .selectFrom("publications")
      .select((eb) => eb.fn.min(column).as("least"))
      .where("organisation_id", "=", organisationId)
      .where("published_at", op, at)
      .executeTakeFirst();
    return row?.least == null ? null : instant(row.least as number | string);
  }
}

/** The webhooks of a store opened by openSqlAdminStore. */
export function webhooksOf(store: SqlAdminStore): SqlWebhooks {
  return new SqlWebhooks(sqlConnectionOf(store));
}
