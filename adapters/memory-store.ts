/**
 * The in-memory Store (`leaveapi/memory`): the reference implementation of every promise
 * `lib/store.ts` makes, written to be read, and an `AdminStore` like the SQL stores: the
 * same organisation, API access, client and import operations, proved by the same
 * contract (`runAdminStoreContract`). A host implementing Store over its own tables can
 * follow it method by method: its data reads (memory/memory-reads.ts) filter, sort and
 * slice plain collections the way the SQL store's `where`, `order by` and `limit` do.
 *
 * Use it for tests, demos and prototypes. It keeps everything in one process, so data,
 * tokens and rate limits vanish on restart and are not shared between instances.
 * Runtime-neutral: it imports only lib/, and runs on Bun, Node and Deno.
 *
 * Seed it as the `leaveapi` command seeds a database, through the admin methods alone:
 *
 *   const store = createMemoryStore();
 *   await store.createOrganisation({ id: orgId, name: "Acme", api_enabled: true, created_at: Date.now() });
 *   const { client, secret } = mintClient(orgId, ["employees:read", "leave:read"], "payroll", Date.now());
 *   await store.createClient(client);
 *   await store.runImport(async (w) => {
 *     await w.upsertEmployees(orgId, [{ id: employeeId, external_id: null, first_name: "Ada", … }], Date.now());
 *   });
 *
 * `runImport` lands whole or not at all: its work writes to a copy of the data, swapped
 * in when the work resolves and dropped when it throws; imports run one at a time.
 */
import { StoreUnavailableError } from "../lib/errors.ts";
import type { AdminStore, OrganisationContents } from "../lib/admin-store.ts";
import type { AccessTokenGrant, ApiClient, ClientCredentials, Organisation, Store } from "../lib/store.ts";
import type { StoreContents, StoredClient } from "../lib/store-contents.ts";
import { memoryImportWriter } from "./memory/memory-import-writer.ts";
import { compare, memoryReads } from "./memory/memory-reads.ts";
import { memoryRestrictedReads } from "./memory/memory-restricted-reads.ts";
import { memoryRateEvents } from "./memory/memory-rate-events.ts";
import { deriveTombstones } from "./memory/memory-deletions.ts";
import { copyTables, emptyTables, holidayKey, keyOf, publishLate } from "./memory/memory-tables.ts";

export interface MemoryStore extends Store, AdminStore {
  /**
   * Adds the records of `data` (the shape `runStoreContract` uses), replacing any with the
   * same key, as they are: `updated_at` and all. Deleted records are kept as deleted, and
   * never come back from a read. An organisation loaded with API access off has been
   * switched off (`setApiEnabled`), so its tokens are dropped, and tokens are kept as
   * `saveToken` would keep them. For setting a store up: an import running meanwhile
   * would not see what it adds, and would put back the data as it found it.
   */
  load(data: StoreContents): void;
}

/** The client without its secret digest, as `listClients` and `revokeClient` answer. */
const toApiClient = ({ secret_digest: _s, ...client }: StoredClient): ApiClient => structuredClone(client);

/** A Store and AdminStore held in memory, optionally filled with `data` (see `MemoryStore.load`). */
export interface MemoryStoreOptions {
  /** The wall clock an import's publication is timed by (default Date.now); tests pass one they move. */
  now?: () => number;
}

