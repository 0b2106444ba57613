/**
 * Mounting under a prefix: `basePath: "/hr-api"` serves every endpoint below it and nothing
 * outside it, the links the API prints (RFC 8414 metadata, OpenAPI servers and tokenUrl)
 * carry the prefix, the metadata is also at its RFC 8414 §3.1 address
 * (`/.well-known/oauth-authorization-server/hr-api`), and the refusal of credentials in a
 * URL still comes before anything else.
 */
import { describe, expect, test } from "bun:test";
import { DOCS_PATH, DOCS_SCRIPT_PATH } from "../server/docs-page.ts";
import { createHandler, type HandlerOptions, type RequestLogEntry } from "../server/handler.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
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

describe("RFC 8414 §3.1 discovery under the prefix", () => {
  const INSERTED = `/.well-known/oauth-authorization-server${PREFIX}`;

  /**
   * The handler itself, beside the world's: the inserted address lies outside the server URL
   * that openapi.json describes, so the conformance check cannot judge it; the tests instead
   * compare it with the prefixed address, which that check does judge.
   */
  async function discoveryWorld(options: Partial<HandlerOptions> = {}) {
    const world = await createWorld({ basePath: PREFIX, ...options });
    const logged: RequestLogEntry[] = [];
    const handler = createHandler({ store: world.store, now: world.clock.now, basePath: PREFIX, ...options, log: (e) => logged.push(e) });
    const raw = (path: string, init: RequestInit = {}) => handler(new Request(BASE + path, init), { remoteAddress: "127.0.0.1" });
    return { world, raw, logged };
  }

  const headersOf = (res: Response) => [...res.headers].filter(([name]) => name !== "x-request-id");

  test("answers GET and HEAD with the very document and headers of the prefixed address", async () => {
    const { world, raw, logged } = await discoveryWorld();
    const prefixed = await world.call(`${PREFIX}/.well-known/oauth-authorization-server`);
    const inserted = await raw(INSERTED);
    expect(inserted.status).toBe(200);
    expect(headersOf(inserted)).toEqual(headersOf(prefixed));
    const body = (await inserted.json()) as Record<string, string>;
    expect(body).toEqual((await prefixed.json()) as Record<string, string>);
    expect(body.issuer).toBe(`${BASE}${PREFIX}`);
    expect(body.token_endpoint).toBe(`${BASE}${PREFIX}/v1/oauth/token`);
    expect(logged.map((e) => e.route)).toEqual([INSERTED]);

    const head = await raw(INSERTED, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(headersOf(head)).toEqual(headersOf(await world.call(`${PREFIX}/.well-known/oauth-authorization-server`, { method: "HEAD" })));
    expect(await head.text()).toBe("");
  });

  test("refuses other methods with the prefixed address's 405", async () => {
    const { world, raw } = await discoveryWorld();
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const prefixed = await world.call(`${PREFIX}/.well-known/oauth-authorization-server`, { method });
      const inserted = await raw(INSERTED, { method });
      expect({ method, status: inserted.status }).toEqual({ method, status: 405 });
      expect(headersOf(inserted)).toEqual(headersOf(prefixed));
      expect(await inserted.json()).toEqual(await prefixed.json());
    }
  });

  test("answers nothing else outside the prefix", async () => {
    const { raw } = await discoveryWorld();
    for (const path of [
      "/.well-known/oauth-authorization-server",
      `${INSERTED}/`,
      `${INSERTED}x`,
      `${INSERTED}/v1/employees`,
      `${INSERTED}/.well-known/oauth-authorization-server`,
      "/.well-known/oauth-authorization-server/hr",
      "/.well-known/oauth-authorization-server/other",
      `/.well-known/openid-configuration${PREFIX}`,
      `/.well-known${PREFIX}`,
      `/v1/oauth/token${PREFIX}`,
    ]) {
      const res = await raw(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const secret = await raw(`${INSERTED}?client_secret=x`);
    expect(secret.status).toBe(400);
  });

  test("without a basePath nothing changes", async () => {
    const world = await createWorld();
    expect((await world.call("/.well-known/oauth-authorization-server")).status).toBe(200);
    for (const path of [INSERTED, `/hr-api/.well-known/oauth-authorization-server`]) {
      expect({ path, status: (await world.call(path)).status }).toEqual({ path, status: 404 });
    }
  });

  test("with an issuer, also at the address its own path gives, for a proxy that rewrites the prefix", async () => {
    const issuer = "https://api.example.com/public/hr";
    const { raw } = await discoveryWorld({ issuer });
    for (const path of [INSERTED, "/.well-known/oauth-authorization-server/public/hr"]) {
      const res = await raw(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(((await res.json()) as Record<string, string>).issuer).toBe(issuer);
    }
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-authorization-server/public",
      "/public/hr/.well-known/oauth-authorization-server",
    ]) {
      expect({ path, status: (await raw(path)).status }).toEqual({ path, status: 404 });
    }
  });

  test("an issuer's terminating slash is dropped (RFC 8414 §3.1), and an issuer at the root adds no address", async () => {
    const trailing = await discoveryWorld({ issuer: "https://api.example.com/public/hr/" });
    expect((await trailing.raw("/.well-known/oauth-authorization-server/public/hr")).status).toBe(200);
    const root = await discoveryWorld({ issuer: "https://api.example.com/" });
    expect((await root.raw(INSERTED)).status).toBe(200);
    expect((await root.raw("/.well-known/oauth-authorization-server")).status).toBe(404);
  });

  test("an issuer with a path and no basePath: a proxy that strips the prefix passes discovery through", async () => {
    const world = await createWorld();
    const handler = createHandler({ store: world.store, now: world.clock.now, issuer: "https://api.example.com/leave" });
    const res = await handler(new Request(`${BASE}/.well-known/oauth-authorization-server/leave`));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, string>).issuer).toBe("https://api.example.com/leave");
    expect((await handler(new Request(`${BASE}/.well-known/oauth-authorization-server`))).status).toBe(200);
  });
});
