/**
 * The lifecycle half of the AdminStore contract (admin-store-contract.ts): renaming and
 * deleting an organisation, listing every organisation's clients, and rotating a client's
 * secret with a grace period, which the token endpoint honours (lib/issue-token.ts).
 */
import type { AdminStore, OrganisationContents } from "../lib/admin-store.ts";
import { digestSecret, mintClient, mintClientSecret } from "../lib/credentials.ts";
import { issueToken } from "../lib/issue-token.ts";
import type { Store } from "../lib/store.ts";
import {
  ANNUAL,
  NO_ORG,
  ORG_A,
  ORG_B,
  SCOPES,
  booking,
  closure,
  employee,
  organisation,
  tokenDigest,
  withoutSecret,
  type WithAdminStore,
} from "./admin-fixture.ts";
import { T0, fixtureUuid } from "./contract-fixture.ts";
import type { ContractFramework } from "./store-contract.ts";

const nothing: OrganisationContents = { employees: 0, leave_bookings: 0, leave_types: 0, closure_days: 0, public_holidays: 0, clients: 0, tokens: 0 };

/** One of everything an organisation holds: an employee and a booking, a leave type, a closure day, a public holiday, a client with a token. */
async function fill(store: Store & AdminStore, organisationId: string, n: number) {
  const employeeId = fixtureUuid("e0000000", n);
  await store.runImport(async (w) => {
    await w.upsertLeaveTypes(organisationId, [ANNUAL], T0);
    await w.upsertEmployees(organisationId, [employee(employeeId)], T0);
    await w.upsertLeaveBookings(organisationId, [booking(fixtureUuid("b0000000", n), employeeId)], T0);
    await w.upsertClosureDays(organisationId, [closure(fixtureUuid("c0000000", n), "2026-12-24")], T0);
    await w.replacePublicHolidays(organisationId, "GB-ENG", 2026, [{ date: "2026-08-31", name: "Summer bank holiday" }]);
  });
  const { client, secret } = mintClient(organisationId, SCOPES, null, T0);
  await store.createClient(client);
  const grant = { organisation_id: organisationId, client_id: client.client_id, scopes: SCOPES, expires_at: T0 + 3_600_000 };
  await store.saveToken(tokenDigest(n), grant);
  return { client, secret, grant, employee: employeeId };
}

/** Asks for a token as the token endpoint does; `true` when one is issued. */
async function tokenIssued(store: Store, clientId: string, secret: string, now: number): Promise<boolean> {
  const request = { grantType: "client_credentials", scope: undefined, clientId, clientSecret: secret, badAuthorization: false };
  return issueToken(store, request, { now, remoteAddress: "192.0.2.1" }).then(
    () => true,
    (error: { code?: string }) => {
      if (error.code !== "invalid_client") throw error;
      return false;
    },
  );
}

