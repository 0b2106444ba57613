/**
 * What a request may cost on a real `leaveapi serve` (issue 8), over raw sockets so that
 * nothing between the test and the server fixes a request up: the 414 and 431 JSON
 * answers reach the client (Bun's own limit, 16 KiB of request head, is above ours); the
 * token endpoint's 4 KiB limit holds for a chunked body with no Content-Length; and
 * clients that stall are disconnected: an idle or stalled-mid-body connection after
 * `--idle-timeout`, a half-sent request head after Bun's own header timeout (about 10 s,
 * not configurable).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { startServer, type RunningServer } from "./cli-harness.ts";
import { provisionDatabase, type Provisioned } from "./serve-fixture.ts";

const IDLE_TIMEOUT_SECONDS = 2;
/** Bun checks its timeouts every 4 s, so a connection may outlive its timeout by that much. */
const TIMER_GRANULARITY_MS = 4000;
const MARGIN_MS = 2000;

let p: Provisioned;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  p = await provisionDatabase("limits.sqlite");
  server = await startServer(p.db, { serveArgs: ["--idle-timeout", String(IDLE_TIMEOUT_SECONDS)], env: { LOG_FORMAT: "json" } });
  port = Number(new URL(server.baseUrl).port);
}, 30_000);
afterAll(async () => {
  await server.stop();
  p.dispose();
});

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  received: string;
  /** Milliseconds from connecting to the server closing the connection. */
  closedAfterMs: number;
}

/** Writes `payload` on a fresh connection and waits for the server to close it (at most `limitMs`). */
function exchange(payload: string, limitMs = 30_000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1", () => socket.write(payload));
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${limitMs} ms`));
    }, limitMs);
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ received, closedAfterMs: performance.now() - started });
    });
    socket.on("error", () => {});
  });
}

function parse(raw: string): { status: number; headers: string; body: string } {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body };
}

const request = (target: string, headers = "") => `GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;

test("a 9 KiB URL is answered 414 with the JSON error body", async () => {
  const answer = parse((await exchange(request(`/v1/employees?x=${"a".repeat(9 * 1024)}`))).received);
  expect(answer.status).toBe(414);
  expect(answer.headers).toContain("content-type: application/json");
  expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_request" });
});

test("9 KiB of headers are answered 431 with the JSON error body", async () => {
  const answer = parse((await exchange(request("/healthz", `X-Pad: ${"p".repeat(9 * 1024)}\r\n`))).received);
  expect(answer.status).toBe(431);
  expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_request" });
});

test("a request head over Bun's 16 KiB is refused by Bun itself: 431, no body (documented in README)", async () => {
  const answer = parse((await exchange(request("/healthz", `X-Pad: ${"p".repeat(17 * 1024)}\r\n`))).received);
  expect(answer.status).toBe(431);
  expect(answer.body).toBe("");
});

test("a chunked token request body over 4 KiB is answered 413, whatever Content-Length does not say", async () => {
  const chunk = `grant_type=client_credentials&pad=${"x".repeat(5000)}`;
  const head =
    "POST /v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
  const answer = parse((await exchange(`${head}${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`)).received);
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body.replace(/^[0-9a-f]+\r\n|\r\n0\r\n$/g, ""))).toMatchObject({ error: "invalid_request" });
});

test("slow and half-open clients are disconnected; a body that stalls is logged as a 400, not a 500", async () => {
  const idleLimit = IDLE_TIMEOUT_SECONDS * 1000 + TIMER_GRANULARITY_MS + MARGIN_MS;
  const [idle, stalledBody, halfHead] = await Promise.all([
    // A finished request on a kept-alive connection, then silence.
    exchange("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
    exchange("POST /v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type="),
    exchange("GET /v1/employees HTTP/1.1\r\nHost: x\r\n"),
  ]);
  expect(parse(idle.received).status).toBe(200);
  expect(idle.closedAfterMs).toBeLessThan(idleLimit);
  expect(stalledBody.closedAfterMs).toBeLessThan(idleLimit);
  expect(halfHead.received).toBe("");
  expect(halfHead.closedAfterMs).toBeLessThan(10_000 + TIMER_GRANULARITY_MS + MARGIN_MS);
  const log = server
    .output()
    .split("\n")
    .filter((line) => line.includes('"route":"/v1/oauth/token"'));
  const statuses = log.map((line) => (JSON.parse(line) as { status: number }).status);
  expect(statuses).toContain(400);
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
}, 30_000);
