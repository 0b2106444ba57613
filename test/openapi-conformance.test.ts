/**
 * The drift check itself (test/openapi-conformance.ts): it passes what the document
 * describes and names each way an answer departs from it, so the wrapper in createWorld
 * cannot quietly accept everything.
 */
import { describe, expect, test } from "bun:test";
import { anEmployeeJson } from "../testing/record-builders.ts";
import { conformToDocument, departuresFromDocument } from "./openapi-conformance.ts";

const BASE = "http://leaveapi.test";
const get = (path: string, method = "GET") => ({ method, url: BASE + path });
const SOME_ID = "3f2b8c1e-6a0d-4e8f-9b7a-2c4d5e6f7a81";
const HEADERS = { "Content-Type": "application/json", "X-Request-Id": "req-1" };
const answer = (status: number, body: unknown, headers: Record<string, string> = HEADERS) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
const employee = anEmployeeJson({ id: SOME_ID });
const notFound = { error: "not_found", error_description: "No employee with this id." };

describe("departuresFromDocument", () => {
  test("an answer the document describes has none, HEAD and a path template included", async () => {
    expect(await departuresFromDocument(get(`/v1/employees/${SOME_ID}`), answer(200, { data: employee }))).toEqual([]);
    expect(await departuresFromDocument(get(`/v1/employees/${SOME_ID}`, "HEAD"), answer(404, undefined))).toEqual([]);
    expect(await departuresFromDocument(get("/nowhere"), answer(404, { error: "not_found", error_description: "No resource exists at this path." }))).toEqual(
      [],
    );
    const allowed = answer(405, { error: "method_not_allowed", error_description: "This path answers only POST." }, { ...HEADERS, Allow: "POST" });
    expect(await departuresFromDocument(get("/v1/oauth/token", "DELETE"), allowed)).toEqual([]);
  });

  test("a status the operation does not list", async () => {
    expect(await departuresFromDocument(get("/v1/employees"), answer(404, notFound))).toEqual([
      "status 404 is not documented at /paths/~1v1~1employees/get/responses",
    ]);
    expect(await departuresFromDocument(get("/v1/employees", "DELETE"), answer(404, notFound))).toEqual([
      "status 404 is not documented at /x-unmatched-requests/otherMethod/responses",
    ]);
  });

  test("a body that breaks its schema: a field too many, a wrong type, a missing field", async () => {
    const [extra] = await departuresFromDocument(get(`/v1/employees/${SOME_ID}`), answer(200, { data: { ...employee, salary: 1 } }));
    expect(extra).toContain("must NOT have additional properties");
    const [wrong] = await departuresFromDocument(get(`/v1/employees/${SOME_ID}`), answer(200, { data: { ...employee, updated_at: 1 } }));
    expect(wrong).toContain("/data/updated_at must be string");
    const [missing] = await departuresFromDocument(get(`/v1/employees/${SOME_ID}`), answer(404, { error: "not_found" }));
    expect(missing).toContain("must have required property 'error_description'");
  });

  test("a missing required header, a bad header value, an undocumented content type, a body on HEAD", async () => {
    expect(await departuresFromDocument(get(`/v1/employees/${SOME_ID}`), answer(404, notFound, { "Content-Type": "application/json" }))).toEqual([
      "required header X-Request-Id is missing",
    ]);
    const badRetry = answer(503, { error: "temporarily_unavailable", error_description: "x" }, { ...HEADERS, "Retry-After": "soon" });
    expect((await departuresFromDocument(get("/healthz"), badRetry))[0]).toStartWith("header Retry-After: soon:");
    expect(await departuresFromDocument(get("/healthz"), new Response("ok", { headers: { "X-Request-Id": "r", "Content-Type": "text/plain" } }))).toEqual([
      "Content-Type text/plain is not documented (application/json)",
    ]);
    expect(await departuresFromDocument(get("/healthz", "HEAD"), answer(200, { status: "ok" }))).toEqual(["a HEAD answer has a body"]);
  });
});

describe("conformToDocument", () => {
  test("passes a conforming answer through, body unread; throws naming path, status and the departure", async () => {
    const good = conformToDocument(async () => answer(200, { data: employee }));
    expect(await (await good(new Request(`${BASE}/v1/employees/${SOME_ID}`))).json()).toEqual({ data: employee });
    const bad = conformToDocument(async () => answer(418, {}));
    await expect(bad(new Request(`${BASE}/v1/holidays`))).rejects.toThrow(
      "GET /v1/holidays answered 418, which does not match openapi.json:\n  status 418 is not documented at /paths/~1v1~1holidays/get/responses",
    );
  });

  test("under a base path, a path outside it is an unmatched request", async () => {
    const handler = conformToDocument(async () => answer(404, { error: "not_found", error_description: "No resource exists at this path." }), "/hr-api");
    expect((await handler(new Request(`${BASE}/v1/employees`))).status).toBe(404);
    const inside = conformToDocument(async () => answer(200, { status: "ok" }), "/hr-api");
    expect((await inside(new Request(`${BASE}/hr-api/healthz`))).status).toBe(200);
  });
});
