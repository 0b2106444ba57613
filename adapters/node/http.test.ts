/**
 * The Node bridge (`leaveapi/node`) on a real `node:http` server (Bun's implementation here;
 * test/npm-pack.e2e.test.ts runs it on Node itself), with stand-in handlers so that what
 * the bridge hands over and writes back is seen exactly.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
// @ts-expect-error express ships no types and @types/express is no dev dependency: the parts used here are typed below.
import expressUntyped from "express";
import { connect, type AddressInfo } from "node:net";
import { toNodeListener, type NodeListenerOptions } from "./http.ts";
import { toNodeClientErrorListener } from "./client-error.ts";
import { createMemoryStore } from "../memory-store.ts";
import { createHandler, type Handler, type RequestInfo, type RequestLogEntry } from "../../server/handler.ts";

/** body-parser's middleware shape, which Express's parsers have. */
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
type ParserOptions = { type?: string; extended?: boolean };
const express = expressUntyped as {
  (): ((req: IncomingMessage, res: ServerResponse) => void) & { use(paths: string[], listener: Middleware): void };
  urlencoded(options?: ParserOptions): Middleware;
  json(options?: ParserOptions): Middleware;
  text(options?: ParserOptions): Middleware;
  raw(options?: ParserOptions): Middleware;
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Listens on a free port of 127.0.0.1; afterEach closes the server. */
async function listen(server: Server): Promise<{ base: string; port: number }> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, port };
}

function serve(handler: Handler, options?: NodeListenerOptions): Promise<{ base: string; port: number }> {
  return listen(createServer(toNodeListener(handler, options)));
}

/** What echoHandler saw. */
interface Echo {
  method: string;
  url: string;
  accept: string | null;
  custom: string | null;
  contentLength: string | null;
  contentEncoding: string | null;
  body: string | null;
  remoteAddress: string | null;
}

/** Records what the handler was given and answers with it as JSON. */
function echoHandler(): Handler {
  return async (req: Request, info?: RequestInfo) =>
    Response.json({
      method: req.method,
      url: req.url,
      accept: req.headers.get("accept"),
      custom: req.headers.get("x-custom"),
      contentLength: req.headers.get("content-length"),
      contentEncoding: req.headers.get("content-encoding"),
      body: req.method === "GET" ? null : await req.text(),
      remoteAddress: info?.remoteAddress ?? null,
    } satisfies Echo);
}

