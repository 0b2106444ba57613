/**
 * What Node's HTTP parser refuses never reaches a request listener: it is reported as the
 * server's `clientError` event, and without a listener Node closes the connection or
 * writes a bare 400. `toNodeClientErrorListener(handler)` answers with the project's JSON
 * instead, a method the parser does not know (`FOO`, `get`) through the handler, so that
 * it gets the 405 or 404 its path gives (docs/api.md, "HTTP behaviour": any other method,
 * however spelled):
 *
 *   const server = createServer(toNodeListener(handler));
 *   server.on("clientError", toNodeClientErrorListener(handler));
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { Handler } from "../../server/handler.ts";
import { clientAddress } from "../../server/client-address.ts";
import { errorResponse, finish, requestIdFor } from "../../server/responses.ts";
import { ApiError, invalidRequest } from "../../lib/errors.ts";
import { headersOf, requestMethodFor, urlOf, type NodeListenerOptions } from "./http.ts";

/** What Node's parser says about a request it refused (`clientError`). */
type ClientError = Error & { code?: string; rawPacket?: Uint8Array };

/** RFC 9110 §5.6.2 token: what a method may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

interface RawHead {
  method: string;
  target: string;
  /** [name, value, name, value, …], like IncomingMessage.rawHeaders. */
  rawHeaders: string[];
}

/** The request line and the complete header lines of what the parser refused, or null when the request line is not there. */
function parseRawHead(packet: Uint8Array | undefined): RawHead | null {
  if (packet === undefined) return null;
  const text = new TextDecoder("latin1").decode(packet);
  const end = text.indexOf("\r\n\r\n");
  const lines = (end === -1 ? text : text.slice(0, end)).split("\r\n");
  // Without the blank line the last line may be cut short: leave it out.
  if (end === -1) lines.pop();
  const requestLine = /^(\S+) (\S+) HTTP\/1\.[01]$/.exec(lines.shift() ?? "");
  if (requestLine === null) return null;
  const rawHeaders: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) rawHeaders.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return { method: requestLine[1]!, target: requestLine[2]!, rawHeaders };
}

/** The whole response as bytes for a socket that closes after it: status line, headers, Content-Length, body. */
async function responseBytes(response: Response): Promise<Uint8Array> {
  const body = new Uint8Array(await response.arrayBuffer());
  let head = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}\r\n`;
  response.headers.forEach((value, name) => {
    if (!["connection", "content-length", "transfer-encoding"].includes(name)) head += `${name}: ${value}\r\n`;
  });
  head += `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const headBytes = new TextEncoder().encode(head);
  const bytes = new Uint8Array(headBytes.length + body.length);
  bytes.set(headBytes);
  bytes.set(body, headBytes.length);
  return bytes;
}

/** The answer to a request the parser refused for its method: the handler's, for the method as sent. */
async function answerUnknownMethod(handler: Handler, head: RawHead, socket: Duplex, trustProxy: boolean): Promise<Response> {
  const headers = headersOf(head.rawHeaders);
  const scheme = (socket as Partial<TLSSocket>).encrypted ? "https" : "http";
  const local = socket as Partial<{ localAddress: string; localPort: number; remoteAddress: string }>;
  const url = urlOf(head.target, headers.get("host") ?? `${local.localAddress ?? "localhost"}:${local.localPort ?? 80}`, scheme);
  if (url instanceof ApiError) return finish(errorResponse(url), requestIdFor({ headers }), false);
  const request = new Request(url, { method: requestMethodFor(head.method), headers });
  return handler(request, { remoteAddress: clientAddress(request, local.remoteAddress, trustProxy), method: head.method });
}

/** The answer to anything else the parser refused: 431 for a head too large, 408 for one too slow, else 400. */
function parserRefusal(error: ClientError, head: RawHead | null): Response {
  const headers = headersOf(head?.rawHeaders ?? []);
  const refusal =
    error.code === "HPE_HEADER_OVERFLOW"
      ? new ApiError(431, "invalid_request", "The request line and headers together are too large.")
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new ApiError(408, "invalid_request", "The request did not arrive in time; send it again.")
        : invalidRequest("The request is not valid HTTP/1.1: check the request line and the header lines.");
  return finish(errorResponse(refusal), requestIdFor({ headers }), false);
}

/**
 * A listener for the server's `clientError` event: what Node's HTTP parser refuses gets
 * the project's JSON answer with the usual headers, and the connection is closed (the
 * parser cannot go on). A method the parser does not know goes to the handler with the
 * method as sent, so it gets the 405 (or 404) the path gives; a head too large gets 431,
 * anything else 400. A client that already went away is let go.
 */
export function toNodeClientErrorListener(handler: Handler, options: NodeListenerOptions = {}): (error: Error, socket: Duplex) => void {
  const trustProxy = options.trustProxy ?? false;
  return (error: ClientError, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const head = parseRawHead(error.rawPacket);
    const answer = async () => {
      const response =
        error.code === "HPE_INVALID_METHOD" && head !== null && TOKEN.test(head.method)
          ? await answerUnknownMethod(handler, head, socket, trustProxy)
          : parserRefusal(error, head);
      socket.end(await responseBytes(response));
    };
    answer().catch(() => socket.destroy());
  };
}
