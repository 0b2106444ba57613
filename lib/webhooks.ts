/**
 * Change notifications (docs/api.md, "Change notifications"): what an endpoint is, the
 * thin event a client is sent, its Standard Webhooks signature, which resources changed
 * for one client (asked of the Store as the client's own sync would ask it, so scopes and
 * restriction follow), and the retry schedule. Runtime-neutral: the sender that posts
 * the events lives in `leaveapi serve` (scripts/serve/webhook-sender.ts).
 */
import { hmacSha256, type HmacSha256 } from "./cursor-codec.ts";
import { formatInstant } from "./dates.ts";
import { base64Decode, base64Encode, utf8 } from "./encoding.ts";
import { cryptoRandomBytes, type RandomBytes } from "./credentials.ts";
import type { ApiClient, Store } from "./store.ts";

import { CHANGED_RESOURCES, DATA_CHANGED, WEBHOOK_TEST, type ChangedResource } from "./changed-resources.ts";

export { CHANGED_RESOURCES, DATA_CHANGED, WEBHOOK_TEST, type ChangedResource };

/** How long an event is retried before the endpoint is marked failing: 24 h. */
export const RETRY_FOR_MS = 24 * 3_600_000;
/** The longest wait between two attempts. */
export const MAX_RETRY_WAIT_MS = 3_600_000;
/** How long a receiver has to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The most of a receiver's answer read (for the last error), whatever it sends. */
export const ANSWER_READ_BYTES = 4096;

/** A credential's endpoint, as `webhooks list` shows it (never its secret). */
export interface WebhookEndpoint {
  id: string;
  client_id: string;
  organisation_id: string;
  url: string;
  created_at: number;
  /** The instant of the latest publication already notified (or found to change nothing for this client). */
  notified_through: number;
  /** The event waiting to be delivered, with its attempts; null when none is. */
  pending: PendingEvent | null;
  /** When the endpoint was marked failing (an event went undelivered for 24 h); null when it is not. */
  failing_since: number | null;
  last_error: string | null;
  last_error_at: number | null;
  last_success_at: number | null;
}

export interface PendingEvent {
  /** The `webhook-id`: the same on every attempt of one event, so a receiver can drop a repeat. */
  id: string;
  /** The event's instant (its `timestamp`). */
  at: number;
  changed_since: number;
  resources: ChangedResource[];
  attempts: number;
  /** When the first attempt was made: retries stop RETRY_FOR_MS after it. */
  first_attempt_at: number;
  next_attempt_at: number;
}

/** A new signing secret: `whsec_` and base64 of 32 random bytes (the Standard Webhooks form). */
export function mintWebhookSecret(random: RandomBytes = cryptoRandomBytes): string {
  return `whsec_${base64Encode(random(32))}`;
}

/** A new event id (Standard Webhooks' `webhook-id`): `msg_` and 16 random bytes. */
export function mintEventId(random: RandomBytes = cryptoRandomBytes): string {
  return `msg_${base64Encode(random(16)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_")}`;
}

/** Whether `text` is a URL an endpoint may have: absolute http or https, with no credentials in it. Else the reason. */
export function webhookUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text.slice(0, 80)}' is not an absolute URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `the URL must be http or https; got '${url.protocol.slice(0, -1)}'`;
  if (url.username || url.password) return "the URL must not carry a user name or password";
  if (text.length > 2048) return "the URL is longer than 2048 characters";
  return null;
}

/** The event's JSON body: thin, no record and no count. */
export function eventBody(organisationId: string, event: Pick<PendingEvent, "at" | "changed_since" | "resources">): string {
  return JSON.stringify({
    type: DATA_CHANGED,
    timestamp: formatInstant(event.at),
    data: { organisation_id: organisationId, resources: event.resources, changed_since: formatInstant(event.changed_since) },
  });
}

/** The test event's JSON body. */
export function testEventBody(organisationId: string, endpointId: string, at: number): string {
  return JSON.stringify({ type: WEBHOOK_TEST, timestamp: formatInstant(at), data: { organisation_id: organisationId, endpoint_id: endpointId } });
}

/**
 * The three Standard Webhooks headers: `webhook-signature` is `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body` keyed by the secret's bytes after `whsec_`.
 */
export function signedHeaders(secret: string, id: string, at: number, body: string, mac: HmacSha256 = hmacSha256): Record<string, string> {
  const key = secret.startsWith("whsec_") ? base64Decode(secret.slice(6)) : null;
  if (!key) throw new Error("A webhook secret is 'whsec_' and base64.");
  const timestamp = String(Math.floor(at / 1000));
  const signature = base64Encode(mac(key, utf8(`${id}.${timestamp}.${body}`)));
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}`, "content-type": "application/json" };
}

/**
 * The wait before attempt `attempts + 1`: `base` doubled per attempt made, at most
 * MAX_RETRY_WAIT_MS, with jitter (between half of it and all of it) so that endpoints
 * failing together do not retry together.
 */
export function retryWait(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_RETRY_WAIT_MS, baseMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(full / 2 + (random() * full) / 2);
}

/**
 * The resources whose sync would find something for this client from `since`: the
 * client's own reads (its scopes, its restriction), each asked for one record. So a
 * client is told only of changes it can read; a restricted one of none outside its
 * selection, and of the deletions feed only when it names someone it could see.
 */
export async function changedResources(
  store: Store,
  client: ApiClient,
  since: number,
  /**
   * Whether any booking changed at all, when the store can tell at once: when none did the
   * leave page (which would scan every booking to find none) is not read. A restricted
   * client is then told of leave when people in its selection changed, since one who
   * entered it brings their bookings (docs/api.md, "Change notifications").
   */
  bookingsChanged?: boolean,
): Promise<ChangedResource[]> {
  const organisationId = client.organisation_id;
  const selection = client.restriction;
  const reads = selection ? store.restricted : undefined;
  if (selection && !reads) return [];
  const employees = client.scopes.includes("employees:read");
  const leave = client.scopes.includes("leave:read");
  const found: ChangedResource[] = [];
  // Someone the client can see changed (for a restricted client: or entered its selection).
  const peopleChanged = async () => {
    const query = { organisationId, filters: { updated_since: since }, limit: 1 };
    return (reads && selection ? await reads.listEmployees(query, selection) : await store.listEmployees(query)).length > 0;
  };
  const people = employees ? await peopleChanged() : undefined;
  if (people) found.push("employees");
  if (leave && bookingsChanged === false) {
    if (selection && (people ?? (await peopleChanged()))) found.push("leave-requests");
  } else if (leave) {
    // Every booking a sync of any range could read: the whole range dates may take.
    const query = { organisationId, filters: { from: "1900-01-01", to: "2199-12-31", updated_since: since }, limit: 1 };
    const page = reads && selection ? await reads.listOverlappingLeave(query, selection) : await store.listOverlappingLeave(query);
    if (page.length > 0) found.push("leave-requests");
  }
  for (const resource of [...(employees ? ["employees" as const] : []), ...(leave ? ["leave-requests" as const] : [])]) {
    const query = { organisationId, resource, deletedSince: since, limit: 1 };
    const page = reads && selection ? await reads.listDeletions(query, selection) : await store.listDeletions(query);
    if (page.length > 0) {
      found.push("deletions");
      break;
    }
  }
  return found;
}
