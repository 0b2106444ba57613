/**
 * The handler mounted through Bun.serve's `routes`, whose Requests carry a read-only
 * `params`: the handler must not write onto the Request it is given (docs/embedding.md).
 */
import { afterAll, expect, test } from "bun:test";
import { createMemoryStore } from "../memory-store.ts";
import { createHandler } from "../../server/handler.ts";

const handler = createHandler({ store: createMemoryStore(), basePath: "/hr-api" });
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  routes: {
    "/hr-api/*": (req, server) => handler(req, { remoteAddress: server.requestIP(req)?.address }),
    "/hr-api/v1/employees/:id": (req, server) => handler(req, { remoteAddress: server.requestIP(req)?.address }),
  },
  fetch: () => new Response("host", { status: 404 }),
});
afterAll(() => server.stop(true));

test("a catch-all route reaches every endpoint", async () => {
  const health = await fetch(`${server.url}hr-api/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: "ok" });
  const employees = await fetch(`${server.url}hr-api/v1/employees`);
  expect(employees.status).toBe(401);
  expect(((await employees.json()) as { error: string }).error).toBe("invalid_token");
});

test("a route with parameters (a read-only params object) gets the API's answer, not a 500", async () => {
  const res = await fetch(`${server.url}hr-api/v1/employees/0b7c9a52-3c1e-4f6a-9d2b-6e8f0a1b2c3d`);
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
});
