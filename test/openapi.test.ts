/**
 * The OpenAPI document: a well-formed 3.1 document that matches the handler's routes, is
 * served with the request's origin as its server, and whose schemas accept what the
 * handler really answers (validated with Ajv, JSON Schema draft 2020-12).
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { openApiDocument } from "../server/openapi.ts";
import { basicHeader, authorisedOrganisation, booking, createClient, createOrganisation, createWorld, employee, seed } from "./support.ts";

/** Every route the handler serves, with the methods it documents (HEAD is implied by GET). */
const ROUTES: Record<string, string[]> = {
  "/v1/oauth/token": ["post"],
  "/v1/employees": ["get"],
  "/v1/employees/{id}": ["get"],
  "/v1/leave-requests": ["get"],
  "/v1/holidays": ["get"],
  "/healthz": ["get"],
  "/v1/openapi.json": ["get"],
  "/.well-known/oauth-authorization-server": ["get"],
};
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const SOME_ID = "3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** The document as plain JSON, as a client receives it. */
const doc = JSON.parse(JSON.stringify(openApiDocument)) as { [key: string]: Json };

function at(value: Json | undefined, ...keys: string[]): Json | undefined {
  for (const key of keys) {
    if (value === null || typeof value !== "object" || value === undefined) return undefined;
    value = Array.isArray(value) ? value[Number(key)] : value[key];
  }
  return value;
}

function resolvePointer(ref: string): Json | undefined {
  if (!ref.startsWith("#/")) return undefined;
  const keys = ref.slice(2).split("/").map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
  return at(doc, ...keys);
}

function collectRefs(value: Json, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value !== null && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

function operations(): { path: string; method: string; op: { [key: string]: Json } }[] {
  const paths = doc.paths as { [path: string]: { [method: string]: Json } };
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as { [key: string]: Json } })),
  );
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
// The document's own top-level fields are not schema keywords; strict mode stays on for the schemas.
ajv.addVocabulary(Object.keys(doc));
ajv.addSchema(doc, "openapi.json");

