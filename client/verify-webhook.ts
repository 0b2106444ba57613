/**
 * `verifyWebhook`: checks a change notification as the Standard Webhooks specification
 * says (docs/api.md, "Change notifications"), with no dependency: the signature over
 * `id.timestamp.body` under the endpoint's `whsec_` secret, compared in constant time, and
 * a timestamp within five minutes of now. Any Standard Webhooks library does the same;
 * this spares an integrator one. Web Crypto's HMAC, so it runs unchanged on Node, Bun and
 * Deno (and is asynchronous).
 */
import type { ChangedResource } from "../lib/changed-resources.ts";
import { base64Decode, base64Encode, utf8 } from "../lib/encoding.ts";

/** A verified notification's body. */
export interface WebhookEvent {
  type: "leaveapi.data.changed" | "leaveapi.webhook.test";
  timestamp: string;
  data: { organisation_id: string; resources?: ChangedResource[]; changed_since?: string; endpoint_id?: string };
}

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/** Compares in time that does not depend on where the texts differ. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** How far `webhook-timestamp` may be from now: the specification's libraries' five minutes. */
const TOLERANCE_SECONDS = 300;

/**
 * The event in `body` (the request's raw text, as received: parse nothing before this),
 * when its headers prove it came from leaveapi with `secret`; else throws
 * `WebhookVerificationError`. `headers` is a `Headers` or a plain object of lower-case names.
 */
export async function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string,
  now: number = Date.now(),
): Promise<WebhookEvent> {
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
  const key = secret.startsWith("whsec_") ? base64Decode(secret.slice(6)) : null;
  if (!key || key.length === 0) throw new WebhookVerificationError("The secret is not a whsec_ secret.");
  const hmac = await crypto.subtle.importKey("raw", key as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, utf8(`${id}.${timestamp}.${body}`) as Uint8Array<ArrayBuffer>));
  const expected = `v1,${base64Encode(mac)}`;
  // Several signatures, space-separated, while a secret is being replaced: one must match.
  if (!signatures.split(" ").some((s) => sameText(s, expected)))
    throw new WebhookVerificationError("No signature matches: wrong secret, or the body was changed.");
  return JSON.parse(body) as WebhookEvent;
}
