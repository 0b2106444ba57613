/**
 * The OpenAPI `webhooks` (3.1): what `leaveapi serve` posts to a credential's endpoint
 * (docs/api.md, "Change notifications"), signed as the Standard Webhooks specification says.
 */
import { DATA_CHANGED, WEBHOOK_TEST } from "../lib/changed-resources.ts";

const signatureHeaders = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "The event's id: the same on every attempt of one event, so a receiver can drop a repeat.",
    schema: { type: "string", pattern: "^msg_[A-Za-z0-9_-]+$" },
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "When this attempt was signed, in whole seconds since 1970; refuse one far from your clock (the Standard Webhooks libraries allow 5 minutes).",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed by the base64-decoded part of the endpoint's secret after `whsec_`. Verify it with a Standard Webhooks library before trusting the body.",
    schema: { type: "string", pattern: "^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$" },
  },
] as const;

const answers = {
  "2XX": { description: "Received. Anything else, no answer within 10 s, or a redirect, is retried with growing waits for 24 h." },
} as const;

function webhook(operationId: string, summary: string, description: string, schema: string) {
  return {
    post: {
      operationId,
      summary,
      description,
      parameters: signatureHeaders,
      requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } } },
      responses: answers,
      // Not OAuth: the receiver checks the signature headers above.
      security: [],
    },
  } as const;
}

export const webhooks = {
  [DATA_CHANGED]: webhook(
    "dataChanged",
    "Something the credential can read changed",
    "Sent after an import that changed what the endpoint's credential can read (its scopes and restriction), at least once: run your sync from `data.changed_since`. A later event may replace one not yet delivered.",
    "ChangeNotification",
  ),
  [WEBHOOK_TEST]: webhook("webhookTest", "A test of the receiver", "Sent by `leaveapi webhooks test`; nothing changed.", "WebhookTest"),
} as const;
