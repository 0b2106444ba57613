/**
 * `verifyWebhook`: checks a change notification as the Standard Webhooks specification
 * says (docs/api.md, "Change notifications"), with no dependency: the signature over
 * `id.timestamp.body` under the endpoint's `whsec_` secret, compared in constant time, and
 * a timestamp within five minutes of now. Any Standard Webhooks library does the same;
 * this spares an integrator one.
 */
import { constantTimeEqual } from "../lib/credentials.ts";
import type { ChangedResource } from "../lib/changed-resources.ts";
import { signedHeaders } from "../lib/webhooks.ts";

/** A verified notification's body. */
export interface WebhookEvent {
  type: "leaveapi.data.changed" | "leaveapi.webhook.test";
  timestamp: string;
  data: { organisation_id: string; resources?: ChangedResource[]; changed_since?: string; endpoint_id?: string };
}

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/** How far `webhook-timestamp` may be from now: the specification's libraries' five minutes. */
const TOLERANCE_SECONDS = 300;

/**
 * The event in `body` (the request's raw text, as received: parse nothing before this),
 * when its headers prove it came from leaveapi with `secret`; else throws
 * `WebhookVerificationError`. `headers` is a `Headers` or a plain object of lower-case names.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string,
  now: number = Date.now(),
): WebhookEvent {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value[0] : (value ?? undefined);
  };
  const id = get("webhook-id");
  const timestamp = get("webhook-timestamp");
  const signatures = get("webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header.");
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError("webhook-timestamp is more than five minutes from now: an old or replayed message.");
  let expected: string;
  try {
    expected = signedHeaders(secret, id, Number(timestamp) * 1000, body)["webhook-signature"]!;
  } catch {
    throw new WebhookVerificationError("The secret is not a whsec_ secret.");
  }
  // Several signatures, space-separated, while a secret is being replaced: one must match.
  if (!signatures.split(" ").some((s) => constantTimeEqual(s, expected)))
    throw new WebhookVerificationError("No signature matches: wrong secret, or the body was changed.");
  return JSON.parse(body) as WebhookEvent;
}