/** Validates `body` against a component schema; returns Ajv's errors so a failure shows them. */
function check(schemaName: string, body: unknown) {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${schemaName}`);
  if (!validate) throw new Error(`No schema ${schemaName}`);
  return validate(body) ? [] : (validate.errors ?? []);
}

/** Validates against the schema a media type in the document names (a $ref or inline). */
function checkMedia(media: Json | undefined, body: unknown) {
  const schema = at(media, "schema");
  const ref = at(schema, "$ref");
  if (typeof ref === "string") return check(ref.split("/").pop()!, body);
  const validate = ajv.compile(schema as object);
  return validate(body) ? [] : (validate.errors ?? []);
}

describe("document structure", () => {
  test("is OpenAPI 3.1.0 with info and the security schemes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(at(doc, "info", "title")).toBe("leaveapi");
    expect(at(doc, "info", "version")).toBe("1.0.0");
    expect(typeof at(doc, "info", "description")).toBe("string");
    expect(at(doc, "components", "securitySchemes", "oauth2", "flows", "clientCredentials")).toEqual({
      tokenUrl: "/v1/oauth/token",
      scopes: expect.objectContaining({ "employees:read": expect.any(String), "holidays:read": expect.any(String), "leave:read": expect.any(String) }),
    });
    expect(at(doc, "components", "securitySchemes", "httpBasic")).toMatchObject({ type: "http", scheme: "basic" });
  });

  test("documents exactly the routes the handler serves, with their methods", () => {
    const documented: Record<string, string[]> = {};
    for (const { path, method } of operations()) (documented[path] ??= []).push(method);
    expect(documented).toEqual(ROUTES);
  });

  test("every $ref resolves inside the document", () => {
    const refs = collectRefs(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect({ ref, found: resolvePointer(ref) !== undefined }).toEqual({ ref, found: true });
  });

  test("every operation has an operationId, a 2xx response and a security statement", () => {
    for (const { path, method, op } of operations()) {
      const codes = Object.keys(op.responses as object);
      expect({ path, method, has2xx: codes.some((c) => /^2\d\d$/.test(c)) }).toEqual({ path, method, has2xx: true });
      expect(typeof op.operationId).toBe("string");
      expect(Array.isArray(op.security)).toBe(true);
    }
  });

  test("each data endpoint requires its scope; the public documents require none", () => {
    const security = (path: string, method = "get") => at(doc, "paths", path, method, "security");
    expect(security("/v1/employees")).toEqual([{ oauth2: ["employees:read"] }]);
    expect(security("/v1/employees/{id}")).toEqual([{ oauth2: ["employees:read"] }]);
    expect(security("/v1/leave-requests")).toEqual([{ oauth2: ["leave:read"] }]);
    expect(security("/v1/holidays")).toEqual([{ oauth2: ["holidays:read"] }]);
    expect(security("/v1/oauth/token", "post")).toEqual([{ httpBasic: [] }, {}]);
    for (const path of ["/healthz", "/v1/openapi.json", "/.well-known/oauth-authorization-server"]) expect(security(path)).toEqual([]);
  });

  test("every example in a request body or response matches its schema", () => {
    let checked = 0;
    for (const { op } of operations()) {
      const bodies = [at(op, "requestBody"), ...Object.values(op.responses as object).map((r: Json) => r)];
      for (const body of bodies) {
        const resolved = typeof at(body, "$ref") === "string" ? resolvePointer(at(body, "$ref") as string) : body;
        const content = at(resolved, "content");
        if (!content || typeof content !== "object") continue;
        for (const media of Object.values(content)) {
          expect(checkMedia(media, at(media, "example"))).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(25);
  });
});

describe("document against the handler", () => {
  test("each documented method is routed, and other methods get 405 with the documented Allow", async () => {
    const world = await createWorld();
    for (const [path, methods] of Object.entries(ROUTES)) {
      const concrete = path.replace("{id}", SOME_ID);
      for (const method of methods) {
        const res = await world.call(concrete, { method: method.toUpperCase() });
        expect({ path, method, routed: ![404, 405].includes(res.status) }).toEqual({ path, method, routed: true });
      }
      const wrong = await world.call(concrete, { method: "DELETE" });
      expect(wrong.status).toBe(405);
      const allowed = wrong.headers.get("allow")!.split(", ").filter((m) => m !== "HEAD");
      expect(allowed).toEqual(methods.map((m) => m.toUpperCase()));
    }
  });

  test("is served at /v1/openapi.json with the request's origin as its server", async () => {
    const world = await createWorld();
    const res = await world.call("/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const served = (await res.json()) as {
      servers: { url: string }[];
      components: { schemas: Json; securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
    };
    expect(served.servers).toEqual([{ url: "http://leaveapi.test" }]);
    // The token URL is absolute, so it stays right when the API is mounted under a prefix.
    expect(served.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe("http://leaveapi.test/v1/oauth/token");
    expect({ ...served, servers: undefined, components: undefined }).toEqual({ ...doc, servers: undefined, components: undefined });
    expect(served.components.schemas).toEqual((doc.components as { schemas: Json }).schemas);

    const other = await world.handler(new Request("https://api.example.org:8443/v1/openapi.json"));
    expect(((await other.json()) as { servers: { url: string }[] }).servers[0]!.url).toBe("https://api.example.org:8443");
  });
});

describe("real responses match the schemas", () => {
  test("token, employees, one employee, leave, holidays, health and metadata", async () => {
    const world = await createWorld();
    const { organisationId, get } = await authorisedOrganisation(world);
    const ada = employee({ preferred_name: "Ada", leaving_date: "2026-12-31" });
    const grace = employee({ first_name: null, job_title: null, department: "Ops", start_date: null, holiday_calendar: "GB-SCT" });
    await seed(world, organisationId, {
      employees: [ada, grace],
      bookings: [
        booking(ada.id),
        booking(grace.id, { start_half_day: true, start_half_period: "pm", days: 4.5, status: "cancelled", reviewed_at: Date.parse("2026-02-02T08:00:00Z"), cancelled_at: Date.parse("2026-02-03T08:00:00Z") }),
      ],
      closures: [
        { id: crypto.randomUUID(), date: "2026-03-03", name: "Ops offsite", applies_to: "department", department: "Ops", location: null, deducts_from_leave: true },
        { id: crypto.randomUUID(), date: "2026-04-07", name: "Office closed", applies_to: "all", department: null, location: null, deducts_from_leave: false },
      ],
    });

    const client = await createClient(world, organisationId);
    const token = await world.call("/v1/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(client.clientId, client.clientSecret) },
      body: "grant_type=client_credentials&scope=holidays:read",
    });
    expect(token.status).toBe(200);
    expect(check("TokenResponse", await token.json())).toEqual([]);

    const firstPage = (await (await get("/v1/employees?limit=1")).json()) as { has_more: boolean; next_cursor: string };
    expect(firstPage.has_more).toBe(true);
    expect(check("EmployeePage", firstPage)).toEqual([]);
    const lastPage = await (await get(`/v1/employees?limit=1&cursor=${firstPage.next_cursor}`)).json();
    expect(check("EmployeePage", lastPage)).toEqual([]);

    for (const e of [ada, grace]) expect(check("EmployeeResponse", await (await get(`/v1/employees/${e.id.toUpperCase()}`)).json())).toEqual([]);

    const leave = (await (await get("/v1/leave-requests?from=2026-03-01&to=2026-03-31")).json()) as { data: unknown[] };
    expect(leave.data).toHaveLength(2);
    expect(check("LeaveBookingPage", leave)).toEqual([]);

    const holidays = (await (await get("/v1/holidays?from=2026-01-01&to=2026-12-31")).json()) as { data: { type: string; applies_to: string }[] };
    expect(new Set(holidays.data.map((h) => h.applies_to))).toEqual(new Set(["calendar", "all", "department"]));
    expect(check("HolidayList", holidays)).toEqual([]);

    expect(check("Health", await (await world.call("/healthz")).json())).toEqual([]);
    expect(check("AuthorizationServerMetadata", await (await world.call("/.well-known/oauth-authorization-server")).json())).toEqual([]);
  });

  test("error bodies of the token and data endpoints", async () => {
    const world = await createWorld();
    const { get } = await authorisedOrganisation(world, ["employees:read"]);
    const other = await createClient(world, await createOrganisation(world, "Other Ltd"));
    const answers = [
      await get("/v1/employees?limit=0"),
      await get("/v1/leave-requests?from=2026-01-01&to=2026-01-31"),
      await get(`/v1/employees/${SOME_ID}`),
      await world.call("/v1/holidays?from=2026-01-01&to=2026-01-31"),
      await world.call("/v1/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(other.clientId, "svcs_wrong") },
        body: "grant_type=client_credentials",
      }),
    ];
    expect(answers.map((r) => r.status)).toEqual([400, 403, 404, 401, 401]);
    for (const res of answers) expect(check("Error", await res.json())).toEqual([]);
  });
});