export function createMemoryStore(data?: StoreContents, options: MemoryStoreOptions = {}): MemoryStore {
  const clock = options.now ?? Date.now;
  const organisations = new Map<string, Organisation>();
  const clients = new Map<string, StoredClient>();
  /** The secret each rotated client had before, kept until its grace period ends (`rotateClientSecret`). */
  const previousSecrets = new Map<string, { digest: string; expires_at: number }>();
  /** The imported data; an import swaps in its copy when it succeeds (memory/memory-tables.ts). */
  let tables = emptyTables();
  const tokens = new Map<string, AccessTokenGrant>();
  const rateEvents = memoryRateEvents();
  // One key per process: cursors die with the data on restart, so nothing is lost.
  const installationKey = crypto.getRandomValues(new Uint8Array(32));
  /** The last import queued: each waits for the one before, so none overwrites another's copy. */
  let lastImport: Promise<unknown> = Promise.resolve();
  /**
   * The data version (lib/store.ts, `dataVersion`): one for the whole store, moved by every
   * import that commits and every `load`, so it changes whenever any organisation's data
   * could. ETags are keyed by the installation key, new in each process, so a count that
   * starts again at a restart never answers a tag a client holds.
   */
  let dataGeneration = 0;
  let closed = false;

  /**
   * Every method starts here. A closed store answers as a database that cannot be reached
   * would, so the handler turns it into a 503 rather than a 500.
   */
  const open = () => {
    if (closed) throw new StoreUnavailableError("The memory store has been closed.");
  };

  /**
   * Access off revokes the organisation's tokens for good, so they are dropped rather
   * than refused while off: switching it on again must not revive them.
   */
  const switchApi = (org: Organisation, enabled: boolean) => {
    organisations.set(org.id, { ...org, api_enabled: enabled });
    if (enabled) return;
    for (const [digest, grant] of tokens) if (grant.organisation_id === org.id) tokens.delete(digest);
  };

  /** What the organisation holds in every table, deleted records included; `null` when it does not exist. */
  const contentsOf = (organisationId: string): OrganisationContents | null => {
    if (!organisations.has(organisationId)) return null;
    const count = (values: Iterable<{ organisation_id: string }>) => {
      let n = 0;
      for (const v of values) if (v.organisation_id === organisationId) n++;
      return n;
    };
    return {
      employees: count(tables.employees.values()),
      leave_bookings: count(tables.bookings.values()),
      leave_types: count(tables.leaveTypes.values()),
      closure_days: count(tables.closureDays.values()),
      public_holidays: count(tables.publicHolidays.values()),
      clients: count(clients.values()),
      tokens: count(tokens.values()),
    };
  };

  /** Keeps a token only while its organisation's API access is on (see `switchApi`). */
  const keepToken = (digest: string, grant: AccessTokenGrant) => {
    if (organisations.get(grant.organisation_id)?.api_enabled) tokens.set(digest, structuredClone(grant));
  };

  const store: MemoryStore = {
    load(contents) {
      dataGeneration++;
      const copy = structuredClone(contents);
      for (const o of copy.organisations) organisations.set(o.id, o);
      for (const c of copy.clients) clients.set(c.client_id, c);
      for (const e of copy.employees) tables.employees.set(keyOf(e.organisation_id, e.id), e);
      for (const t of copy.leaveTypes) tables.leaveTypes.set(keyOf(t.organisation_id, t.id), t);
      for (const b of copy.bookings) tables.bookings.set(keyOf(b.organisation_id, b.id), b);
      for (const c of copy.closureDays) tables.closureDays.set(keyOf(c.organisation_id, c.id), c);
      for (const h of copy.publicHolidays) tables.publicHolidays.set(holidayKey(h), h);
      deriveTombstones(tables, copy);
      for (const o of copy.organisations) switchApi(o, o.api_enabled);
      for (const { digest, grant } of copy.tokens) keepToken(digest, grant);
    },

    // Nothing to create or upgrade: the Maps are the schema.
    async migrate() {
      open();
    },

    async createOrganisation(org) {
      open();
      // Refused as the SQL table's primary key refuses it.
      if (organisations.has(org.id)) throw new Error(`Organisation ${org.id} exists already.`);
      const { id, name, api_enabled, created_at } = org;
      organisations.set(id, { id, name, api_enabled, created_at });
    },

    async listOrganisations() {
      open();
      return [...organisations.values()].sort((a, b) => compare(a.created_at, b.created_at) || compare(a.id, b.id)).map((o) => ({ ...o }));
    },

    async findOrganisation(id) {
      open();
      const org = organisations.get(id);
      return org ? { ...org } : null;
    },

    async setApiEnabled(organisationId, enabled) {
      open();
      const org = organisations.get(organisationId);
      if (org) switchApi(org, enabled);
      return org !== undefined;
    },

    async renameOrganisation(id, name) {
      open();
      const org = organisations.get(id);
      if (!org) return null;
      organisations.set(id, { ...org, name });
      return { ...org, name };
    },

    async countOrganisationContents(id) {
      open();
      return contentsOf(id);
    },

    async findEmployeeForErasure(organisationId, key) {
      open();
      // The memory store keeps no external id: an employee imported by one is found by the id derived from it, among `ids`.
      for (const id of key.ids) {
        const e = tables.employees.get(keyOf(organisationId, id));
        if (!e || e.deleted) continue;
        let bookings = 0;
        for (const b of tables.bookings.values()) if (b.organisation_id === organisationId && b.employee_id === id && !b.deleted) bookings++;
        return { id, external_id: null, first_name: e.first_name, last_name: e.last_name, bookings };
      }
      return null;
    },

    async scrubDeleted() {
      open();
      // A deleted record is gone from the maps (memory/memory-import-writer.ts): nothing is left to clear.
      return { complete: true };
    },

    async deleteOrganisation(id) {
      open();
      // After the imports queued before it, so that none puts the organisation's records back.
      const run = lastImport.then(() => {
        open();
        const contents = contentsOf(id);
        if (!contents) return null;
        // Every table, whatever it holds: each record carries its organisation.
        const { exits, ...maps } = tables;
        for (const table of Object.values(maps) as Map<string, { organisation_id: string }>[]) {
          for (const [key, record] of table) if (record.organisation_id === id) table.delete(key);
        }
        tables.exits = exits.filter((x) => x.organisation_id !== id);
        for (const [digest, grant] of tokens) if (grant.organisation_id === id) tokens.delete(digest);
        for (const [clientId, client] of clients) {
          if (client.organisation_id !== id) continue;
          clients.delete(clientId);
          previousSecrets.delete(clientId);
        }
        organisations.delete(id);
        return contents;
      });
      lastImport = run.catch(() => {});
      return run;
    },

    async createClient(client) {
      open();
      // Refused as the SQL table's primary and foreign keys refuse them.
      if (clients.has(client.client_id)) throw new Error(`Client ${client.client_id} exists already.`);
      if (!organisations.has(client.organisation_id)) throw new Error(`No organisation ${client.organisation_id} in the memory store.`);
      const { client_id, organisation_id, name, scopes, created_at, revoked_at, secret_digest, restriction } = structuredClone(client);
      clients.set(client_id, { client_id, organisation_id, name, scopes, created_at, revoked_at, secret_digest, ...(restriction ? { restriction } : {}) });
    },

    async restrictClient(clientId, restriction) {
      open();
      const client = clients.get(clientId);
      if (!client) return null;
      const { restriction: _old, ...rest } = client;
      const restricted = restriction ? { ...rest, restriction: structuredClone(restriction) } : rest;
      clients.set(clientId, restricted);
      return toApiClient(restricted);
    },

    async listClients(organisationId) {
      open();
      return [...clients.values()]
        .filter((c) => c.organisation_id === organisationId)
        .sort((a, b) => compare(a.created_at, b.created_at) || compare(a.client_id, b.client_id))
        .map(toApiClient);
    },

    async listAllClients() {
      open();
      return [...clients.values()].sort((a, b) => compare(a.created_at, b.created_at) || compare(a.client_id, b.client_id)).map(toApiClient);
    },

    async rotateClientSecret(clientId, secretDigest, previousExpiresAt) {
      open();
      const client = clients.get(clientId);
      if (!client) return null;
      if (client.revoked_at !== null) return toApiClient(client);
      clients.set(clientId, { ...client, secret_digest: secretDigest });
      if (previousExpiresAt === null) previousSecrets.delete(clientId);
      else previousSecrets.set(clientId, { digest: client.secret_digest, expires_at: previousExpiresAt });
      return toApiClient(client);
    },

    async revokeClient(clientId, now) {
      open();
      const client = clients.get(clientId);
      if (!client) return null;
      // The first revocation's instant stays: revoking again changes nothing.
      const revoked = client.revoked_at === null ? { ...client, revoked_at: now } : client;
      clients.set(clientId, revoked);
      for (const [digest, grant] of tokens) if (grant.client_id === clientId) tokens.delete(digest);
      return toApiClient(revoked);
    },

    async runImport(work, options) {
      open();
      // A dry run works on a copy that is never kept, and waits for no import.
      if (options?.dryRun) return work(memoryImportWriter(copyTables(tables), (id) => organisations.has(id)));
      const startedAt = clock();
      const run = lastImport.then(async () => {
        open();
        const draft = copyTables(tables);
        const result = await work(memoryImportWriter(draft, (id) => organisations.has(id)));
        if (options?.keep?.(result) === false) return result;
        publishLate(tables, draft, clock() - startedAt, clock());
        tables = draft;
        dataGeneration++;
        return result;
      });
      // The next import waits for this one to end, whether it committed or not.
      lastImport = run.catch(() => {});
      return run;
    },

    async installationKey() {
      open();
      return installationKey.slice();
    },

    async dataVersion() {
      open();
      return String(dataGeneration);
    },

    async findClient(clientId) {
      open();
      const client = clients.get(clientId);
      const org = client && organisations.get(client.organisation_id);
      if (!client || !org) return null;
      const previous = previousSecrets.get(clientId);
      const credentials: ClientCredentials = {
        ...structuredClone(client),
        api_enabled: org.api_enabled,
        ...(previous === undefined ? {} : { previous_secret: { ...previous } }),
      };
      return credentials;
    },

    async saveToken(digest, grant) {
      open();
      keepToken(digest, grant);
    },

    async findToken(digest) {
      open();
      const grant = tokens.get(digest);
      if (!grant) return null;
      // A token is only as good as its client and its organisation's switch, checked now.
      const client = clients.get(grant.client_id);
      if (!client || client.revoked_at !== null) return null;
      if (!organisations.get(grant.organisation_id)?.api_enabled) return null;
      // The restriction as it is now, not as it was when the token was issued.
      const { restriction: _issued, ...unrestricted } = structuredClone(grant);
      return client.restriction ? { ...unrestricted, restriction: structuredClone(client.restriction) } : unrestricted;
    },

    async takeRateSlot(key, now, limit, windowMs) {
      open();
      return rateEvents.take(key, now, limit, windowMs);
    },

    // Synchronous from the count to the token: nothing else can run in between.
    async takeRateSlotAndSaveToken(slot, digest, grant) {
      open();
      const decision = rateEvents.take(slot.key, slot.now, slot.limit, slot.windowMs);
      if (decision.allowed) keepToken(digest, grant);
      return decision;
    },

    async checkRateLimit(key, now, limit, windowMs) {
      open();
      return rateEvents.check(key, now, limit, windowMs);
    },

    async sweepRateEvents(now, windowMs) {
      open();
      return rateEvents.sweep(now, windowMs);
    },

    ...memoryReads(() => tables, open),
    restricted: memoryRestrictedReads(() => tables, open),

    async ping() {
      open();
    },

    async close() {
      closed = true;
    },
  };

  if (data) store.load(data);
  return store;
}
