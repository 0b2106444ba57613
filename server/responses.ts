/**
 * Response construction: the headers every answer carries (docs/api.md, "HTTP behaviour") and the one
 * place an `ApiError` becomes a JSON body.
 */
import { ApiError } from "../lib/errors.ts";
import { holdsSecretMarker } from "../lib/url-credentials.ts";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Echo a well-formed incoming request id, else make one: a client's id must not inject
 * into logs. An id that holds a secret or token marker (`svct_…`, a client that sent its
 * token in the wrong header) is not echoed either: the log must never carry one.
 */
export function requestIdFor(req: Pick<Request, "headers">): string {
  const incoming = req.headers.get("x-request-id");
  return incoming !== null && REQUEST_ID_PATTERN.test(incoming) && !holdsSecretMarker(incoming) ? incoming : crypto.randomUUID();
}

/** A JSON answer, the value serialized here (a data page, already text, goes through codedJson: compression.ts). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** The same error answered with more headers: how the server adds an HTTP challenge to what lib/ decided. */
export function withHeaders(error: ApiError, headers: Record<string, string>): ApiError {
  return new ApiError(error.status, error.code, error.message, { param: error.param, headers: { ...error.headers, ...headers } });
}

export function errorResponse(error: ApiError): Response {
  return json(error.status, error.body, error.headers);
}

/**
 * Adds the headers every response carries; an answer to HEAD has them and the
 * Content-Length the same GET would send (RFC 9110 §9.3.2, §8.6), and no body.
 */
export function finish(res: Response, requestId: string, isHead: false): Response;
export function finish(res: Response, requestId: string, isHead: boolean): Response | Promise<Response>;
export function finish(res: Response, requestId: string, isHead: boolean): Response | Promise<Response> {
  // Every response here was made by this handler, so its headers are mutable: set them in
  // place rather than copying the response on every request.
  const headers = res.headers;
  // Only the docs script sets its own (server/docs-page.ts): it is the one cacheable answer.
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Request-Id", requestId);
  return isHead ? headAnswer(res) : res;
}

/**
 * The body is measured, not sent: without a Content-Length the servers wrote 0 (Bun.serve)
 * or none. A coded answer has its length already (compression.ts).
 */
async function headAnswer(res: Response): Promise<Response> {
  const headers = res.headers;
  // A 304 sends no body and says nothing of the length of the one it stands for (RFC 9110 §8.6).
  if (res.status === 304) return res;
  if (!headers.has("Content-Length")) headers.set("Content-Length", String(res.body === null ? 0 : (await res.arrayBuffer()).byteLength));
  else await res.body?.cancel();
  return new Response(null, { status: res.status, headers });
}
