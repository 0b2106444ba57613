/**
 * The pieces of change notifications that need no server (lib/webhooks.ts): the secret's
 * form, a signature the `standardwebhooks` package verifies unedited (and refuses once the
 * body or the secret differs), the thin event body, URL checks, and the retry waits.
 */
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { nodeHmacSha256 } from "../adapters/node-crypto.ts";
import { eventBody, MAX_RETRY_WAIT_MS, mintEventId, mintWebhookSecret, retryWait, signedHeaders, webhookUrlProblem } from "../lib/webhooks.ts";

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
