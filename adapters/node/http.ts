/**
 * The Node bridge: the one handler as a `node:http` request listener, so a plain Node
 * server, Express or Fastify can serve the API. It builds a web `Request` from the
 * IncomingMessage and writes the `Response` back, streaming both bodies.
 *
 *   import { createServer } from "node:http";
 *   createServer(toNodeListener(createHandler({ store, basePath: "/hr-api" }))).listen(8080);
 *
 * Express: `app.use("/hr-api", listener)` works with the same `basePath`, since Express's
 * `originalUrl` (the path before it stripped the mount point) is preferred over `url`.
 * Mount it before any body parser: the token endpoint reads the raw form body itself. A
 * body a parser already read is taken from `req.body` where it can be rebuilt, and answered
 * with a 500 naming the fix where it cannot (docs/embedding.md, "Body parsers").
 *
 * What Node's HTTP parser refuses never reaches a request listener: client-error.ts
 * answers it (`server.on("clientError", toNodeClientErrorListener(handler))`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { emitWarning } from "node:process";
import type { TLSSocket } from "node:tls";
import type { Handler } from "../../server/handler.ts";
import { clientAddress } from "../../server/client-address.ts";
import { errorResponse, finish, requestIdFor } from "../../server/responses.ts";
import { badHost, badTarget, isValidHost, parseUrl } from "../../server/request-target.ts";
import { ApiError } from "../../lib/errors.ts";
import { isFormContentType } from "../../lib/token-request.ts";

export interface NodeListenerOptions {
  /**
   * Take the client's address from the last X-Forwarded-For entry, for the per-address
   * limit on failed authentications. Only behind a proxy you run: clients can send the
   * header themselves. Default false: the socket's address.
   */
  trustProxy?: boolean;
}

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** `fetch`'s RequestInit as Node's undici needs it for a streamed body (not in the DOM types). */
type StreamingRequestInit = RequestInit & { duplex: "half" };

/**
 * The request body as a web stream, read only as fast as the handler pulls. When the
 * handler stops early (a token request over the size limit), the rest is read and dropped
 * rather than the socket destroyed, so the answer can still be sent.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  let onData: ((chunk: Uint8Array) => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      onData = (chunk) => {
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      };
      req.on("data", onData);
      req.once("end", () => open && controller.close());
      req.once("error", (error) => open && controller.error(error));
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      if (onData) req.off("data", onData);
      req.resume();
    },
  });
}

/** An IncomingMessage after a body parser (express.raw/text/urlencoded, body-parser) ran. */
type ParsedRequest = IncomingMessage & { body?: unknown };

const BODY_PARSER_FIX =
  "A body parser of the host application read this request's body before leaveapi, and left a form leaveapi cannot rebuild: " +
  'mount leaveapi before any body parser (docs/embedding.md, "Body parsers").';
let warnedOfBodyParser = false;

/** The 500 for a form body a parser consumed beyond repair; the server's log is told once where the fix is. */
function bodyAlreadyRead(): ApiError {
  if (!warnedOfBodyParser) {
    warnedOfBodyParser = true;
    emitWarning(BODY_PARSER_FIX, { code: "LEAVEAPI_BODY_ALREADY_READ" });
  }
  return new ApiError(500, "server_error", BODY_PARSER_FIX);
}

/** A parsed form (body-parser's `urlencoded`) as form text: only names with string values, or arrays of them, come back whole. */
function reencodeForm(parsed: unknown): string | null {
  if (typeof parsed !== "object" || parsed === null) return null;
  const prototype = Object.getPrototypeOf(parsed);
  if (prototype !== Object.prototype && prototype !== null) return null;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(parsed)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const one of values) {
      if (typeof one !== "string") return null;
      form.append(name, one);
    }
  }
  return form.toString();
}

/**
 * The body of a request whose stream something before the bridge already read, as bytes
 * from what it left in `req.body`: a Buffer (`express.raw`) or a string (`express.text`)
 * as it is, a flat parsed form (`express.urlencoded`) re-encoded. `null` when no body was
 * sent, or when it is not a form, the only body the API reads (docs/api.md, "POST
 * /v1/oauth/token"): the handler then answers as it would have. A form that cannot be rebuilt (none
 * left, nested fields) is the 500 naming the fix.
 */
function bodyLeftByParser(req: ParsedRequest, headers: Headers): Uint8Array<ArrayBuffer> | null | ApiError {
  const parsed = req.body;
  // A copy: a Buffer may be a view into Node's shared pool.
  if (parsed instanceof Uint8Array) return new Uint8Array(parsed);
  if (typeof parsed === "string") return new TextEncoder().encode(parsed);
  const sent = headers.has("transfer-encoding") || Number(headers.get("content-length") ?? "0") > 0;
  if (!sent || !isFormContentType(headers.get("content-type"))) return null;
  const form = reencodeForm(parsed);
  return form === null ? bodyAlreadyRead() : new TextEncoder().encode(form);
}

/**
 * The body to hand over: the stream itself while nobody has read it, else what a parser
 * left (with the headers made to describe those bytes, already decoded and counted anew).
 */
function requestBody(req: ParsedRequest, headers: Headers): ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null | ApiError {
  if (!req.readableEnded) return bodyStream(req);
  const body = bodyLeftByParser(req, headers);
  if (body instanceof ApiError) return body;
  for (const name of ["content-encoding", "transfer-encoding", "content-length"]) headers.delete(name);
  if (body !== null) headers.set("content-length", String(body.byteLength));
  return body;
}

