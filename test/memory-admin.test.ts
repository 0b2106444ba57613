/**
 * The memory store's admin API as an embedder uses it (docs/embedding.md, "Choosing a
 * Store"): seeded through AdminStore alone, served by the handler; and what the memory
 * store's imports promise beyond the AdminStore contract.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { createHandler } from "../server/handler.ts";
import { T0, U, fixtureUuid } from "../testing/contract-fixture.ts";
import { basicHeader, employee } from "./support.ts";

const BASE = "http://leaveapi.test";
const ORG = fixtureUuid("0a000000", 1);
const now = () => Date.parse("2026-03-01T09:30:00.000Z");

describe("memory store seeded through its AdminStore methods", () => {
  test("serves the API: a token, the employees page, and access switched off for good", async () => {
    const store = createMemoryStore();
    await store.createOrganisation({ id: ORG, name: "Acme Ltd", api_enabled: true, created_at: now() });
    const { client, secret } = mintClient(ORG, [...ALL_SCOPES], "payroll", now());
    await store.createClient(client);
    const ada = employee({ first_name: "Ada" });
    await store.runImport((w) => w.upsertEmployees(ORG, [ada], now()));

    const handler = createHandler({ store, now });
    const call = (path: string, init: RequestInit = {}) => handler(new Request(BASE + path, init), { remoteAddress: "127.0.0.1" });
    const tokenResponse = await call("/v1/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(client.client_id, secret) },
      body: "grant_type=client_credentials",
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token } = (await tokenResponse.json()) as { access_token: string };
    const page = await call("/v1/employees", { headers: { Authorization: `Bearer ${access_token}` } });
    expect(page.status).toBe(200);
    const body = (await page.json()) as { data: { id: string; first_name: string }[] };
    expect(body.data.map((e) => [e.id, e.first_name])).toEqual([[ada.id, "Ada"]]);

    await store.setApiEnabled(ORG, false);
    await store.setApiEnabled(ORG, true);
    const after = await call("/v1/employees", { headers: { Authorization: `Bearer ${access_token}` } });
    expect(after.status).toBe(401);
  });
});

describe("memory store imports beyond the contract", () => {
  test("reads during an import see the data as it was until the import resolves", async () => {
    const store = createMemoryStore();
    await store.createOrganisation({ id: ORG, name: "Acme Ltd", api_enabled: true, created_at: T0 });
    const ada = employee({ first_name: "Ada" });
    const seenInside = await store.runImport(async (w) => {
      await w.upsertEmployees(ORG, [ada], U[1]);
      return store.findEmployee(ORG, ada.id);
    });
    expect(seenInside).toBeNull();
    expect((await store.findEmployee(ORG, ada.id))?.first_name).toBe("Ada");
  });

  test("an import queued behind a failing one still runs", async () => {
    const store = createMemoryStore();
    await store.createOrganisation({ id: ORG, name: "Acme Ltd", api_enabled: true, created_at: T0 });
    const failing = store.runImport(async () => {
      throw new Error("bad file");
    });
    const next = store.runImport((w) => w.upsertEmployees(ORG, [employee()], U[1]));
    await expect(failing).rejects.toThrow("bad file");
    expect(await next).toEqual({ created: 1, updated: 0, unchanged: 0, deleted: 0 });
  });

  test("a closed store refuses an import as an unreachable database would", async () => {
    const store = createMemoryStore();
    await store.close();
    await expect(store.runImport(async () => "never")).rejects.toMatchObject({ name: "StoreUnavailableError" });
    await expect(store.createOrganisation({ id: ORG, name: "Acme Ltd", api_enabled: true, created_at: T0 })).rejects.toMatchObject({
      name: "StoreUnavailableError",
    });
  });
});
