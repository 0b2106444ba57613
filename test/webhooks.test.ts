/**
 * The pieces of change notifications that need no server (lib/webhooks.ts): the secret's
 * form, a signature the `standardwebhooks` package verifies unedited (and refuses once the
 * body or the secret differs), the thin event body, URL checks, and the retry waits.
 */
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { nodeHmacSha256 } from "../adapters/node-crypto.ts";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../server/openapi.ts";
import { verifyWebhook, WebhookVerificationError } from "../client/index.ts";
import { eventBody, testEventBody, MAX_RETRY_WAIT_MS, mintEventId, mintWebhookSecret, retryWait, signedHeaders, webhookUrlProblem } from "../lib/webhooks.ts";

describe("webhook signing", () => {
  test("a secret is whsec_ and base64 of 32 random bytes, a new one each time", () => {
    const a = mintWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64").length).toBe(32);
    expect(mintWebhookSecret()).not.toBe(a);
    expect(mintEventId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  });

  test("the standardwebhooks package verifies what we sign, with lib's HMAC and node:crypto's alike, and refuses a changed body or secret", () => {
    const secret = mintWebhookSecret();
    const at = Date.now();
    const body = eventBody("0b4c5a4e-1c5e-4a7e-9d65-0d2f3c1a9b10", { at, changed_since: at - 1000, resources: ["employees", "deletions"] });
    for (const headers of [signedHeaders(secret, "msg_1", at, body), signedHeaders(secret, "msg_1", at, body, nodeHmacSha256)]) {
      expect(headers["webhook-timestamp"]).toBe(String(Math.floor(at / 1000)));
      expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(secret).verify(body.replace("employees", "leave-requests"), headers)).toThrow();
      expect(() => new Webhook(mintWebhookSecret()).verify(body, headers)).toThrow();
    }
    expect(JSON.parse(body)).toEqual({
      type: "leaveapi.data.changed",
      timestamp: new Date(at).toISOString(),
      data: {
        organisation_id: "0b4c5a4e-1c5e-4a7e-9d65-0d2f3c1a9b10",
        resources: ["employees", "deletions"],
        changed_since: new Date(at - 1000).toISOString(),
      },
    });
  });

  test("endpoint URLs: http or https, absolute, no credentials", () => {
    expect(webhookUrlProblem("https://hooks.example.com/leave")).toBeNull();
    expect(webhookUrlProblem("http://10.0.0.5:8080/x")).toBeNull();
    expect(webhookUrlProblem("ftp://example.com/")).toContain("must be http or https");
    expect(webhookUrlProblem("/relative")).toContain("not an absolute URL");
    expect(webhookUrlProblem("https://user:pw@example.com/")).toContain("user name or password");
  });

  test("retry waits double from the base, with jitter between half and all of it, at most an hour", () => {
    expect([1, 2, 3].map((n) => retryWait(n, 10_000, () => 1))).toEqual([10_000, 20_000, 40_000]);
    expect([1, 2, 3].map((n) => retryWait(n, 10_000, () => 0))).toEqual([5000, 10_000, 20_000]);
    expect(retryWait(40, 10_000, () => 1)).toBe(MAX_RETRY_WAIT_MS);
  });
});

describe("the OpenAPI webhooks", () => {
  test("the event and the test event are what the document's webhooks say they are", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const doc = openApiDocument as unknown as {
      webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
      components: { schemas: Record<string, object> };
    };
    const schemaOf = (name: string) => {
      const ref = doc.webhooks[name]!.post.requestBody.content["application/json"]!.schema.$ref;
      return ajv.compile({ ...doc.components.schemas[ref.split("/").pop()!]!, $defs: undefined });
    };
    const org = "0b4c5a4e-1c5e-4a7e-9d65-0d2f3c1a9b10";
    const changed = schemaOf("leaveapi.data.changed");
    expect(changed(JSON.parse(eventBody(org, { at: 1_800_000_000_000, changed_since: 1_799_999_999_000, resources: ["leave-requests"] })))).toBe(true);
    expect(changed(JSON.parse(eventBody(org, { at: 1_800_000_000_000, changed_since: 1_799_999_999_000, resources: [] })))).toBe(false);
    expect(schemaOf("leaveapi.webhook.test")(JSON.parse(testEventBody(org, "7d3c6a9e-8f43-4e0b-a9a5-22b7f1c1f0aa", 1_800_000_000_000)))).toBe(true);
  });
});

describe("leaveapi/client verifyWebhook", () => {
  test("accepts what the standardwebhooks package signs, and refuses a changed body, another secret, an old timestamp, missing headers", async () => {
    const secret = mintWebhookSecret();
    const now = Date.now();
    const body = eventBody("0b4c5a4e-1c5e-4a7e-9d65-0d2f3c1a9b10", { at: now, changed_since: now - 5000, resources: ["employees"] });
    const signAt = (at: number) => ({
      "webhook-id": "msg_abc",
      "webhook-timestamp": String(Math.floor(at / 1000)),
      "webhook-signature": new Webhook(secret).sign("msg_abc", new Date(at), body),
    });
    expect((await verifyWebhook(secret, signAt(now), body, now)).data.resources).toEqual(["employees"]);
    expect((await verifyWebhook(secret, new Headers(signAt(now)), body, now)).type).toBe("leaveapi.data.changed");
    // A rotation's two signatures: one matching is enough.
    const two = { ...signAt(now), "webhook-signature": `v1,AAAA ${signAt(now)["webhook-signature"]}` };
    expect((await verifyWebhook(secret, two, body, now)).type).toBe("leaveapi.data.changed");
    const refusals: [Record<string, string>, string, string, string][] = [
      [signAt(now), body.replace("employees", "leave-requests"), secret, "No signature matches"],
      [signAt(now), body, mintWebhookSecret(), "No signature matches"],
      [signAt(now - 600_000), body, secret, "five minutes"],
      [{ "webhook-id": "msg_abc" }, body, secret, "Missing"],
      [signAt(now), body, "not-a-secret", "not a whsec_ secret"],
    ];
    for (const [headers, text, key, message] of refusals) {
      const refused = verifyWebhook(key, headers, text, now);
      await expect(refused).rejects.toThrow(WebhookVerificationError);
      await expect(refused).rejects.toThrow(message);
    }
  });
});
