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
import type { AdminStore, ImportRunOptions, ImportWriter, NewClient } from "./admin-store.ts";
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

function isAdminStore(store: Store): store is Store & AdminStore {
  const admin = store as Partial<AdminStore>;
  return typeof admin.revokeClient === "function" && typeof admin.setApiEnabled === "function";
}

/**
 * `store` with its `findToken` answers reused for `ttlMs`. When `store` is also an
 * AdminStore, the result is one too, and its `revokeClient`, `setApiEnabled` and `deleteOrganisation` take
 * effect on this cache at once.
 */
export function withTokenGrantCache(store: Store & AdminStore, options: TokenGrantCacheOptions): Store & AdminStore;
export function withTokenGrantCache(store: Store, options: TokenGrantCacheOptions): Store;
export function withTokenGrantCache(store: Store, options: TokenGrantCacheOptions): Store | (Store & AdminStore) {
  const cache = grantCache(store, options);
  const cached: Store = {
    installationKey: () => store.installationKey(),
    findClient: (clientId) => store.findClient(clientId),
    saveToken: (digest, grant) => store.saveToken(digest, grant),
    findToken: cache.findToken,
    takeRateSlot: (key, now, limit, windowMs) => store.takeRateSlot(key, now, limit, windowMs),
    takeRateSlotAndSaveToken: (slot, digest, grant) => store.takeRateSlotAndSaveToken(slot, digest, grant),
    checkRateLimit: (key, now, limit, windowMs) => store.checkRateLimit(key, now, limit, windowMs),
    sweepRateEvents: (now, windowMs) => store.sweepRateEvents(now, windowMs),
    listEmployees: (query) => store.listEmployees(query),
    findEmployee: (organisationId, id) => store.findEmployee(organisationId, id),
    listOverlappingLeave: (query) => store.listOverlappingLeave(query),
    listDeletions: (query) => store.listDeletions(query),
    sweepDeletions: (before) => store.sweepDeletions(before),
    listClosureDays: (organisationId, from, to) => store.listClosureDays(organisationId, from, to),
    observedCalendars: (organisationId, from, to) => store.observedCalendars(organisationId, from, to),
    listImportedPublicHolidays: (organisationId, calendars, fromYear, toYear) => store.listImportedPublicHolidays(organisationId, calendars, fromYear, toYear),
    ping: () => store.ping(),
    close: cache.close,
  };
  // The optional read, forwarded only where the store has it: its absence is what says so.
  const { listText } = store;
  if (listText) cached.listText = (query) => listText.call(store, query);
  if (store.restricted) cached.restricted = store.restricted;
  const { dataVersion } = store;
  if (dataVersion) cached.dataVersion = (organisationId) => dataVersion.call(store, organisationId);
  if (!isAdminStore(store)) return cached;
  const admin: AdminStore = {
    migrate: () => store.migrate(),
    createOrganisation: (org) => store.createOrganisation(org),
    listOrganisations: () => store.listOrganisations(),
    findOrganisation: (id) => store.findOrganisation(id),
    setApiEnabled: (id, enabled) => cache.thenForget(store.setApiEnabled(id, enabled)),
    createClient: (client: NewClient) => store.createClient(client),
    renameOrganisation: (id, name) => store.renameOrganisation(id, name),
    countOrganisationContents: (id) => store.countOrganisationContents(id),
    deleteOrganisation: (id) => cache.thenForget(store.deleteOrganisation(id)),
    listClients: (organisationId) => store.listClients(organisationId),
    listAllClients: () => store.listAllClients(),
    rotateClientSecret: (clientId, secretDigest, previousExpiresAt) => store.rotateClientSecret(clientId, secretDigest, previousExpiresAt),
    revokeClient: (clientId, now) => cache.thenForget(store.revokeClient(clientId, now)),
    runImport: <T>(work: (writer: ImportWriter) => Promise<T>, options?: ImportRunOptions<T>) => store.runImport(work, options),
    findEmployeeForErasure: (organisationId, key) => store.findEmployeeForErasure(organisationId, key),
    scrubDeleted: (options) => store.scrubDeleted(options),
  };
  // A changed restriction takes effect on this cache at once, as a revocation does.
  const { restrictClient } = store;
  if (restrictClient) admin.restrictClient = (clientId, restriction) => cache.thenForget(restrictClient.call(store, clientId, restriction));
  return { ...cached, ...admin };
}
