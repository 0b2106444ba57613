/**
 * The route table (server/routes.ts) and a route that needs an optional Store member: on a
 * store without it, that route answers the documented 501 once the token passed, and every
 * other route goes on answering (docs/embedding.md, "How the Store interface changes").
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { mintClient } from "../lib/credentials.ts";
import { RawJson } from "../lib/raw-json.ts";
import type { Store } from "../lib/store.ts";
import { dataRoute } from "../server/data-routes.ts";
import { handlerOf } from "../server/handler.ts";
import { json } from "../server/openapi-operations.ts";
import { ROUTES } from "../server/routes.ts";

const ORG = "0b6f3d1c-2a4e-4f6a-8b9c-0d1e2f3a4b5c";
const NOW = Date.parse("2026-03-01T09:30:00.000Z");

/** A data route that reads the Store's optional `dataVersion`. */
const versionRoute = dataRoute({
  path: "/v1/data-version",
  scopes: ["employees:read"],
  needs: "dataVersion",
  prepare:
    (call, { store }) =>
    async () =>
      RawJson.of({ data: await store.dataVersion!(call.organisationId) }, 1),
  doc: {
    operationId: "getDataVersion",
    tags: ["Service"],
    summary: "The data version",
    description: "",
    parameters: [],
    ok: { description: "It.", content: json("Health", { status: "ok" }) },
  },
});

async function serve(withDataVersion: boolean) {
  const memory = createMemoryStore(undefined, { now: () => NOW });
  await memory.createOrganisation({ id: ORG, name: "Acme", api_enabled: true, created_at: NOW });
  const { client, secret } = mintClient(ORG, ["employees:read"], "test", NOW);
  await memory.createClient(client);
  const { dataVersion: _left, ...older } = memory;
  const store: Store = withDataVersion ? memory : older;
  const handler = handlerOf({ store, now: () => NOW }, [...ROUTES, versionRoute]);
  const tokenAnswer = await handler(
    new Request("http://api.test/v1/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` },
      body: "grant_type=client_credentials",
    }),
  );
  const { access_token } = (await tokenAnswer.json()) as { access_token: string };
  const get = (path: string, token: string | null = access_token) =>
    handler(new Request(`http://api.test${path}`, { headers: token === null ? {} : { Authorization: `Bearer ${token}` } }));
  return { get };
}

describe("a route that needs an optional Store member", () => {
  test("answers from a store that has it", async () => {
    const { get } = await serve(true);
    const res = await get("/v1/data-version");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual(expect.any(String));
  });

  test("is 501 on a store without it, after authentication; the other routes still answer", async () => {
    const { get } = await serve(false);
    expect((await get("/v1/data-version", null)).status).toBe(401);
    const res = await get("/v1/data-version");
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 501,
      body: { error: "server_error", error_description: "This endpoint is not available on this server: its data store does not provide what it reads." },
    });
    expect((await get("/v1/employees")).status).toBe(200);
  });

  test("documents the 501; a route documents one exactly when it needs an optional Store member", () => {
    const responses = (operation: object) => Object.keys((operation as { responses: object }).responses);
    expect(responses(versionRoute.operation)).toContain("501");
    for (const route of ROUTES) {
      const needs = route.kind === "data" && route.needs !== undefined;
      expect({ path: route.path, documents501: responses(route.operation).includes("501") }).toEqual({ path: route.path, documents501: needs });
    }
  });
});

test("each path is in the table once", () => {
  expect(new Set(ROUTES.map((r) => r.path)).size).toBe(ROUTES.length);
});

test("a route with parameters that would answer another route's path is refused when the handler is made", () => {
  // Paths without parameters are found first (server/handler.ts), so such a table would answer differently than it reads.
  const catchAll = { ...versionRoute, path: "/v1/{resource}" };
  const store = createMemoryStore(undefined, { now: () => NOW });
  expect(() => handlerOf({ store }, [catchAll, ...ROUTES])).toThrow("Route /v1/{resource} also matches /v1/employees, which is answered by its own route");
  expect(() => handlerOf({ store, basePath: "/hr-api" }, [catchAll, ...ROUTES])).toThrow("also matches /hr-api/v1/employees");
});