/** Sends raw bytes and returns everything the server wrote back before closing. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

/** Status, lower-cased head and body (de-chunked) of a raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = raw.slice(0, split).split("\r\n");
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  let body = raw.slice(split + 4);
  if (headers.get("transfer-encoding") === "chunked") body = body.replace(/^[0-9a-f]+\r\n/, "").replace(/\r\n0\r\n\r\n$/, "");
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

const USUAL_HEADERS = (requestId: string) => ({
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-request-id": requestId,
});

function usualHeaders(headers: Map<string, string>): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(USUAL_HEADERS("")).map((name) => [name, headers.get(name)]));
}

describe("toNodeListener", () => {
  test("hands the handler the method, the full URL from Host, the headers, the body and the socket address", async () => {
    const { base } = await serve(echoHandler());
    const res = await fetch(`${base}/hr-api//v1/x?a=1&b=%20`, {
      method: "POST",
      headers: { Accept: "application/json", "X-Custom": "one" },
      body: "grant_type=client_credentials",
    });
    const seen = (await res.json()) as Record<string, string | null>;
    expect(seen).toMatchObject({
      method: "POST",
      url: `${base}/hr-api//v1/x?a=1&b=%20`,
      accept: "application/json",
      custom: "one",
      body: "grant_type=client_credentials",
    });
    expect(seen.remoteAddress).toMatch(/127\.0\.0\.1$/);
  });

  test('under Express\'s app.use("/hr-api", …) hands over the path before Express stripped the mount point', async () => {
    const app = express();
    app.use(["/hr-api", "/.well-known/oauth-authorization-server/hr-api"], toNodeListener(echoHandler()));
    const { base } = await listen(createServer(app));
    const seen = async (path: string) => ((await (await fetch(base + path)).json()) as { url: string }).url;
    expect(await seen("/hr-api/v1/employees?x=1")).toBe(`${base}/hr-api/v1/employees?x=1`);
    expect(await seen("/hr-api")).toBe(`${base}/hr-api`);
    expect(await seen("/.well-known/oauth-authorization-server/hr-api")).toBe(`${base}/.well-known/oauth-authorization-server/hr-api`);
  });

  describe('after a body parser that already read the body (docs/embedding.md, "Body parsers")', () => {
    const FORM = "grant_type=client_credentials&scope=employees%3Aread+leave%3Aread&scope=a%26b";
    const FORM_FIELDS: [string, string][] = [
      ["grant_type", "client_credentials"],
      ["scope", "employees:read leave:read"],
      ["scope", "a&b"],
    ];
    const FORM_TYPE = "application/x-www-form-urlencoded";
    /** Reads the body and keeps nothing of it. */
    const swallow: Middleware = (req, _res, next) => void req.resume().once("end", next);

    /** A node:http server that runs `middleware` (body-parser's shape) before the bridge, as Express would. */
    async function behind(middleware: Middleware, handler: Handler = echoHandler()) {
      const listener = toNodeListener(handler);
      return listen(createServer((req, res) => middleware(req, res, (error) => (error ? res.writeHead(599).end() : listener(req, res)))));
    }

    test.each([
      ["express.urlencoded()", express.urlencoded()],
      ["express.urlencoded({ extended: true })", express.urlencoded({ extended: true })],
      ["express.text() for forms", express.text({ type: FORM_TYPE })],
      ["express.raw() for forms", express.raw({ type: FORM_TYPE })],
      ["express.json(), which leaves a form alone", express.json()],
    ])("%s: the handler gets the form that was sent, and a Content-Length that counts it", async (_, parser) => {
      const { base } = await behind(parser);
      const seen = (await (await fetch(`${base}/v1/oauth/token`, { method: "POST", headers: { "Content-Type": FORM_TYPE }, body: FORM })).json()) as Echo;
      expect([...new URLSearchParams(seen.body!)]).toEqual(FORM_FIELDS);
      expect(seen.contentLength).toBe(String(new TextEncoder().encode(seen.body!).byteLength));
    });

    test("a compressed form comes through as the parser inflated it, without its Content-Encoding", async () => {
      const { base } = await behind(express.urlencoded());
      const res = await fetch(`${base}/v1/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": FORM_TYPE, "Content-Encoding": "gzip" },
        body: gzipSync(FORM),
      });
      const seen = (await res.json()) as Echo;
      expect([...new URLSearchParams(seen.body!)]).toEqual(FORM_FIELDS);
      expect(seen.contentEncoding).toBeNull();
    });

    test("a form it cannot rebuild (nested fields, or nothing left) gets the JSON 500 that names the fix, before the handler", async () => {
      let called = 0;
      const counting: Handler = async () => (called++, new Response("handled"));
      const nested = "grant_type=client_credentials&a[b]=c";
      for (const middleware of [express.urlencoded({ extended: true }), swallow]) {
        const { port } = await behind(middleware, counting);
        const head = `POST /v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: ${FORM_TYPE}\r\nContent-Length: ${nested.length}\r\nX-Request-Id: bp-1\r\n`;
        const answer = parseAnswer(await rawRequest(port, `${head}Connection: close\r\n\r\n${nested}`));
        expect({ status: answer.status, headers: usualHeaders(answer.headers) }).toEqual({ status: 500, headers: USUAL_HEADERS("bp-1") });
        const body = JSON.parse(answer.body) as { error: string; error_description: string };
        expect(body.error).toBe("server_error");
        expect(body.error_description).toContain("mount leaveapi before any body parser");
        expect(body.error_description).toContain('docs/embedding.md, "Body parsers"');
      }
      expect(called).toBe(0);
    });

    test("a body that is not a form, or none, reaches the handler empty, without waiting", async () => {
      const { base } = await behind(swallow);
      const post = (headers: Record<string, string>, body?: string) =>
        fetch(`${base}/v1/oauth/token`, { method: "POST", headers, body }).then((r) => r.json() as Promise<Echo>);
      expect(await post({ "Content-Type": "text/plain" }, "already read")).toMatchObject({ body: "", contentLength: null });
      expect(await post({ "Content-Type": FORM_TYPE })).toMatchObject({ body: "" });
      const json = await behind(express.json());
      const seen = (await (
        await fetch(`${json.base}/v1/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: '{"grant_type":"client_credentials"}',
        })
      ).json()) as Echo;
      expect(seen.body).toBe("");
    });
  });

  test("streams a large request body through", async () => {
    const { base } = await serve(echoHandler());
    const big = "x".repeat(1_000_000);
    const res = await fetch(`${base}/upload`, { method: "PUT", body: big });
    expect(((await res.json()) as { body: string }).body.length).toBe(big.length);
  });

  test("takes the address from the last X-Forwarded-For entry only with trustProxy", async () => {
    const headers = { "X-Forwarded-For": "6.6.6.6, 10.0.0.7" };
    const trusted = await serve(echoHandler(), { trustProxy: true });
    expect(((await (await fetch(trusted.base, { headers })).json()) as { remoteAddress: string }).remoteAddress).toBe("10.0.0.7");
    const untrusted = await serve(echoHandler());
    expect(((await (await fetch(untrusted.base, { headers })).json()) as { remoteAddress: string }).remoteAddress).toMatch(/127\.0\.0\.1$/);
  });

  test("writes back the status, every header with repeated Set-Cookie kept apart, and a streamed body", async () => {
    const { base } = await serve(async () => {
      const chunks = ["first,", "second,", "third"];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      });
      const headers = new Headers({ "Content-Type": "text/plain", "X-Request-Id": "abc" });
      headers.append("Set-Cookie", "a=1; Path=/");
      headers.append("Set-Cookie", "b=2; Path=/");
      return new Response(body, { status: 207, headers });
    });
    const res = await fetch(base);
    expect(res.status).toBe(207);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(res.headers.get("x-request-id")).toBe("abc");
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(await res.text()).toBe("first,second,third");
  });

  test("streams a response larger than the socket's buffer whole, waiting for it to drain", async () => {
    const chunk = new Uint8Array(64 * 1024).map((_, i) => i % 251);
    let sent = 0;
    const { base } = await serve(async () => new Response(new ReadableStream<Uint8Array>({ pull: (c) => (sent++ < 128 ? c.enqueue(chunk) : c.close()) })));
    const received = new Uint8Array(await (await fetch(base)).arrayBuffer());
    expect(received.length).toBe(128 * chunk.length);
    expect(received.subarray(127 * chunk.length)).toEqual(chunk);
  });

  test("sends no body to HEAD, keeping the headers", async () => {
    const { port } = await serve(async () => new Response("a body HEAD must not get", { headers: { "X-Kept": "yes" } }));
    const answer = await rawRequest(port, "HEAD / HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer.toLowerCase()).toContain("x-kept: yes");
    expect(answer.endsWith("\r\n\r\n")).toBe(true);
  });

  test("refuses a Host or target that makes no URL with the JSON 400 and the usual headers, before the handler", async () => {
    let called = 0;
    const { port } = await serve(async () => (called++, new Response("handled")));
    const heads = [
      ...["evil.test/x", "evil.test?x", "evil.test#x", "user@evil.test", "a b", "a:99999", "[::1", "%zz", "", "a%20b"].map(
        (host) => `GET /v1/employees HTTP/1.1\r\nHost: ${host}\r\n`,
      ),
      "GET /v1/employees HTTP/1.1\r\nHost: a\r\nHost: b\r\n",
    ];
    for (const head of heads) {
      const answer = parseAnswer(await rawRequest(port, `${head}X-Request-Id: edge-1\r\nConnection: close\r\n\r\n`));
      expect({ head, status: answer.status, headers: usualHeaders(answer.headers) }).toEqual({ head, status: 400, headers: USUAL_HEADERS("edge-1") });
      expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_request" });
    }
    expect(called).toBe(0);
    const ok = await rawRequest(port, "GET /v1/employees HTTP/1.1\r\nHost: api.example.test:8443\r\nConnection: close\r\n\r\n");
    expect(ok).toStartWith("HTTP/1.1 200");
  });

  test("an absolute-form target gives the handler its path and query, with the Host header's authority", async () => {
    const { port } = await serve(echoHandler());
    const answer = parseAnswer(await rawRequest(port, "GET http://elsewhere.test/v1/employees?a=1 HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n"));
    expect(JSON.parse(answer.body)).toMatchObject({ url: "http://api.test/v1/employees?a=1" });
  });

  test("aborts the request's signal when the client goes away mid-response", async () => {
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
    const { base } = await serve(async (req) => {
      req.signal.addEventListener("abort", () => aborted());
      // A body that never ends: only the client leaving can finish this request.
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("partial")) }));
    });
    const client = new AbortController();
    const res = await fetch(base, { signal: client.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("partial");
    client.abort();
    await sawAbort;
  });
});

