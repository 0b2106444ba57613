/**
 * The change-notification sender of `leaveapi serve` (docs/api.md, "Change notifications"),
 * off the request path: every second it asks the store which endpoints have work (a
 * publication after the one notified, or a retry due), takes each one's lease (so that of
 * many instances on one Postgres exactly one works on it), decides whether the
 * publications changed what that credential can read (lib/webhooks.ts,
 * `changedResources`), and posts the signed event. A failure is retried with exponential
 * backoff and jitter for 24 h, then the endpoint is marked failing. Everything it knows is
 * in the endpoint's row, so a restart loses nothing: the event is sent again (at least once).
 */
import type { HmacSha256 } from "../../lib/cursor-codec.ts";
import type { ApiClient, Store } from "../../lib/store.ts";
import { CHANGED_RESOURCES, changedResources, eventBody, mintEventId, RETRY_FOR_MS, retryWait, signedHeaders, type PendingEvent } from "../../lib/webhooks.ts";
import type { DueEndpoint, EndpointOutcome, SqlWebhooks } from "../../adapters/sql/webhook-queries.ts";
import type { Logger } from "./logger.ts";
import { postEvent, type DeliveryResult } from "./webhook-delivery.ts";

/** What a delivery attempt came to, as the metrics count it. */
export type DeliveryOutcome = "delivered" | "retrying" | "failing";

export interface WebhookSenderOptions {
  store: Pick<Store, "findClient" | "listEmployees" | "listOverlappingLeave" | "listDeletions" | "restricted">;
  webhooks: SqlWebhooks;
  logger: Pick<Logger, "event">;
  /** Counts each attempt by outcome (metrics.ts). */
  counted?: (outcome: DeliveryOutcome) => void;
  mac: HmacSha256;
  /** How often to look for work; default 1000 ms, so an event leaves within about a second of its publication. */
  everyMs?: number;
  /** The first retry's wait before jitter, doubled each attempt; default 10 s. */
  retryBaseMs?: number;
  /** How long a sender holds an endpoint it works on: more than a delivery's 10 s timeout. Default 60 s. */
  leaseMs?: number;
  /** Endpoints worked on at once by this process, so a few slow receivers do not hold up the rest. Default 16. */
  concurrency?: number;
  until?: Promise<unknown>;
  now?: () => number;
  post?: (url: string, headers: Record<string, string>, body: string) => Promise<DeliveryResult>;
}

export interface WebhookSender {
  /** One look for work now, and the end of the deliveries it starts; never rejects. */
  tick: () => Promise<void>;
  /** Stops looking for work and waits for the deliveries under way. */
  stop: () => Promise<void>;
}

const reasonOf = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

