/**
 * POST /v1/oauth/token over HTTP: reads the request (no query, a form body of at most
 * TOKEN_BODY_LIMIT bytes, the Authorization header), issues the token with lib/issue-token.ts
 * and answers it. The order of checks is docs/api.md's ("Order of checks"): what is read
 * here comes first, then everything issueToken decides.
 */
import { ApiError, invalidRequest } from "../lib/errors.ts";
import { issueToken, type IssueTokenOptions } from "../lib/issue-token.ts";
import { isFormContentType, parseBasicAuthorization, parseForm, readTokenRequest, type TokenRequest } from "../lib/token-request.ts";
import { utf8DecodeStrict } from "../lib/encoding.ts";
import type { Store } from "../lib/store.ts";
import { json, withHeaders } from "./responses.ts";

export const TOKEN_BODY_LIMIT = 4096;

/** The challenge of a failed client authentication (RFC 6749 §5.2). */
const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="leaveapi"' };

/** The body's bytes as text; throws the 400 for bytes that are not UTF-8. */
function bodyText(bytes: Uint8Array): string {
  const text = utf8DecodeStrict(bytes);
  if (text === null) throw invalidRequest("The request body is not valid UTF-8.");
  return text;
}

/** The client went away mid-body (or stalled until the idle timeout closed it). */
function bodyCutShort(): ApiError {
  // The client's mistake, not the server's: a 400 in the log rather than a 500 that pages someone.
  return invalidRequest("The request body ended before it was complete: the connection was closed.");
}

/** The body as text, refusing more than the limit whatever Content-Length claims. */
async function readBody(req: Request): Promise<string> {
  const tooLarge = () => new ApiError(413, "invalid_request", `The token request body must be at most ${TOKEN_BODY_LIMIT} bytes.`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > TOKEN_BODY_LIMIT) throw tooLarge();
  // A body framed by a Content-Length within the limit (what every client sends) is read
  // whole: the HTTP server reads no byte past it, and opening a stream to read a few dozen
  // bytes cost more than any other step of a token request. A chunked body, whose size
  // nothing announces, is read as a stream and cut off at the limit.
  if (req.headers.has("content-length") && !req.headers.has("transfer-encoding")) {
    const whole = await req.arrayBuffer().catch(() => {
      throw bodyCutShort();
    });
    // A Request made in-process can carry more than it declares: the size is checked all the same.
    if (whole.byteLength > TOKEN_BODY_LIMIT) throw tooLarge();
    return bodyText(new Uint8Array(whole));
  }
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      throw bodyCutShort();
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > TOKEN_BODY_LIMIT) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return bodyText(bytes);
}

/** The token request an HTTP request carries; throws the 400 or 413 for one that cannot be read. */
async function parseTokenRequest(req: Request, url: URL): Promise<TokenRequest> {
  if (url.search !== "") {
    throw invalidRequest("The token endpoint takes no query parameters; send every parameter in the form body.");
  }
  if (!isFormContentType(req.headers.get("content-type"))) {
    throw invalidRequest("The token request body must be application/x-www-form-urlencoded.");
  }
  const form = parseForm(await readBody(req));
  if (!form) throw invalidRequest("The form body is malformed (a bad percent-escape or invalid UTF-8).");
  return readTokenRequest(form, parseBasicAuthorization(req.headers.get("authorization")));
}

/** `url` is the request's, as the handler already parsed it. */
export async function handleTokenRequest(req: Request, url: URL, store: Store, options: IssueTokenOptions): Promise<Response> {
  const request = await parseTokenRequest(req, url);
  try {
    return json(200, await issueToken(store, request, options), { Pragma: "no-cache" });
  } catch (error) {
    throw error instanceof ApiError && error.code === "invalid_client" ? withHeaders(error, BASIC_CHALLENGE) : error;
  }
}
