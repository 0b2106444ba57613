/**
 * The Bun front of `leaveapi serve` when something goes wrong outside the handler (issue
 * 12): Bun.serve never runs in its development mode, whatever NODE_ENV says, and an
 * error that escapes gets the project's JSON 500 with the usual headers, logged without
 * the URL. The same server over raw sockets, as a child process: test/fuzz-socket.e2e.test.ts.
 */
import { afterEach, expect, test } from "bun:test";
import type { Server } from "bun";
import { listen } from "../adapters/bun/serve.ts";
import { createApiFetch, createMetricsFetch } from "../scripts/serve/front.ts";
import { createMetrics } from "../scripts/serve/metrics.ts";
import type { RequestLogEntry } from "../server/handler.ts";
import { exchange } from "./socket-fuzz.ts";

const SECRET = `svcs_${"S".repeat(43)}`;
const servers: Server<undefined>[] = [];
const savedNodeEnv = process.env.NODE_ENV;
afterEach(async () => {
  process.env.NODE_ENV = savedNodeEnv;
  await Promise.all(servers.splice(0).map((s) => s.stop(true)));
});

/** Sends one request (that asks for the connection to be closed) and returns everything the server wrote back. */
async function rawRequest(port: number, text: string): Promise<string> {
  return new TextDecoder("latin1").decode(await exchange(port, new TextEncoder().encode(text), 10_000));
}

function expectJson500(raw: string): void {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  expect(head).toStartWith("HTTP/1.1 500");
  const lower = head.toLowerCase();
  for (const header of ["content-type: application/json", "cache-control: no-store", "x-content-type-options: nosniff"]) expect(lower).toContain(header);
  expect(lower).toMatch(/x-request-id: [0-9a-f-]{36}/);
  expect(JSON.parse(body)).toEqual({ error: "server_error", error_description: expect.any(String) });
}

const throwing = (req: Request): Promise<Response> => {
  throw new TypeError(`Invalid URL input: ${req.url}`);
};

test("Bun.serve runs without its development mode even when NODE_ENV=development, and an error escaping fetch gets the JSON 500", async () => {
  process.env.NODE_ENV = "development";
  const logged: RequestLogEntry[] = [];
  const server = listen({ hostname: "127.0.0.1", port: 0, reusePort: false, fetch: throwing, logUnexpected: (entry) => logged.push(entry) });
  servers.push(server);
  expect(server.development).toBe(false);
  const raw = await rawRequest(server.port!, `GET /v1/employees?client_secret=${SECRET} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expectJson500(raw);
  expect(raw).not.toContain("<html");
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ level: "error", status: 500, route: "[unexpected error]" });
  expect(JSON.stringify(logged)).not.toContain(SECRET);
  expect(raw.toLowerCase()).toContain(`x-request-id: ${logged[0]!.request_id}`);
});

test("the API and metrics fetch functions answer what they throw themselves: the JSON 500, logged without the URL", async () => {
  const logged: RequestLogEntry[] = [];
  const log = (entry: RequestLogEntry) => logged.push(entry);
  const metrics = createMetrics();
  const api = createApiFetch({ handler: throwing, metrics, metricsHere: true, trustProxy: false, log });
  const apiServer = listen({ hostname: "127.0.0.1", port: 0, reusePort: false, fetch: api, logUnexpected: () => expect.unreachable("Bun's error callback") });
  servers.push(apiServer);
  expectJson500(await rawRequest(apiServer.port!, `GET /v1/x?access_token=${SECRET} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
  expect(logged.map((e) => [e.status, e.route])).toEqual([[500, "[unexpected error]"]]);
  expect(logged[0]!.error).toStartWith("TypeError: Invalid URL input: [redacted]");

  // A Host that makes no URL reaches neither `new URL` nor the handler on the metrics address: 400.
  const metricsServer = listen({ hostname: "127.0.0.1", port: 0, reusePort: false, fetch: createMetricsFetch(metrics, log) });
  servers.push(metricsServer);
  const bad = await rawRequest(metricsServer.port!, "GET /metrics HTTP/1.1\r\nHost: a:99999\r\nConnection: close\r\n\r\n");
  expect(bad).toStartWith("HTTP/1.1 400");
  expect(JSON.parse(bad.split("\r\n\r\n")[1]!)).toMatchObject({ error: "invalid_request" });
});
