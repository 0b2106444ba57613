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
 * Mount it before any body parser: the token endpoint reads the raw form body itself.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Handler } from "../server/handler.ts";
import { clientAddress } from "../server/client-address.ts";

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
      // Already read by someone else (a body parser): nothing more will come.
      if (req.readableEnded) return controller.close();
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

/** A host name, IPv4 or bracketed IPv6 address, and an optional port. */
const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]+)(:\d{0,5})?$/;

/** A web Request for `req`, or null when its target or Host cannot make a URL. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request | null {
  const original = (req as IncomingMessage & { originalUrl?: unknown }).originalUrl;
  const target = typeof original === "string" ? original : (req.url ?? "/");
  // Origin-form only ("/path?query"): concatenated, never resolved, so "//host/x" stays a path.
  if (!target.startsWith("/")) return null;
  const scheme = (req.socket as Partial<TLSSocket>).encrypted ? "https" : "http";
  const host = req.headers.host ?? `${req.socket.localAddress ?? "localhost"}:${req.socket.localPort ?? 80}`;
  // A Host holding "/", "?", "#", "@" or "\\" would move the path or the origin the handler sees.
  if (!HOST_PATTERN.test(host)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}${target}`);
  } catch {
    return null;
  }

  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    // HTTP/2 pseudo-headers (":path", ":authority") are not headers a web Request may carry.
    if (!name.startsWith(":")) headers.append(name, req.rawHeaders[i + 1]!);
  }
  const method = req.method ?? "GET";
  const init: StreamingRequestInit = { method, headers, signal, duplex: "half" };
  if (method !== "GET" && method !== "HEAD") init.body = bodyStream(req);
  return new Request(url, init);
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

/**
 * Wraps the handler as a `(req, res) => void` listener for `http.createServer`. The URL is
 * built from the Host header and the socket (https when it is TLS); a request whose target
 * or Host makes no URL gets a bare 400. A client that disconnects aborts the Request's signal.
 */
export function toNodeListener(handler: Handler, options: NodeListenerOptions = {}): NodeListener {
  const trustProxy = options.trustProxy ?? false;
  return (req, res) => {
    const aborted = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const serve = async () => {
      const request = webRequest(req, aborted.signal);
      if (request === null) {
        res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("Bad request target or Host header.\n");
        return;
      }
      const response = await handler(request, { remoteAddress: clientAddress(request, req.socket.remoteAddress, trustProxy) });
      res.writeHead(response.status, headerList(response));
      if (response.body === null || req.method === "HEAD" || NO_BODY_STATUSES.has(response.status)) {
        await response.body?.cancel();
        res.end();
        return;
      }
      await writeBody(response.body, res);
    };
    serve().catch(() => {
      // The handler answers its own errors; this is the bridge failing mid-write (the
      // client went away, a stream broke). Nothing sensible can be sent any more.
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
}
