/**
 * The OpenAPI document: generated from the valibot schemas, committed as openapi.json and
 * current, a well-formed 3.1 document that matches the handler's routes, served with the
 * request's origin as its server, and whose schemas accept what the handler really answers
 * (validated with Ajv, JSON Schema draft 2020-12). Every other handler-level test checks its
 * answers against it too (test/openapi-conformance.ts, wired into createWorld).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import * as v from "valibot";
import { employeeIdPathSchema, employeesQuerySchema, holidaysQuerySchema, leaveQuerySchema } from "../lib/request-params.ts";
import { openApiDocument, renderOpenApiJson } from "../server/openapi.ts";
import { methodsOf } from "../server/route-types.ts";
import { ROUTES as ROUTE_TABLE } from "../server/routes.ts";
import { assertChecksDocumented } from "../server/openapi-schemas.ts";
import { aClosureDayInput } from "../testing/record-builders.ts";
import { basicHeader, authorisedOrganisation, booking, createClient, createOrganisation, createWorld, employee, seed } from "./support.ts";

/** Every route the handler serves, from its route table, with the methods it documents (HEAD is implied by GET). */
const ROUTES: Record<string, string[]> = Object.fromEntries(
  ROUTE_TABLE.map((route) => [
    route.path,
    methodsOf(route)
      .filter((m) => m !== "HEAD")
      .map((m) => m.toLowerCase()),
  ]),
);
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
  const keys = ref
    .slice(2)
    .split("/")
    .map((k) => k.replaceAll("~1", "/").replaceAll("~0", "~"));
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
    expect(security("/v1/deletions")).toEqual([{ oauth2: ["employees:read"] }, { oauth2: ["leave:read"] }]);
    expect(security("/v1/oauth/token", "post")).toEqual([{ httpBasic: [] }, {}]);
    for (const path of ["/healthz", "/v1/openapi.json", "/.well-known/oauth-authorization-server", "/docs", "/docs/api-reference.js"]) {
      expect(security(path)).toEqual([]);
    }
  });

  test("every JSON or form body has an example, and it matches its schema", () => {
    let checked = 0;
    for (const { op } of operations()) {
      const bodies = [at(op, "requestBody"), ...Object.values(op.responses as object).map((r: Json) => r)];
      for (const body of bodies) {
        const resolved = typeof at(body, "$ref") === "string" ? resolvePointer(at(body, "$ref") as string) : body;
        const content = at(resolved, "content");
        if (!content || typeof content !== "object") continue;
        for (const [type, media] of Object.entries(content)) {
          // The reference page and its script are documents, not data: they have no example.
          if (type === "text/html" || type === "application/javascript") continue;
          expect(at(media, "example")).toBeDefined();
          expect(checkMedia(media, at(media, "example"))).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(25);
  });
});

describe("generated from the schemas", () => {
  test("the committed openapi.json is current (run `npm run openapi` after changing a schema)", () => {
    const committed = readFileSync(join(import.meta.dir, "../openapi.json"), "utf8");
    const fix = "run `npm run openapi` and commit openapi.json";
    expect({ current: committed === renderOpenApiJson(), fix }).toEqual({ current: true, fix });
  });

  test("every component is referenced from somewhere in the document", () => {
    const refs = new Set(collectRefs(doc));
    const components = doc.components as { [kind: string]: { [name: string]: Json } };
    for (const kind of ["schemas", "responses", "headers"]) {
      for (const name of Object.keys(components[kind]!))
        expect({ ref: `#/components/${kind}/${name}`, used: refs.has(`#/components/${kind}/${name}`) }).toEqual({
          ref: `#/components/${kind}/${name}`,
          used: true,
        });
    }
  });

  test("each endpoint's parameters are exactly those its valibot schema accepts, required as it requires them", () => {
    const params = (path: string) =>
      (at(doc, "paths", path, "get", "parameters") as { name: string; required: boolean; in: string }[])
        // Beside the query, each takes If-None-Match (docs/api.md, "Conditional reads").
        .filter((p) => p.in !== "header")
        .map((p) => [p.name, p.in, p.required]);
    const expected = (schema: v.ObjectSchema<v.ObjectEntries, undefined>) =>
      Object.entries(schema.entries).map(([name, entry]) => [name, "query", entry.type !== "optional"]);
    expect(params("/v1/employees")).toEqual(expected(employeesQuerySchema));
    expect(params("/v1/leave-requests")).toEqual(expected(leaveQuerySchema));
    expect(params("/v1/holidays")).toEqual(expected(holidaysQuerySchema));
    expect(params("/v1/employees/{id}")).toEqual([["id", "path", true]]);
    expect(
      params("/v1/leave-requests")
        .filter(([, , required]) => required)
        .map(([name]) => name),
    ).toEqual(["from", "to"]);
  });

  test("every parameter schema states its constraint: a pattern, format, enum or range", () => {
    for (const { op } of operations()) {
      for (const param of (op.parameters ?? []) as { [key: string]: Json }[]) {
        const schema = param.schema as { [key: string]: Json };
        const constrained = ["pattern", "format", "enum", "minimum", "maximum"].some((k) => k in schema);
        expect({ name: param.name, constrained }).toEqual({ name: param.name, constrained: true });
      }
    }
  });

  test("a parameter's documented schema accepts exactly what its valibot schema accepts", () => {
    const paramSchema = (path: string, name: string) =>
      ajv.compile((at(doc, "paths", path, "get", "parameters") as { name: string; schema: object }[]).find((p) => p.name === name)!.schema);
    const samples: [string, string, v.GenericSchema, string[]][] = [
      ["/v1/employees", "limit", employeesQuerySchema.entries.limit, ["1", "100", "500", "0", "501", "-1", "1.5", "ten"]],
      ["/v1/employees", "status", employeesQuerySchema.entries.status, ["active", "on_leave", "Active", "x".repeat(31), ""]],
      ["/v1/employees", "cursor", employeesQuerySchema.entries.cursor, ["abc_-9", "a b", "", "a".repeat(1025)]],
      ["/v1/leave-requests", "from", leaveQuerySchema.entries.from, ["2026-03-01", "2024-02-29", "2026-02-30", "2026-3-1", "20260301"]],
      [
        "/v1/leave-requests",
        "employee_id",
        leaveQuerySchema.entries.employee_id,
        ["3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81", "3F2B8C1E-6A0D-4E8F-9B7A-2C4D5E6F7A81", "3f2b8c1e", "not-a-uuid"],
      ],
      ["/v1/leave-requests", "status", leaveQuerySchema.entries.status, ["approved", "cancellation_requested", "APPROVED", "sick"]],
      ["/v1/holidays", "calendar", holidaysQuerySchema.entries.calendar, ["GB", "GB-ENG", "gb", "GB-", "GBR"]],
      ["/v1/employees/{id}", "id", employeeIdPathSchema, ["3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81", "3f2b8c1e-6a0d-4e8f-9b7a", "x"]],
    ];
    for (const [path, name, schema, values] of samples) {
      const documented = paramSchema(path, name);
      for (const value of values) {
        // The document describes the decoded value: a number for limit, the string for the rest.
        const asDocumented = name === "limit" && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
        expect({ name, value, documented: documented(asDocumented) }).toEqual({ name, value, documented: v.safeParse(schema, value).success });
      }
    }
  });

  test("the generator refuses a v.check() whose pipe does not state the constraint as metadata", () => {
    const undocumented = v.object({
      code: v.pipe(
        v.string(),
        v.check((s) => s.length === 3),
      ),
    });
    expect(() => assertChecksDocumented(undocumented, "GET /x")).toThrow("GET /x.code: a v.check() has no JSON Schema form");
    const documented = v.object({
      code: v.pipe(
        v.string(),
        v.check((s) => s.length === 3),
        v.metadata({ minLength: 3, maxLength: 3 }),
      ),
    });
    expect(() => assertChecksDocumented(documented, "GET /x")).not.toThrow();
  });
});

describe("document against the handler", () => {
  test("each documented method is routed, and other methods get 405 with the documented Allow", async () => {
    const world = await createWorld();
    for (const [path, methods] of Object.entries(ROUTES)) {
      const concrete = path.replace(/\{\w+\}/g, SOME_ID);
      for (const method of methods) {
        const res = await world.call(concrete, { method: method.toUpperCase() });
        expect({ path, method, routed: ![404, 405].includes(res.status) }).toEqual({ path, method, routed: true });
      }
      const wrong = await world.call(concrete, { method: "DELETE" });
      expect(wrong.status).toBe(405);
      const allowed = wrong.headers
        .get("allow")!
        .split(", ")
        .filter((m) => m !== "HEAD");
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
        booking(grace.id, {
          start_half_day: true,
          start_half_period: "pm",
          days: 4.5,
          status: "cancelled",
          reviewed_at: Date.parse("2026-02-02T08:00:00Z"),
          cancelled_at: Date.parse("2026-02-03T08:00:00Z"),
        }),
      ],
      closures: [
        aClosureDayInput({ date: "2026-03-03", name: "Ops offsite", applies_to: "department", department: "Ops", deducts_from_leave: true }),
        aClosureDayInput({ date: "2026-04-07", name: "Office closed", applies_to: "all", deducts_from_leave: false }),
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
