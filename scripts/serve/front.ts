/**
 * What stands between Bun.serve and the one handler: the client's address (from the
 * socket, or from a trusted proxy's X-Forwarded-For), and `GET /metrics`, routed before
 * the handler so that lib/ and server/ know nothing of Prometheus. A /metrics answer
 * carries the headers every response carries (docs/api.md, "HTTP behaviour") and is logged and counted
 * like any other request.
 *
 * Nothing a client sends can make these functions throw (SECURITY.md, "At the edge"): a
 * Host or target that makes no URL goes to the handler, which answers 400, and anything
 * unexpected is logged without the URL and answered with the JSON 500. Bun.serve's own
 * `error` callback (`answerUnexpectedError`, adapters/bun/serve.ts) is only the last resort behind that.
 */
import { guarded, type BunFetch } from "../../adapters/bun/serve.ts";
import type { Handler, RequestLogEntry } from "../../server/handler.ts";
import { errorResponse, finish, requestIdFor } from "../../server/responses.ts";
import { invalidRequest, methodNotAllowed, notFound, serverError, type ApiError } from "../../lib/errors.ts";
import { urlCarriesCredentials } from "../../lib/url-credentials.ts";
import { requestSizeError } from "../../server/request-limits.ts";
import { requestUrl } from "../../server/request-target.ts";
import { clientAddress } from "../../server/client-address.ts";
import type { Metrics } from "./metrics.ts";

export const METRICS_PATH = "/metrics";

export { clientAddress };

/** Answers a /metrics request, and logs and counts it like any other. */
async function answerMetrics(req: Request, url: URL, metrics: Metrics, log: (entry: RequestLogEntry) => void): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(req);
  let response: Response;
  let failure: string | undefined;
  const tooLarge = requestSizeError(req, url);
  if (tooLarge) {
    response = errorResponse(tooLarge);
  } else if (req.method !== "GET" && req.method !== "HEAD") {
    response = errorResponse(methodNotAllowed(["GET", "HEAD"]));
  } else {
    try {
      const { body, contentType } = await metrics.render();
      response = new Response(body, { status: 200, headers: { "Content-Type": contentType } });
    } catch (error) {
      failure = `${(error as Error).name}: ${(error as Error).message}`;
      response = errorResponse(serverError());
    }
  }
  log({
    time: new Date().toISOString(),
    level: failure ? "error" : "info",
    request_id: requestId,
    method: req.method,
    route: METRICS_PATH,
    status: response.status,
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    ...(failure ? { error: failure } : {}),
  });
  return finish(response, requestId, req.method === "HEAD");
}

/** The URL of a /metrics request, or null for any other request (one whose URL cannot be made included). */
function metricsUrl(req: Request): URL | null {
  // Most requests are not for /metrics: a substring test spares them a second parse of
  // the URL and Host, which the handler makes anyway.
  if (!req.url.includes(METRICS_PATH)) return null;
  const url = requestUrl(req);
  return url instanceof URL && url.pathname === METRICS_PATH && !urlCarriesCredentials(url) ? url : null;
}

export interface FrontOptions {
  handler: Handler;
  metrics: Metrics;
  /** Whether /metrics is answered on the API port (`--metrics on`). */
  metricsHere: boolean;
  trustProxy: boolean;
  /** Receives every request's entry: the logger and the metrics. */
  log: (entry: RequestLogEntry) => void;
}

/** The fetch function of the API listener. */
export function createApiFetch(options: FrontOptions): BunFetch {
  return guarded(async (req, server) => {
    const metricsAt = options.metricsHere ? metricsUrl(req) : null;
    if (metricsAt) return answerMetrics(req, metricsAt, options.metrics, options.log);
    const remoteAddress = clientAddress(req, server.requestIP(req)?.address, options.trustProxy);
    return options.handler(req, { remoteAddress });
  }, options.log);
}

/** The fetch function of a separate metrics listener (`--metrics HOST:PORT`): /metrics and nothing else. */
export function createMetricsFetch(metrics: Metrics, log: (entry: RequestLogEntry) => void): BunFetch {
  return guarded(async (req) => {
    const metricsAt = metricsUrl(req);
    if (metricsAt) return answerMetrics(req, metricsAt, metrics, log);
    const url = requestUrl(req);
    const error: ApiError = !(url instanceof URL)
      ? url
      : (requestSizeError(req, url) ??
        (urlCarriesCredentials(url)
          ? invalidRequest("Credentials and tokens must never be sent in the URL.")
          : notFound("This address serves only GET /metrics.")));
    return finish(errorResponse(error), requestIdFor(req), req.method === "HEAD");
  }, log);
}