export function runAdminLifecycleCases(framework: ContractFramework, withStore: WithAdminStore): void {
  const { describe, test, expect } = framework;

  describe("organisation lifecycle", () => {
    test(
      "renameOrganisation renames and answers the organisation; an unknown id is null",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A, { api_enabled: false }));
        const renamed = organisation(ORG_A, { api_enabled: false, name: "Acme Group" });
        expect(await store.renameOrganisation(ORG_A, "Acme Group")).toEqual(renamed);
        expect(await store.findOrganisation(ORG_A)).toEqual(renamed);
        expect(await store.renameOrganisation(NO_ORG, "Nobody")).toBeNull();
      }),
    );

    test(
      "deleteOrganisation removes its records, clients and tokens, says how many, and leaves another's",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        await store.createOrganisation(organisation(ORG_B));
        const a = await fill(store, ORG_A, 1);
        const b = await fill(store, ORG_B, 2);
        const one: OrganisationContents = { employees: 1, leave_bookings: 1, leave_types: 1, closure_days: 1, public_holidays: 1, clients: 1, tokens: 1 };
        expect(await store.countOrganisationContents(ORG_A)).toEqual(one);
        // A deleted employee is gone with their booking (nothing of them kept), and leaves tombstones in the deletions feed.
        await store.runImport((w) => w.deleteEmployees(ORG_A, [a.employee], T0 + 1));
        const feed = { organisationId: ORG_A, resource: "employees", deletedSince: 0, limit: 10 } as const;
        expect(await store.listDeletions(feed)).toEqual([{ id: a.employee, deleted_at: T0 + 1 }]);
        const left = { ...one, employees: 0, leave_bookings: 0 };
        expect(await store.countOrganisationContents(ORG_A)).toEqual(left);

        expect(await store.deleteOrganisation(ORG_A)).toEqual(left);
        expect(await store.findOrganisation(ORG_A)).toBeNull();
        expect(await store.findClient(a.client.client_id)).toBeNull();
        expect(await store.findToken(tokenDigest(1))).toBeNull();
        expect(await store.listClients(ORG_A)).toEqual([]);
        expect(await store.findEmployee(ORG_A, a.employee)).toBeNull();
        expect(await store.listClosureDays(ORG_A, "2026-01-01", "2026-12-31")).toEqual([]);
        expect(await store.listImportedPublicHolidays(ORG_A, ["GB-ENG"], 2026, 2026)).toEqual([]);
        expect(await store.countOrganisationContents(ORG_A)).toBeNull();
        expect(await store.listDeletions(feed)).toEqual([]);
        expect(await store.deleteOrganisation(ORG_A)).toBeNull();

        expect(await store.countOrganisationContents(ORG_B)).toEqual(one);
        expect(await store.findToken(tokenDigest(2))).toEqual(b.grant);
        expect((await store.findEmployee(ORG_B, b.employee))?.id).toBe(b.employee);
        // The id is free again, and a new organisation under it starts empty.
        await store.createOrganisation(organisation(ORG_A));
        expect(await store.countOrganisationContents(ORG_A)).toEqual(nothing);
      }),
    );
  });

  describe("client lifecycle", () => {
    test(
      "listAllClients lists every organisation's clients in (created_at, client_id) order, without secret digests",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        await store.createOrganisation(organisation(ORG_B));
        expect(await store.listAllClients()).toEqual([]);
        const later = mintClient(ORG_A, SCOPES, null, T0 + 1).client;
        const first = mintClient(ORG_B, SCOPES, "b", T0).client;
        for (const c of [later, first]) await store.createClient(c);
        await store.revokeClient(later.client_id, T0 + 2);
        expect(await store.listAllClients()).toEqual([withoutSecret(first), { ...withoutSecret(later), revoked_at: T0 + 2 }]);
      }),
    );

    test(
      "rotateClientSecret keeps the old digest until its expiry, and the token endpoint honours both until then",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const { client, secret } = mintClient(ORG_A, SCOPES, null, T0);
        await store.createClient(client);
        const grant = { organisation_id: ORG_A, client_id: client.client_id, scopes: SCOPES, expires_at: T0 + 3_600_000 };
        await store.saveToken(tokenDigest(1), grant);
        const fresh = mintClientSecret();
        const until = T0 + 60_000;

        expect(await store.rotateClientSecret(client.client_id, digestSecret(fresh), until)).toEqual(withoutSecret(client));
        expect(await store.findClient(client.client_id)).toEqual({
          ...client,
          secret_digest: digestSecret(fresh),
          api_enabled: true,
          previous_secret: { digest: digestSecret(secret), expires_at: until },
        });
        // Tokens already issued keep their lifetime.
        expect(await store.findToken(tokenDigest(1))).toEqual(grant);
        expect(await tokenIssued(store, client.client_id, fresh, T0 + 1000)).toBe(true);
        expect(await tokenIssued(store, client.client_id, secret, until - 1)).toBe(true);
        expect(await tokenIssued(store, client.client_id, secret, until)).toBe(false);

        // Without a grace period the old secret goes at once, and so does the one before.
        const third = mintClientSecret();
        await store.rotateClientSecret(client.client_id, digestSecret(third), null);
        expect(await store.findClient(client.client_id)).toEqual({ ...client, secret_digest: digestSecret(third), api_enabled: true });
        expect(await tokenIssued(store, client.client_id, fresh, T0 + 2000)).toBe(false);
        expect(await tokenIssued(store, client.client_id, third, T0 + 3000)).toBe(true);
      }),
    );

    test(
      "rotateClientSecret leaves a revoked client as it is, and answers null for an unknown one",
      withStore(async (store) => {
        await store.createOrganisation(organisation(ORG_A));
        const { client } = mintClient(ORG_A, SCOPES, null, T0);
        await store.createClient(client);
        await store.revokeClient(client.client_id, T0 + 1);
        const revoked = { ...withoutSecret(client), revoked_at: T0 + 1 };
        expect(await store.rotateClientSecret(client.client_id, digestSecret(mintClientSecret()), T0 + 60_000)).toEqual(revoked);
        expect(await store.findClient(client.client_id)).toEqual({ ...client, revoked_at: T0 + 1, api_enabled: true });
        expect(await store.rotateClientSecret(mintClient(ORG_A, SCOPES, null, T0).client.client_id, digestSecret("x"), null)).toBeNull();
      }),
    );
  });
}
