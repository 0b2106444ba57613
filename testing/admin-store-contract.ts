/**
 * The AdminStore contract, written once like the Store contract (store-contract.ts): what
 * `lib/admin-store.ts` promises of organisations, API access, clients and imports, checked
 * against every store leaveapi ships (memory, SQLite on bun:sqlite and node:sqlite,
 * Postgres) and against a host's own, the same way. The test framework is passed in and
 * only the matchers of `ContractMatchers` are used.
 */
import type { AdminStore } from "../lib/admin-store.ts";
import { digestSecret, mintClient } from "../lib/credentials.ts";
import type { AccessTokenGrant, Store } from "../lib/store.ts";
import { T0, fixtureUuid } from "./contract-fixture.ts";
import { NO_ORG, ORG_A, ORG_B, SCOPES, organisation, rejectionOf, tokenDigest, withoutSecret, type WithAdminStore } from "./admin-fixture.ts";
import { runAdminLifecycleCases } from "./admin-lifecycle-contract.ts";
import { runDataVersionCases } from "./data-version-contract.ts";
import { runImportDryRunCases } from "./import-dry-run-contract.ts";
import { runImportKeptCases } from "./import-kept-contract.ts";
import { runImportWriterCases } from "./import-writer-contract.ts";
import type { ContractFramework } from "./store-contract.ts";

export interface AdminStoreUnderTest {
  store: Store & AdminStore;
  /** Closes the store and frees whatever `create` made for it. */
  dispose: () => Promise<void>;
}

export interface AdminStoreContractOptions {
  /** Names the describe block, e.g. "SQLite in memory". */
  name: string;
  /** An empty, migrated store; called once per test. */
  create: () => Promise<AdminStoreUnderTest>;
}

const ORG_C = fixtureUuid("0c000000", 0xc);

