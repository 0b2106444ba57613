/**
 * The Store contract's tokens and rate limits: the installation key, clients, tokens,
 * the API switch and the rate-limit windows.
 */
import type { ClientCredentials, RateDecision } from "../lib/store.ts";
import { type ContractFixture, T0 } from "./contract-fixture.ts";
import { type ContractKit, I } from "./contract-kit.ts";

export function tokenContract(kit: ContractKit): void {
  const { describe, test, expect, withStore } = kit;
  describe("installationKey", () => {
    test(
      "is at least 32 bytes and the same on every call, concurrent ones included",
      withStore(async (store) => {
        const keys = await Promise.all([store.installationKey(), store.installationKey(), store.installationKey()]);
        const again = await store.installationKey();
        expect(again instanceof Uint8Array).toBe(true);
        expect(again.length).toBeGreaterThanOrEqual(32);
        for (const key of keys) expect([...key]).toEqual([...again]);
      }),
    );
  });

  describe("findClient", () => {
    const credentials = (fixture: ContractFixture, clientId: string, api_enabled: boolean): ClientCredentials => ({
      ...fixture.clients.find((c) => c.client_id === clientId)!,
      api_enabled,
    });

    test(
      "returns a live client with its secret digest and its organisation's switch",
      withStore(async (store, fixture) => {
        expect(await store.findClient(I.clients.live)).toEqual(credentials(fixture, I.clients.live, true));
      }),
    );

    test(
      "returns a revoked client, with revoked_at",
      withStore(async (store, fixture) => {
        const client = await store.findClient(I.clients.revoked);
        expect(client).toEqual(credentials(fixture, I.clients.revoked, true));
        expect(client?.revoked_at).toBe(T0 + 86_400_000);
      }),
    );

    test(
      "says when the organisation's API access is off",
      withStore(async (store, fixture) => {
        expect(await store.findClient(I.clients.apiOff)).toEqual(credentials(fixture, I.clients.apiOff, false));
      }),
    );

    test(
      "returns null for an unknown client",
      withStore(async (store) => {
        expect(await store.findClient("svcc_ffffffffffffffffffffffff")).toBeNull();
        expect(await store.findClient("")).toBeNull();
      }),
    );
  });

  describe("saveToken and findToken", () => {
    const grantOf = (fixture: ContractFixture, digest: string) => fixture.tokens.find((t) => t.digest === digest)!.grant;

    test(
      "finds a live token's grant",
      withStore(async (store, fixture) => {
        expect(await store.findToken(I.tokens.live)).toEqual(grantOf(fixture, I.tokens.live));
      }),
    );

    test(
      "leaves expiry to the caller: an expired token of a live client comes back with its expires_at",
      withStore(async (store) => {
        expect(await store.findToken(I.tokens.expired)).toMatchObject({ client_id: I.clients.live, expires_at: T0 - 1 });
      }),
    );

    test(
      "returns null for an unknown token, a revoked client's and one whose organisation's API is off",
      withStore(async (store) => {
        expect(await store.findToken("f".repeat(64))).toBeNull();
        expect(await store.findToken(I.tokens.revoked)).toBeNull();
        expect(await store.findToken(I.tokens.apiOff)).toBeNull();
      }),
    );

    test(
      "finds a newly saved token, and the others still",
      withStore(async (store, fixture) => {
        const grant = { organisation_id: I.orgA, client_id: I.clients.live, scopes: ["holidays:read" as const], expires_at: T0 + 3_600_000 };
        await store.saveToken("e".repeat(64), grant);
        expect(await store.findToken("e".repeat(64))).toEqual(grant);
        expect(await store.findToken(I.tokens.live)).toEqual(grantOf(fixture, I.tokens.live));
      }),
    );
  });

  describe("switching API access off", () => {
    const grant = (expires_at = T0 + 3_600_000) => ({
      organisation_id: I.orgA,
      client_id: I.clients.live,
      scopes: ["leave:read" as const],
      expires_at,
    });

    test(
      "forgets the organisation's tokens for good: switching it on again brings none back",
      withStore(async (store, fixture, under) => {
        await store.saveToken("e".repeat(64), grant());
        expect(await store.findToken(I.tokens.live)).toEqual(fixture.tokens.find((t) => t.digest === I.tokens.live)!.grant);
        await under.setApiEnabled(I.orgA, false);
        await under.setApiEnabled(I.orgA, true);
        for (const digest of [I.tokens.live, I.tokens.expired, "e".repeat(64)]) expect(await store.findToken(digest)).toBeNull();
        // New tokens work again.
        await store.saveToken("f".repeat(64), grant());
        expect(await store.findToken("f".repeat(64))).toEqual(grant());
      }),
    );

    test(
      "saveToken keeps nothing while access is off, so a token that raced the switch stays dead",
      withStore(async (store, _fixture, under) => {
        await under.setApiEnabled(I.orgA, false);
        await store.saveToken("e".repeat(64), grant());
        await store.saveToken("f".repeat(64), { ...grant(), organisation_id: I.orgB, client_id: I.clients.apiOff });
        await under.setApiEnabled(I.orgA, true);
        await under.setApiEnabled(I.orgB, true);
        for (const digest of ["e".repeat(64), "f".repeat(64), I.tokens.apiOff]) expect(await store.findToken(digest)).toBeNull();
      }),
    );

    test(
      "leaves other organisations' tokens alone",
      withStore(async (store, _fixture, under) => {
        await under.setApiEnabled(I.orgB, true);
        const orgB = { ...grant(), organisation_id: I.orgB, client_id: I.clients.apiOff };
        await store.saveToken("f".repeat(64), orgB);
        await under.setApiEnabled(I.orgA, false);
        expect(await store.findToken("f".repeat(64))).toEqual(orgB);
      }),
    );
  });

  describe("takeRateSlot and checkRateLimit", () => {
    const allowed: RateDecision = { allowed: true };
    const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });

    test(
      "allows exactly `limit` events, then refuses until the oldest leaves the window",
      withStore(async (store) => {
        for (const t of [100, 200, 300]) expect(await store.takeRateSlot("k", T0 + t, 3, 1000)).toEqual(allowed);
        expect(await store.takeRateSlot("k", T0 + 400, 3, 1000)).toEqual(refused(700));
        expect(await store.takeRateSlot("k", T0 + 1099, 3, 1000)).toEqual(refused(1));
        // The window is (now − windowMs, now]: at 1100 the event at 100 has left it.
        expect(await store.takeRateSlot("k", T0 + 1100, 3, 1000)).toEqual(allowed);
        expect(await store.takeRateSlot("k", T0 + 1150, 3, 1000)).toEqual(refused(50));
      }),
    );

    test(
      "records nothing when it refuses",
      withStore(async (store) => {
        for (const t of [0, 10]) expect(await store.takeRateSlot("k", T0 + t, 2, 1000)).toEqual(allowed);
        for (const t of [20, 30, 40]) expect(await store.takeRateSlot("k", T0 + t, 2, 1000)).toEqual(refused(1000 - t));
        // Had the refusals counted, the window (0, 1000] would still be full.
        expect(await store.takeRateSlot("k", T0 + 1000, 2, 1000)).toEqual(allowed);
      }),
    );

    test(
      "keeps keys apart",
      withStore(async (store) => {
        expect(await store.takeRateSlot("a", T0, 1, 1000)).toEqual(allowed);
        expect(await store.takeRateSlot("a", T0, 1, 1000)).toEqual(refused(1000));
        expect(await store.takeRateSlot("b", T0, 1, 1000)).toEqual(allowed);
        expect(await store.checkRateLimit("c", T0, 1, 1000)).toEqual(allowed);
      }),
    );

    test(
      "never lets concurrent callers exceed the limit",
      withStore(async (store) => {
        const decisions = await Promise.all(Array.from({ length: 20 }, () => store.takeRateSlot("burst", T0, 10, 60_000)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        expect(decisions.filter((d) => !d.allowed)).toEqual(Array.from({ length: 10 }, () => refused(60_000)));
      }),
    );

    test(
      "checkRateLimit looks without recording, and answers as takeRateSlot would",
      withStore(async (store) => {
        for (let i = 0; i < 5; i++) expect(await store.checkRateLimit("k", T0, 2, 1000)).toEqual(allowed);
        expect(await store.takeRateSlot("k", T0, 2, 1000)).toEqual(allowed);
        expect(await store.takeRateSlot("k", T0 + 100, 2, 1000)).toEqual(allowed);
        expect(await store.checkRateLimit("k", T0 + 300, 2, 1000)).toEqual(refused(700));
        expect(await store.takeRateSlot("k", T0 + 300, 2, 1000)).toEqual(refused(700));
        expect(await store.checkRateLimit("k", T0 + 1000, 2, 1000)).toEqual(allowed);
      }),
    );
  });

  describe("takeRateSlotAndSaveToken", () => {
    const allowed: RateDecision = { allowed: true };
    const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });
    const grant = { organisation_id: I.orgA, client_id: I.clients.live, scopes: ["leave:read" as const], expires_at: T0 + 3_600_000 };
    const slot = (at: number, limit: number) => ({ key: "token-requests:k", now: T0 + at, limit, windowMs: 1000 });
    const digest = (n: number) => n.toString(16).padStart(64, "d");

    test(
      "takes the slot and saves the token; refused, it records nothing and saves nothing",
      withStore(async (store) => {
        expect(await store.takeRateSlotAndSaveToken(slot(0, 2), digest(1), grant)).toEqual(allowed);
        expect(await store.takeRateSlotAndSaveToken(slot(100, 2), digest(2), grant)).toEqual(allowed);
        expect(await store.takeRateSlotAndSaveToken(slot(300, 2), digest(3), grant)).toEqual(refused(700));
        expect(await store.findToken(digest(1))).toEqual(grant);
        expect(await store.findToken(digest(2))).toEqual(grant);
        expect(await store.findToken(digest(3))).toBeNull();
        // Had the refusal counted, the window (0, 1000] would still be full.
        expect(await store.takeRateSlotAndSaveToken(slot(1000, 2), digest(4), grant)).toEqual(allowed);
        expect(await store.findToken(digest(4))).toEqual(grant);
      }),
    );

    test(
      "counts under the same key as takeRateSlot and checkRateLimit",
      withStore(async (store) => {
        const { key, windowMs } = slot(0, 2);
        expect(await store.takeRateSlot(key, T0, 2, windowMs)).toEqual(allowed);
        expect(await store.takeRateSlotAndSaveToken(slot(10, 2), digest(1), grant)).toEqual(allowed);
        expect(await store.checkRateLimit(key, T0 + 20, 2, windowMs)).toEqual(refused(980));
        expect(await store.takeRateSlotAndSaveToken(slot(20, 2), digest(2), grant)).toEqual(refused(980));
        expect(await store.takeRateSlot(key, T0 + 20, 2, windowMs)).toEqual(refused(980));
      }),
    );

    test(
      "takes the slot but keeps no token while the organisation's API access is off",
      withStore(async (store, _fixture, under) => {
        await under.setApiEnabled(I.orgA, false);
        expect(await store.takeRateSlotAndSaveToken(slot(0, 1), digest(1), grant)).toEqual(allowed);
        expect(await store.checkRateLimit(slot(0, 1).key, T0, 1, 1000)).toEqual(refused(1000));
        await under.setApiEnabled(I.orgA, true);
        expect(await store.findToken(digest(1))).toBeNull();
      }),
    );

    test(
      "never lets concurrent callers exceed the limit, and saves exactly the tokens of the slots taken",
      withStore(async (store) => {
        const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => store.takeRateSlotAndSaveToken(slot(0, 10), digest(i), grant)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        const found = await Promise.all(decisions.map((_, i) => store.findToken(digest(i))));
        expect(found.map((g) => g !== null)).toEqual(decisions.map((d) => d.allowed));
      }),
    );
  });

  describe("sweepRateEvents", () => {
    const refused = (retryAfterMs: number): RateDecision => ({ allowed: false, retryAfterMs });

    test(
      "deletes every key's events at or before now − windowMs, and keeps the later ones",
      withStore(async (store) => {
        await store.takeRateSlot("auth-failures:one-off", T0, 10, 1000);
        await store.takeRateSlot("auth-failures:one-off", T0 + 100, 10, 1000);
        await store.takeRateSlot("other", T0 + 50, 10, 1000);
        expect(await store.sweepRateEvents(T0 + 1000, 1000)).toBe(1);
        expect(await store.sweepRateEvents(T0 + 1000, 1000)).toBe(0);
        // A longer window sees what is left: of one-off's events only the one at 100, so
        // exactly one more fits under a limit of 2, and then the wait is for that one.
        expect(await store.takeRateSlot("auth-failures:one-off", T0 + 1000, 2, 60_000)).toEqual({ allowed: true });
        expect(await store.takeRateSlot("auth-failures:one-off", T0 + 1000, 2, 60_000)).toEqual(refused(59_100));
        expect(await store.checkRateLimit("other", T0 + 1000, 1, 60_000)).toEqual(refused(59_050));
      }),
    );
  });
}