export function startWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { webhooks, logger, store } = options;
  const now = options.now ?? Date.now;
  const everyMs = options.everyMs ?? 1000;
  const retryBaseMs = options.retryBaseMs ?? 10_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const concurrency = options.concurrency ?? 16;
  const post = options.post ?? postEvent;
  const inFlight = new Map<string, Promise<void>>();
  /** A look at a retry's due time, so that short waits are kept to rather than rounded up to the next tick. */
  const wakeAt = (at: number) => {
    if (at - now() >= everyMs) return;
    const timer = setTimeout(() => void look(), Math.max(0, at - now()) + 5);
    timer.unref?.();
  };

  /** The event that a new publication brings for this client, folded into the one waiting (its resources joined, a new id). */
  async function withNewChanges(endpoint: DueEndpoint, client: ApiClient, at: number): Promise<PendingEvent | null> {
    const pending = endpoint.pending;
    if (endpoint.latest_published === null || endpoint.latest_published <= endpoint.notified_through) return pending;
    const since = (await webhooks.firstPublishedAfter(endpoint.organisation_id, endpoint.notified_through)) ?? endpoint.latest_published;
    const bookingsChanged = await webhooks.bookingsChangedSince(endpoint.organisation_id, since);
    const resources = await changedResources(store as Store, client, since, bookingsChanged);
    if (resources.length === 0) return pending;
    if (!pending) return { id: mintEventId(), at, changed_since: since, resources, attempts: 0, first_attempt_at: at, next_attempt_at: at };
    const joined = CHANGED_RESOURCES.filter((r) => resources.includes(r) || pending.resources.includes(r));
    return { ...pending, id: mintEventId(), at, changed_since: Math.min(pending.changed_since, since), resources: joined };
  }

  async function deliver(
    endpoint: DueEndpoint,
    event: PendingEvent,
    at: number,
  ): Promise<Pick<EndpointOutcome, "pending" | "failing_since" | "last_error" | "last_error_at" | "last_success_at">> {
    const body = eventBody(endpoint.organisation_id, event);
    const result = await post(endpoint.url, signedHeaders(endpoint.secret, event.id, now(), body, options.mac), body);
    const attempt = event.attempts + 1;
    const details = {
      endpoint_id: endpoint.id,
      client_id: endpoint.client_id,
      webhook_id: event.id,
      attempt,
      status: result.status ?? 0,
      duration_ms: result.ms,
    };
    if (result.ok) {
      options.counted?.("delivered");
      logger.event("info", "webhook_delivered", `delivered ${event.id} to endpoint ${endpoint.id}: HTTP ${result.status}`, details);
      return { pending: null, failing_since: null, last_error: endpoint.last_error, last_error_at: endpoint.last_error_at, last_success_at: now() };
    }
    const error = result.error ?? "failed";
    if (at - event.first_attempt_at >= RETRY_FOR_MS) {
      options.counted?.("failing");
      logger.event("warn", "webhook_failing", `endpoint ${endpoint.id} marked failing: ${event.id} undelivered for 24 h (${error})`, details);
      return { pending: null, failing_since: at, last_error: error, last_error_at: at, last_success_at: endpoint.last_success_at };
    }
    const next = at + retryWait(attempt, retryBaseMs);
    wakeAt(next);
    options.counted?.("retrying");
    logger.event(
      "warn",
      "webhook_retrying",
      `delivering ${event.id} to endpoint ${endpoint.id} failed (${error}); retrying in ${Math.round((next - at) / 1000)} s`,
      {
        ...details,
        retry_in_ms: next - at,
      },
    );
    return {
      pending: { ...event, attempts: attempt, next_attempt_at: next },
      failing_since: endpoint.failing_since,
      last_error: error,
      last_error_at: at,
      last_success_at: endpoint.last_success_at,
    };
  }

  async function work(seen: DueEndpoint): Promise<void> {
    const at = now();
    const endpoint = await webhooks.claim(seen.id, at, at + leaseMs);
    if (!endpoint) return;
    const client = await store.findClient(endpoint.client_id);
    if (!client || client.revoked_at !== null) {
      // Revoking removes the endpoints in the same transaction; one seen before that is removed here.
      await webhooks.remove(endpoint.id);
      return;
    }
    const notified_through = Math.max(endpoint.notified_through, endpoint.latest_published ?? 0);
    const kept = {
      failing_since: endpoint.failing_since,
      last_error: endpoint.last_error,
      last_error_at: endpoint.last_error_at,
      last_success_at: endpoint.last_success_at,
    };
    // With its organisation's API access off the client can read nothing: nothing to tell it.
    const event = client.api_enabled ? await withNewChanges(endpoint, client, at) : null;
    if (!event || event.next_attempt_at > at) return webhooks.settle(endpoint.id, { notified_through, pending: event, ...kept });
    await webhooks.settle(endpoint.id, { notified_through, ...(await deliver(endpoint, event, at)) });
  }

  const lookOnce = async () => {
    try {
      const due = await webhooks.due(now());
      for (const endpoint of due) {
        if (inFlight.has(endpoint.id) || inFlight.size >= concurrency) continue;
        const job = work(endpoint)
          .catch((error) => logger.event("warn", "webhook_send_failed", `working on endpoint ${endpoint.id} failed (${reasonOf(error)}); trying again`))
          .finally(() => inFlight.delete(endpoint.id));
        inFlight.set(endpoint.id, job);
      }
    } catch (error) {
      logger.event("warn", "webhook_send_failed", `looking for notifications to send failed (${reasonOf(error)}); trying again in ${everyMs} ms`);
    }
  };
  let stopped = false;
  let looking: Promise<void> | undefined;
  const look = () => {
    if (stopped) return Promise.resolve();
    looking ??= lookOnce().finally(() => {
      looking = undefined;
    });
    return looking;
  };
  const timer = setInterval(() => void look(), everyMs);
  timer.unref?.();
  const stop = async () => {
    stopped = true;
    clearInterval(timer);
    await looking;
    await Promise.all(inFlight.values());
  };
  options.until?.then(stop, stop);
  return {
    async tick() {
      await look();
      await Promise.all(inFlight.values());
    },
    stop,
  };
}
