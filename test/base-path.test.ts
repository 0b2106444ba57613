/**
 * Mounting under a prefix: `basePath: "/hr-api"` serves every endpoint below it and nothing
 * outside it, the links the API prints (RFC 8414 metadata, OpenAPI servers and tokenUrl)
 * carry the prefix, and the refusal of credentials in a URL still comes before anything else.
 */
import { describe, expect, test } from "bun:test";
import { DOCS_PATH, DOCS_SCRIPT_PATH } from "../server/docs-page.ts";
import { createHandler } from "../server/handler.ts";
import { openSqliteStore } from "../adapters/sqlite.ts";
import { BASE, basicHeader, booking, createClient, createOrganisation, createWorld, employee, seed, type TestWorld } from "./support.ts";

const PREFIX = "/hr-api";

async function tokenUnderPrefix(world: TestWorld) {
  const organisationId = await createOrganisation(world);
  const client = await createClient(world, organisationId);
  const res = await world.call(`${PREFIX}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(client.clientId, client.clientSecret) },
    body: "grant_type=client_credentials",
  });
  return { organisationId, res, body: (await res.json()) as Record<string, unknown> };
}

async function prefixedWorld() {
  const world = await createWorld({ basePath: PREFIX });
  const { organisationId, res, body } = await tokenUnderPrefix(world);
  const ada = employee();
  await seed(world, organisationId, { employees: [ada], bookings: [booking(ada.id)] });
  const get = (path: string, init: RequestInit = {}) =>
    world.call(path, { ...init, headers: { Authorization: `Bearer ${body.access_token as string}`, ...init.headers } });
  return { world, tokenResponse: res, ada, get };
}

describe("basePath", () => {
  test("is validated when the handler is created", async () => {
    const store = openSqliteStore({ filename: ":memory:" });
    for (const bad of ["hr-api", "/hr-api/", "/", "/hr?x=1", "/hr#x", "/a//b", "/a/../b", "/./a", "/hr api", "/hr:id", "/hr*", "/hr%20x"]) {
      expect(() => createHandler({ store, basePath: bad })).toThrow(/basePath must look like "\/hr-api"/);
    }
    for (const good of ["", "/hr-api", "/a/b.c/~d_e", "/v2"]) expect(typeof createHandler({ store, basePath: good })).toBe("function");
    await store.close();
  });

  test("serves every endpoint under the prefix", async () => {
    const { tokenResponse, ada, get } = await prefixedWorld();
    expect(tokenResponse.status).toBe(200);
    expect(tokenResponse.headers.get("Pragma")).toBe("no-cache");

    const employees = await get(`${PREFIX}/v1/employees`);
    expect(employees.status).toBe(200);
    expect(((await employees.json()) as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([ada.id]);
    const one = await get(`${PREFIX}/v1/employees/${ada.id}`);
    expect(((await one.json()) as { data: { id: string } }).data.id).toBe(ada.id);
    const leave = await get(`${PREFIX}/v1/leave-requests?from=2026-03-01&to=2026-03-31`);
    expect(((await leave.json()) as { data: { employee_id: string }[] }).data.map((b) => b.employee_id)).toEqual([ada.id]);
    const holidays = await get(`${PREFIX}/v1/holidays?from=2026-12-01&to=2026-12-31`);
    expect(holidays.status).toBe(200);
    expect(((await holidays.json()) as { data: { date: string }[] }).data.map((h) => h.date)).toContain("2026-12-25");
    for (const path of ["/healthz", "/v1/openapi.json", "/.well-known/oauth-authorization-server", DOCS_PATH, DOCS_SCRIPT_PATH]) {
      expect((await get(`${PREFIX}${path}`)).status).toBe(200);
    }
    expect((await get(`${PREFIX}/v1/employees`, { method: "HEAD" })).status).toBe(200);
  });

  test("keeps the usual answers for wrong methods, unknown paths and missing tokens under the prefix", async () => {
    const { world, get } = await prefixedWorld();
    const wrongMethod = await get(`${PREFIX}/v1/employees`, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("Allow")).toBe("GET, HEAD");
    expect((await world.call(`${PREFIX}/v1/employees`)).status).toBe(401);
    expect((await get(`${PREFIX}/v1/nothing-here`)).status).toBe(404);
  });

  test("answers 404 for everything outside the prefix", async () => {
    const { get } = await prefixedWorld();
    for (const path of [
      "/v1/employees",
      "/v1/oauth/token",
      "/healthz",
      "/.well-known/oauth-authorization-server",
      "/",
      "/hr",
      "/hr-apix/v1/employees",
      "/x/hr-api/v1/employees",
      PREFIX,
      `${PREFIX}/`,
      `${PREFIX}/v1/employees/`,
    ]) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(((await res.json()) as { error: string }).error).toBe("not_found");
    }
  });

  test("the metadata and the OpenAPI document print URLs under the prefix", async () => {
    const { get } = await prefixedWorld();
    const metadata = (await (await get(`${PREFIX}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
    expect(metadata.issuer).toBe(`${BASE}${PREFIX}`);
    expect(metadata.token_endpoint).toBe(`${BASE}${PREFIX}/v1/oauth/token`);
    const openapi = (await (await get(`${PREFIX}/v1/openapi.json`)).json()) as {
      servers: { url: string }[];
      components: { securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
    };
    expect(openapi.servers).toEqual([{ url: `${BASE}${PREFIX}` }]);
    expect(openapi.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(`${BASE}${PREFIX}/v1/oauth/token`);
  });

  test("a configured issuer is the whole public base URL, used as given", async () => {
    const world = await createWorld({ basePath: PREFIX, issuer: "https://api.example.com/public/hr" });
    const metadata = (await (await world.call(`${PREFIX}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
    expect(metadata.issuer).toBe("https://api.example.com/public/hr");
    expect(metadata.token_endpoint).toBe("https://api.example.com/public/hr/v1/oauth/token");
  });

  test("refuses credentials in the URL first, inside the prefix or not", async () => {
    const { get } = await prefixedWorld();
    for (const path of ["/elsewhere?access_token=x", `${PREFIX}/v1/employees?client_secret=x`, `/v1/employees?access_token=x`]) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(((await res.json()) as { error: string }).error).toBe("invalid_request");
    }
    const token = await get(`${PREFIX}/v1/oauth/token?client_secret=x`, { method: "POST" });
    expect(token.status).toBe(400);
    expect(token.headers.get("Pragma")).toBe("no-cache");
  });
});