describe("toNodeClientErrorListener", () => {
  async function serveWithClientErrors(): Promise<{ port: number; entries: RequestLogEntry[] }> {
    const entries: RequestLogEntry[] = [];
    const handler = createHandler({ store: createMemoryStore(), log: (entry) => entries.push(entry) });
    const server = createServer(toNodeListener(handler));
    server.on("clientError", toNodeClientErrorListener(handler));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { port: (server.address() as AddressInfo).port, entries };
  }

  test("a method the parser does not know (FOO, get, BREW) gets the handler's 405 with Allow, not a closed connection", async () => {
    const { port, entries } = await serveWithClientErrors();
    for (const [method, path, allow] of [
      ["FOO", "/v1/employees", "GET, HEAD"],
      ["get", "/healthz", "GET, HEAD"],
      ["BREW", "/v1/oauth/token", "POST"],
    ] as const) {
      const answer = parseAnswer(await rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: m-1\r\n\r\n`));
      expect({ method, status: answer.status, allow: answer.headers.get("allow"), headers: usualHeaders(answer.headers) }).toEqual({
        method,
        status: 405,
        allow,
        headers: USUAL_HEADERS("m-1"),
      });
      expect(JSON.parse(answer.body)).toMatchObject({ error: "method_not_allowed" });
    }
    expect(entries.map((e) => [e.method, e.status])).toEqual([
      ["FOO", 405],
      ["get", 405],
      ["BREW", 405],
    ]);
  });

  test("an unknown method still meets the earlier checks: credentials in the URL 400, unknown path 404, bad Host 400", async () => {
    const { port } = await serveWithClientErrors();
    const statusOf = async (head: string) => parseAnswer(await rawRequest(port, `${head}\r\n\r\n`)).status;
    expect(await statusOf(`FOO /v1/employees?x=svct_${"A".repeat(43)} HTTP/1.1\r\nHost: x`)).toBe(400);
    expect(await statusOf("FOO /nowhere HTTP/1.1\r\nHost: x")).toBe(404);
    expect(await statusOf("FOO /healthz HTTP/1.1\r\nHost: a b")).toBe(400);
  });

  test("a head the parser cannot read gets the JSON 400, one too large the JSON 431, both with the usual headers", async () => {
    const { port } = await serveWithClientErrors();
    const broken = parseAnswer(await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: p-1\r\nBad Header: y\r\n\r\n"));
    expect({ status: broken.status, headers: usualHeaders(broken.headers) }).toEqual({ status: 400, headers: USUAL_HEADERS("p-1") });
    expect(JSON.parse(broken.body)).toMatchObject({ error: "invalid_request" });
    // Node hands "*" to the request listener, which answers it; Bun's node:http refuses it in the parser.
    const asterisk = parseAnswer(await rawRequest(port, "OPTIONS * HTTP/1.1\r\nHost: x\r\nX-Request-Id: p-2\r\n\r\n"));
    expect({ status: asterisk.status, headers: usualHeaders(asterisk.headers) }).toEqual({ status: 400, headers: USUAL_HEADERS("p-2") });
    const large = parseAnswer(await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${"p".repeat(20 * 1024)}\r\n\r\n`));
    expect(large.status).toBe(431);
    expect(JSON.parse(large.body)).toMatchObject({ error: "invalid_request" });
  });
});