/** The request's headers as a web Headers; a field a Headers cannot hold is left out. */
export function headersOf(rawHeaders: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // HTTP/2 pseudo-headers (":path", ":authority") are not headers a web Request may carry.
    if (name.startsWith(":")) continue;
    try {
      headers.append(name, rawHeaders[i + 1]!);
    } catch {
      // Only reached from clientError, whose fields no parser has checked.
    }
  }
  return headers;
}

/**
 * The URL of a request target with this Host (joined, like Headers does, when it was sent
 * twice), or the 400 it gets. Origin-form ("/path?query") is concatenated, never resolved,
 * so "//host/x" stays a path; absolute-form ("http://x/path") gives its path and query,
 * with the Host header's authority, as Bun.serve does. Anything else ("*", "x:443") makes
 * no URL.
 */
export function urlOf(target: string, host: string, scheme: string): URL | ApiError {
  let path: string | undefined;
  if (target.startsWith("/")) path = target;
  else if (/^https?:\/\//i.test(target)) {
    const absolute = parseUrl(target);
    if (absolute !== null) path = absolute.pathname + absolute.search;
  }
  if (path === undefined) return badTarget();
  // A Host holding "/", "?", "#", "@" or "\\" would move the path or the origin the handler sees.
  if (!isValidHost(host)) return badHost();
  return parseUrl(`${scheme}://${host}${path}`) ?? badHost();
}

/** Methods this runtime's Request keeps as they are; Bun's makes an unknown one GET, Node's refuses TRACE. */
const keptMethods = new Map<string, boolean>();

/**
 * A method the web Request can carry for `method`: itself when the runtime keeps it,
 * else GET. The handler decides by RequestInfo.method, the method as sent, so the
 * stand-in never answers for it; it only lets a Request exist.
 */
export function requestMethodFor(method: string): string {
  let kept = keptMethods.get(method);
  if (kept === undefined) {
    try {
      kept = new Request("http://localhost/", { method }).method === method;
    } catch {
      kept = false;
    }
    if (keptMethods.size < 64) keptMethods.set(method, kept);
  }
  return kept ? method : "GET";
}

interface BridgedRequest {
  request: Request;
  /** The method as the client sent it, for RequestInfo.method. */
  method: string;
}

/**
 * A web Request for `req`, or the 400 when its target or Host cannot make a URL, or the
 * 500 when a body parser left a form that cannot be rebuilt.
 */
function webRequest(req: IncomingMessage, signal: AbortSignal): BridgedRequest | ApiError {
  const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  const target = typeof original === "string" ? original : (req.url ?? "/");
  const scheme = (req.socket as Partial<TLSSocket>).encrypted ? "https" : "http";
  const headers = headersOf(req.rawHeaders);
  const host = headers.get("host") ?? `${req.socket.localAddress ?? "localhost"}:${req.socket.localPort ?? 80}`;
  const url = urlOf(target, host, scheme);
  if (url instanceof ApiError) return url;
  const method = req.method ?? "GET";
  const requestMethod = requestMethodFor(method);
  const init: StreamingRequestInit = { method: requestMethod, headers, signal, duplex: "half" };
  if (requestMethod !== "GET" && requestMethod !== "HEAD") {
    const body = requestBody(req, headers);
    if (body instanceof ApiError) return body;
    init.body = body;
  }
  return { request: new Request(url, init), method };
}

/** Status and headers as one flat [name, value, …] list, so repeated headers (Set-Cookie) stay apart. */
function headerList(response: Response): string[] {
  const list: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") list.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) list.push("set-cookie", cookie);
  return list;
}

/** Resolves when the socket can take more, or is gone; leaves no listener behind either way. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes the body chunk by chunk, waiting whenever the socket's buffer is full; stops if the client goes. */
async function writeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drainedOrClosed(res);
    }
  } finally {
    res.off("close", gone);
  }
  res.end();
}

const NO_BODY_STATUSES = new Set([204, 304]);

/** Writes a response: status, headers, and the body unless it is an answer to HEAD. */
async function send(res: ServerResponse, response: Response, isHead: boolean): Promise<void> {
  res.writeHead(response.status, headerList(response));
  if (response.body === null || isHead || NO_BODY_STATUSES.has(response.status)) {
    await response.body?.cancel();
    res.end();
    return;
  }
  await writeBody(response.body, res);
}

/**
 * Wraps the handler as a `(req, res) => void` listener for `http.createServer`. The URL is
 * built from the Host header and the socket (https when it is TLS); a request whose target
 * or Host makes no URL gets the handler's 400 `invalid_request`, with the headers every
 * answer carries. A client that disconnects aborts the Request's signal.
 */
export function toNodeListener(handler: Handler, options: NodeListenerOptions = {}): NodeListener {
  const trustProxy = options.trustProxy ?? false;
  return (req, res) => {
    const aborted = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const serve = async () => {
      const isHead = req.method === "HEAD";
      const bridged = webRequest(req, aborted.signal);
      if (bridged instanceof ApiError) {
        await send(res, await finish(errorResponse(bridged), requestIdFor({ headers: headersOf(req.rawHeaders) }), isHead), isHead);
        return;
      }
      const { request, method } = bridged;
      const response = await handler(request, { remoteAddress: clientAddress(request, req.socket.remoteAddress, trustProxy), method });
      await send(res, response, isHead);
    };
    serve().catch(() => {
      // The handler answers its own errors; this is the bridge failing mid-write (the
      // client went away, a stream broke). Nothing sensible can be sent any more.
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
}
