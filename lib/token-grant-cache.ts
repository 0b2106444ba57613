/**
 * Live token grants kept for a few seconds in front of any Store, so that a data request
 * needs no token query (a round trip on Postgres, a third of a page's database time there).
 *
 * docs/api.md ("Using a token") and SECURITY.md let a process honour a token for up to
 * `ttlMs` after another process revoked it or switched its organisation's API access off.
 * Revoking or switching access off through the wrapped store itself forgets every grant
 * at once. Only live grants are kept: an unknown token is asked of the store every time,
 * so a token just issued by another instance works here at once.
 */
import type { AdminStore } from "./admin-store.ts";
import type { AccessTokenGrant, Store } from "./store.ts";

/** How long `leaveapi`'s own stores reuse a grant (docs/api.md, "Using a token"). */
export const TOKEN_GRANT_TTL_MS = 3000;

export interface TokenGrantCacheOptions {
  /** A monotonic clock in milliseconds, e.g. `() => performance.now()`. */
  now: () => number;
  /** How long a grant is reused; default TOKEN_GRANT_TTL_MS. */
  ttlMs?: number;
  /** The most grants kept; the oldest goes first. Default 10 000. */
  maxEntries?: number;
}

function grantCache(store: Store, options: TokenGrantCacheOptions) {
  const ttlMs = options.ttlMs ?? TOKEN_GRANT_TTL_MS;
  const maxEntries = options.maxEntries ?? 10_000;
  const grants = new Map<string, { grant: AccessTokenGrant; until: number }>();
  /** Moves on every forget(), so that a lookup that raced a revocation is not kept. */
  let generation = 0;
  let closed = false;
  const forget = (): void => {
    grants.clear();
    generation++;
  };
  const findToken = async (digest: string): Promise<AccessTokenGrant | null> => {
    const cached = grants.get(digest);
    // A closed store answers as the store does (unavailable), never from memory.
    if (cached && !closed && cached.until > options.now()) return cached.grant;
    const asked = generation;
    const grant = await store.findToken(digest);
    if (grant && asked === generation && !closed) {
      // Oldest first out: a Map keeps insertion order.
      if (grants.size >= maxEntries) grants.delete(grants.keys().next().value!);
      grants.set(digest, { grant, until: options.now() + ttlMs });
    }
    return grant;
  };
  const close = (): Promise<void> => {
    closed = true;
    forget();
    return store.close();
  };
  /** Runs a change to tokens' validity, then forgets: after it, so no lookup brings back what it read before. */
  const thenForget = async <T>(change: Promise<T>): Promise<T> => {
    try {
      return await change;
    } finally {
      forget();
    }
  };
  return { findToken, close, thenForget };
}

/**
 * `target` with `own` in place of the members it names, and every other member of
 * `target` (its own and its prototype chain's, so a class instance's methods too) forwarded
 * to it, bound: a wrapper that writes only what it intercepts, so that a member added to
 * the Store later reaches through it untouched. A member `target` lacks stays absent,
 * since an optional member's absence is what says a store has not got it.
 */
function forwardingTo<T extends object>(target: T, own: Partial<T>): T {
  const forwarded: Record<PropertyKey, unknown> = {};
  for (let layer: object | null = target; layer !== null && layer !== Object.prototype; layer = Object.getPrototypeOf(layer)) {
    for (const key of Reflect.ownKeys(layer)) {
      if (key === "constructor" || Object.hasOwn(forwarded, key)) continue;
      const value: unknown = Reflect.get(target, key);
      forwarded[key] = typeof value === "function" ? value.bind(target) : value;
    }
  }
  return Object.assign(forwarded, own) as T;
}

/**
 * `store` with its `findToken` answers reused for `ttlMs`; every other member is the
 * store's own. When `store` is also an AdminStore, so is the result, and its
 * `revokeClient`, `setApiEnabled`, `deleteOrganisation` and `restrictClient` take effect
 * on this cache at once.
 */
export function withTokenGrantCache<S extends Store>(store: S, options: TokenGrantCacheOptions): S {
  const cache = grantCache(store, options);
  const own: Partial<Store & AdminStore> = { findToken: cache.findToken, close: cache.close };
  const admin = store as Partial<AdminStore>;
  // Each change to tokens' validity forgets the cache once it is done.
  const { setApiEnabled, deleteOrganisation, revokeClient, restrictClient } = admin;
  if (setApiEnabled) own.setApiEnabled = (id, enabled) => cache.thenForget(setApiEnabled.call(store, id, enabled));
  if (deleteOrganisation) own.deleteOrganisation = (id) => cache.thenForget(deleteOrganisation.call(store, id));
  if (revokeClient) own.revokeClient = (clientId, now) => cache.thenForget(revokeClient.call(store, clientId, now));
  // A changed restriction takes effect on this cache at once, as a revocation does.
  if (restrictClient) own.restrictClient = (clientId, restriction) => cache.thenForget(restrictClient.call(store, clientId, restriction));
  return forwardingTo(store, own as Partial<S>);
}