export function runAdminStoreContract(options: AdminStoreContractOptions, framework: ContractFramework): void {
  const { describe, test, expect } = framework;

  const withStore: WithAdminStore = (body) => async () => {
    const under = await options.create();
    try {
      await body(under.store);
    } finally {
      await under.dispose();
    }
  };

  /** A client of `organisationId` created in the store, with the grant of a token it holds. */
  const createClient = async (store: AdminStore, organisationId: string, created_at = T0) => {
    const { client, secret } = mintClient(organisationId, SCOPES, null, created_at);
    await store.createClient(client);
    const grant: AccessTokenGrant = { organisation_id: organisationId, client_id: client.client_id, scopes: SCOPES, expires_at: T0 + 3_600_000 };
    return { client, secret, grant };
  };

  describe(`AdminStore contract: ${options.name}`, () => {
    describe("organisations", () => {
      test(
        "a created organisation is found as it was given; an unknown id is null",
        withStore(async (store) => {
          const acme = organisation(ORG_A, { api_enabled: false });
          await store.createOrganisation(acme);
          expect(await store.findOrganisation(ORG_A)).toEqual(acme);
          expect(await store.findOrganisation(NO_ORG)).toBeNull();
        }),
      );

      test(
        "lists every organisation in (created_at, id) order",
        withStore(async (store) => {
          expect(await store.listOrganisations()).toEqual([]);
          const later = organisation(ORG_B, { name: "Borealis GmbH", created_at: T0 + 1 });
          const tiedWithLater = organisation(ORG_A, { created_at: T0 + 1, api_enabled: false });
          const first = organisation(ORG_C, { name: "Cirrus BV" });
          for (const org of [later, tiedWithLater, first]) await store.createOrganisation(org);
          expect(await store.listOrganisations()).toEqual([first, tiedWithLater, later]);
        }),
      );

      test(
        "refuses an organisation whose id is taken, and keeps the first",
        withStore(async (store) => {
          const acme = organisation(ORG_A);
          await store.createOrganisation(acme);
          expect(await rejectionOf(store.createOrganisation({ ...acme, name: "Impostor", api_enabled: false }))).toBeTruthy();
          expect(await store.listOrganisations()).toEqual([acme]);
        }),
      );

      test(
        "migrate is safe to run again, and keeps what is stored",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          await store.migrate();
          expect(await store.findOrganisation(ORG_A)).toEqual(organisation(ORG_A));
        }),
      );
    });

    describe("API access", () => {
      test(
        "setApiEnabled switches access, says whether the organisation exists, and clients see the switch",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A, { api_enabled: false }));
          const { client } = await createClient(store, ORG_A);
          for (const enabled of [true, false]) {
            expect(await store.setApiEnabled(ORG_A, enabled)).toBe(true);
            expect(await store.findOrganisation(ORG_A)).toEqual(organisation(ORG_A, { api_enabled: enabled }));
            expect(await store.findClient(client.client_id)).toEqual({ ...client, api_enabled: enabled });
          }
          expect(await store.setApiEnabled(NO_ORG, true)).toBe(false);
          expect(await store.findOrganisation(NO_ORG)).toBeNull();
        }),
      );

      test(
        "switching access off deletes the organisation's tokens for good, and leaves another's",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          await store.createOrganisation(organisation(ORG_B));
          const a = await createClient(store, ORG_A);
          const b = await createClient(store, ORG_B);
          await store.saveToken(tokenDigest(1), a.grant);
          await store.saveToken(tokenDigest(2), b.grant);
          expect(await store.findToken(tokenDigest(1))).toEqual(a.grant);

          expect(await store.setApiEnabled(ORG_A, false)).toBe(true);
          expect(await store.findToken(tokenDigest(1))).toBeNull();
          await store.setApiEnabled(ORG_A, true);
          expect(await store.findToken(tokenDigest(1))).toBeNull();
          expect(await store.findToken(tokenDigest(2))).toEqual(b.grant);
        }),
      );

      test(
        "a token saved while access is off is not kept; switching on what is on keeps its tokens",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A, { api_enabled: false }));
          const a = await createClient(store, ORG_A);
          await store.saveToken(tokenDigest(1), a.grant);
          await store.setApiEnabled(ORG_A, true);
          expect(await store.findToken(tokenDigest(1))).toBeNull();

          await store.saveToken(tokenDigest(2), a.grant);
          await store.setApiEnabled(ORG_A, true);
          expect(await store.findToken(tokenDigest(2))).toEqual(a.grant);
        }),
      );
    });

    describe("clients", () => {
      test(
        "a minted client is found by id with its secret's digest and its organisation's switch",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          const { client, secret } = mintClient(ORG_A, SCOPES, "Payroll sync", T0);
          await store.createClient(client);
          const found = await store.findClient(client.client_id);
          expect(found).toEqual({ ...client, api_enabled: true });
          expect(found?.secret_digest).toBe(digestSecret(secret));
          expect(await store.findClient(mintClient(ORG_A, SCOPES, null, T0).client.client_id)).toBeNull();
        }),
      );

      test(
        "lists an organisation's clients in (created_at, client_id) order, without secret digests",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          await store.createOrganisation(organisation(ORG_B));
          const later = [(await createClient(store, ORG_A, T0 + 1)).client, (await createClient(store, ORG_A, T0 + 1)).client];
          const first = (await createClient(store, ORG_A, T0)).client;
          const other = (await createClient(store, ORG_B, T0)).client;
          later.sort((x, y) => (x.client_id < y.client_id ? -1 : 1));
          expect(await store.listClients(ORG_A)).toEqual([first, ...later].map(withoutSecret));
          expect(await store.listClients(ORG_B)).toEqual([withoutSecret(other)]);
          expect(await store.listClients(NO_ORG)).toEqual([]);
        }),
      );

      test(
        "revoking stamps revoked_at once, ends the client's tokens, and leaves other clients' alone",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          const revoking = await createClient(store, ORG_A);
          const staying = await createClient(store, ORG_A);
          await store.saveToken(tokenDigest(1), revoking.grant);
          await store.saveToken(tokenDigest(2), staying.grant);

          const revoked = await store.revokeClient(revoking.client.client_id, T0 + 5000);
          expect(revoked).toEqual({ ...withoutSecret(revoking.client), revoked_at: T0 + 5000 });
          expect(await store.findClient(revoking.client.client_id)).toEqual({ ...revoking.client, revoked_at: T0 + 5000, api_enabled: true });
          expect(await store.findToken(tokenDigest(1))).toBeNull();
          expect(await store.findToken(tokenDigest(2))).toEqual(staying.grant);

          expect(await store.revokeClient(revoking.client.client_id, T0 + 9000)).toEqual(revoked);
          expect((await store.listClients(ORG_A)).map((c) => c.revoked_at).sort()).toEqual([T0 + 5000, null]);
          expect(await store.revokeClient(mintClient(ORG_A, SCOPES, null, T0).client.client_id, T0)).toBeNull();
        }),
      );

      test(
        "refuses a client whose id is taken or whose organisation does not exist",
        withStore(async (store) => {
          await store.createOrganisation(organisation(ORG_A));
          const { client } = await createClient(store, ORG_A);
          expect(await rejectionOf(store.createClient({ ...client, name: "Again" }))).toBeTruthy();
          expect(await store.findClient(client.client_id)).toEqual({ ...client, api_enabled: true });

          const orphan = mintClient(NO_ORG, SCOPES, null, T0).client;
          expect(await rejectionOf(store.createClient(orphan))).toBeTruthy();
          expect(await store.findClient(orphan.client_id)).toBeNull();
        }),
      );

      test(
        "a restriction is stored with its client, answered with it and with its tokens' grants as it is now, replaced and removed",
        withStore(async (store) => {
          if (!store.restrictClient) return;
          await store.createOrganisation(organisation(ORG_A));
          const sales = { departments: ["Sales"], calendars: null, fields: null, set_at: 0 };
          const { client } = mintClient(ORG_A, SCOPES, null, T0);
          await store.createClient({ ...client, restriction: sales });
          const grant: AccessTokenGrant = { organisation_id: ORG_A, client_id: client.client_id, scopes: SCOPES, expires_at: T0 + 3_600_000 };
          await store.saveToken(tokenDigest(1), grant);
          expect(await store.findClient(client.client_id)).toEqual({ ...client, restriction: sales, api_enabled: true });
          expect(await store.listClients(ORG_A)).toEqual([{ ...withoutSecret(client), restriction: sales }]);
          expect(await store.findToken(tokenDigest(1))).toEqual({ ...grant, restriction: sales });

          const calendars = { departments: null, calendars: ["GB-ENG", "DE"], fields: ["id", "first_name", "updated_at"] as const, set_at: T0 + 1000 };
          expect(await store.restrictClient(client.client_id, { ...calendars, fields: [...calendars.fields] })).toEqual({
            ...withoutSecret(client),
            restriction: calendars,
          });
          expect(await store.findToken(tokenDigest(1))).toEqual({ ...grant, restriction: calendars });
          expect(await store.restrictClient(client.client_id, null)).toEqual(withoutSecret(client));
          expect(await store.findToken(tokenDigest(1))).toEqual(grant);
          expect(await store.findClient(client.client_id)).toEqual({ ...client, api_enabled: true });
          expect(await store.restrictClient(mintClient(ORG_A, SCOPES, null, T0).client.client_id, sales)).toBeNull();
        }),
      );
    });

    runAdminLifecycleCases(framework, withStore);
    runImportWriterCases(framework, withStore);
    runImportDryRunCases(framework, withStore);
    runDataVersionCases(framework, withStore);
    runImportKeptCases(framework, withStore);
  });
}
