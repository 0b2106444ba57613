/**
 * The token-grant cache (lib/token-grant-cache.ts) on an injected clock: a live token's
 * grant is reused for exactly TOKEN_GRANT_TTL_MS (3 s, as docs/api.md "Using a token",
 * SECURITY.md and docs/scaling.md say), then asked of the store again. Revocation and
 * switching API access off through the same store take effect at once; a token saved by
 * another instance works at once (nothing negative is kept); another instance's revocation
 * is seen once the grant's 3 s are up. "Another instance" writes to the shared data past
 * the cache: the wrapped store itself, or a second SQLite store on the same file.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import type { AdminStore } from "../lib/admin-store.ts";
import { digestSecret, mintAccessToken, mintClient } from "../lib/credentials.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import { TOKEN_GRANT_TTL_MS, withTokenGrantCache } from "../lib/token-grant-cache.ts";

type FullStore = Store & AdminStore;

const closing: (() => Promise<void>)[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A clock that moves only when told. */
function manualClock() {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** An organisation with API access on, a client and a live token in `store`. */
async function withLiveToken(store: FullStore) {
  const org = { id: crypto.randomUUID(), name: "Grants Ltd", api_enabled: true, created_at: Date.now() };
  await store.createOrganisation(org);
  const { client } = mintClient(org.id, ["employees:read"], "cache", Date.now());
  await store.createClient(client);
  const digest = digestSecret(mintAccessToken());
  const grant: AccessTokenGrant = { organisation_id: org.id, client_id: client.client_id, scopes: ["employees:read"], expires_at: Date.now() + 3_600_000 };
  await store.saveToken(digest, grant);
  return { org, client, digest, grant };
}

/** `shared` is the data every instance sees; `cached` is this instance, with its clock. */
async function memoryInstance() {
  const shared = createMemoryStore();
  const clock = manualClock();
  const cached = withTokenGrantCache(shared, { now: clock.now, ttlMs: TOKEN_GRANT_TTL_MS });
  closing.push(() => cached.close());
  return { shared, cached, clock, ...(await withLiveToken(shared)) };
}

describe("withTokenGrantCache on an injected clock", () => {
  test("the grant lifetime is the 3 s the documentation states", () => {
    expect(TOKEN_GRANT_TTL_MS).toBe(3000);
  });

  test("another instance's revocation is honoured for just under 3 s, refused from 3 s on", async () => {
    const { shared, cached, clock, client, digest, grant } = await memoryInstance();
    expect(await cached.findToken(digest)).toEqual(grant);
    await shared.revokeClient(client.client_id, Date.now());
    clock.advance(TOKEN_GRANT_TTL_MS - 1);
    expect(await cached.findToken(digest)).toEqual(grant);
    clock.advance(1);
    expect(await cached.findToken(digest)).toBeNull();
  });

  test("another instance switching API access off is seen once the grant's 3 s are up", async () => {
    const { shared, cached, clock, org, digest, grant } = await memoryInstance();
    expect(await cached.findToken(digest)).toEqual(grant);
    await shared.setApiEnabled(org.id, false);
    expect(await cached.findToken(digest)).toEqual(grant);
    clock.advance(TOKEN_GRANT_TTL_MS);
    expect(await cached.findToken(digest)).toBeNull();
  });

  test("revoking or switching access off through the cached store refuses its tokens at once", async () => {
    const first = await memoryInstance();
    expect(await first.cached.findToken(first.digest)).toEqual(first.grant);
    await first.cached.revokeClient(first.client.client_id, Date.now());
    expect(await first.cached.findToken(first.digest)).toBeNull();

    const second = await memoryInstance();
    expect(await second.cached.findToken(second.digest)).toEqual(second.grant);
    expect(await second.cached.setApiEnabled(second.org.id, false)).toBe(true);
    expect(await second.cached.findToken(second.digest)).toBeNull();
  });

  test("an unknown token is asked of the store every time, so one saved elsewhere works at once", async () => {
    const { shared, cached, grant } = await memoryInstance();
    const fresh = digestSecret(mintAccessToken());
    expect(await cached.findToken(fresh)).toBeNull();
    await shared.saveToken(fresh, grant);
    expect(await cached.findToken(fresh)).toEqual(grant);
  });

  test("a lookup that raced a revocation through the cache is answered but not kept", async () => {
    const { shared, clock, client, digest, grant } = await memoryInstance();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A store whose token lookup reads, then waits: the revocation lands in between.
    const slow: FullStore = {
      ...shared,
      findToken: async (d) => {
        const found = await shared.findToken(d);
        await gate;
        return found;
      },
    };
    const cached = withTokenGrantCache(slow, { now: clock.now });
    const racing = cached.findToken(digest);
    await cached.revokeClient(client.client_id, Date.now());
    release();
    expect(await racing).toEqual(grant);
    expect(await cached.findToken(digest)).toBeNull();
  });

  test("keeps at most maxEntries grants, the oldest going first", async () => {
    const { shared, clock, grant } = await memoryInstance();
    let asked = 0;
    const counting: FullStore = { ...shared, findToken: (d) => (asked++, shared.findToken(d)) };
    const cached = withTokenGrantCache(counting, { now: clock.now, maxEntries: 2 });
    const digests = [0, 1, 2].map(() => digestSecret(mintAccessToken()));
    for (const d of digests) await shared.saveToken(d, grant);
    for (const d of digests) await cached.findToken(d);
    asked = 0;
    await cached.findToken(digests[2]!);
    await cached.findToken(digests[1]!);
    expect(asked).toBe(0);
    await cached.findToken(digests[0]!);
    expect(asked).toBe(1);
  });

  test("once closed, it answers as the closed store does, never from memory", async () => {
    const { cached, digest, grant } = await memoryInstance();
    expect(await cached.findToken(digest)).toEqual(grant);
    await cached.close();
    await expect(cached.findToken(digest)).rejects.toMatchObject({ name: "StoreUnavailableError" });
  });

  test("wraps a read-only Store as a Store: nothing of AdminStore appears", async () => {
    const { shared, clock } = await memoryInstance();
    const {
      installationKey,
      findClient,
      saveToken,
      findToken,
      takeRateSlot,
      takeRateSlotAndSaveToken,
      checkRateLimit,
      sweepRateEvents,
      listEmployees,
      findEmployee,
      listOverlappingLeave,
      listDeletions,
      sweepDeletions,
      listClosureDays,
      observedCalendars,
      listImportedPublicHolidays,
      ping,
      close,
    } = shared;
    const readOnly: Store = {
      installationKey,
      findClient,
      saveToken,
      findToken,
      takeRateSlot,
      takeRateSlotAndSaveToken,
      checkRateLimit,
      sweepRateEvents,
      listEmployees,
      findEmployee,
      listOverlappingLeave,
      listDeletions,
      sweepDeletions,
      listClosureDays,
      observedCalendars,
      listImportedPublicHolidays,
      ping,
      close,
    };
    const cached = withTokenGrantCache(readOnly, { now: clock.now });
    expect("revokeClient" in cached).toBe(false);
    await cached.ping();
  });
});

describe("withTokenGrantCache forwards what it does not intercept", () => {
  test("a method added to a store reaches through the wrapper, bound to the store; a member it lacks stays absent", async () => {
    const store = createMemoryStore();
    closing.push(() => store.close());
    const calls: string[] = [];
    // A Store that grew a method after this wrapper was written, on a class as a host might write it.
    class GrownStore {
      readonly #answer = "from the store";
      listAbsenceReasons(organisationId: string) {
        calls.push(organisationId);
        return Promise.resolve(this.#answer);
      }
    }
    // Without `restricted` (the memory store has no `listText` either): optional members it lacks.
    const { restricted: _lacking, ...withoutRestricted } = store;
    const grown: Store & GrownStore = Object.assign(new GrownStore(), withoutRestricted);
    const cached = withTokenGrantCache(grown, { now: manualClock().now });
    expect(await cached.listAbsenceReasons("org")).toBe("from the store");
    expect(calls).toEqual(["org"]);
    expect(await cached.findEmployee(crypto.randomUUID(), crypto.randomUUID())).toBeNull();
    expect(["listText" in cached, "restricted" in cached, typeof cached.dataVersion]).toEqual([false, false, "function"]);
  });
});

describe("the SQLite store opens with the grant cache", () => {
  /** Two stores on one SQLite file, like two instances on one database, with a live token. */
  async function twoInstances() {
    const dir = mkdtempSync(join(tmpdir(), "leaveapi-grants-"));
    dirs.push(dir);
    const file = join(dir, "db.sqlite");
    const a = openSqliteStore({ filename: file });
    await a.migrate();
    const b = openSqliteStore({ filename: file });
    closing.push(
      () => a.close(),
      () => b.close(),
    );
    return { a, b, ...(await withLiveToken(a)) };
  }

  test("another instance's revocation is not seen at once: the grant is reused", async () => {
    const { a, b, client, digest, grant } = await twoInstances();
    expect(await a.findToken(digest)).toEqual(grant);
    await b.revokeClient(client.client_id, Date.now());
    expect(await b.findToken(digest)).toBeNull();
    expect(await a.findToken(digest)).toEqual(grant);
  });

  test("revoking or switching access off through the same store refuses its tokens at once", async () => {
    const { a, client, digest, grant } = await twoInstances();
    expect(await a.findToken(digest)).toEqual(grant);
    await a.revokeClient(client.client_id, Date.now());
    expect(await a.findToken(digest)).toBeNull();
    const other = await withLiveToken(a);
    expect(await a.findToken(other.digest)).toEqual(other.grant);
    await a.setApiEnabled(other.org.id, false);
    expect(await a.findToken(other.digest)).toBeNull();
  });

  test("a token saved by another instance works at once, even after it was asked for unknown", async () => {
    const { a, b, grant } = await twoInstances();
    const fresh = digestSecret(mintAccessToken());
    expect(await a.findToken(fresh)).toBeNull();
    await b.saveToken(fresh, grant);
    expect(await a.findToken(fresh)).toEqual(grant);
  });
});
