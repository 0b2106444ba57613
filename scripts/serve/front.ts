/**
 * What stands between Bun.serve and the one handler: the client's address (from the
 * socket, or from a trusted proxy's X-Forwarded-For), and `GET /metrics`, routed before
 * the handler so that lib/ and server/ know nothing of Prometheus. A /metrics answer
 * carries the headers every response carries (DECISIONS §9) and is logged and counted
 * like any other request.
 */
import type { Server } from "bun";
import type { Handler, RequestLogEntry } from "../../server/handler.ts";
import { errorResponse, finish, requestIdFor } from "../../server/responses.ts";
import { invalidRequest, methodNotAllowed, notFound, serverError, type ApiError } from "../../lib/errors.ts";
import { urlCarriesCredentials } from "../../lib/url-credentials.ts";
import { requestSizeError } from "../../server/request-limits.ts";
import { clientAddress } from "../../server/client-address.ts";
import type { Metrics } from "./metrics.ts";

export const METRICS_PATH = "/metrics";

export { clientAddress };

export type BunFetch = (req: Request, server: Server<undefined>) => Promise<Response>;

/** Answers a /metrics request, and logs and counts it like any other. */
async function answerMetrics(req: Request, metrics: Metrics, log: (entry: RequestLogEntry) => void): Promise<Response> {
  const started = performance.now();
  const requestId = requestIdFor(req);
  let response: Response;
  let failure: string | undefined;
  const tooLarge = requestSizeError(req, new URL(req.url));
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

function isMetricsRequest(url: URL): boolean {
  return url.pathname === METRICS_PATH && !urlCarriesCredentials(url);
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
  return async (req, server) => {
    if (options.metricsHere && isMetricsRequest(new URL(req.url))) return answerMetrics(req, options.metrics, options.log);
    const remoteAddress = clientAddress(req, server.requestIP(req)?.address, options.trustProxy);
    return options.handler(req, { remoteAddress });
  };
}

/** The fetch function of a separate metrics listener (`--metrics HOST:PORT`): /metrics and nothing else. */
export function createMetricsFetch(metrics: Metrics, log: (entry: RequestLogEntry) => void): BunFetch {
  return async (req) => {
    const url = new URL(req.url);
    if (isMetricsRequest(url)) return answerMetrics(req, metrics, log);
    const error: ApiError = requestSizeError(req, url) ?? (urlCarriesCredentials(url)
      ? invalidRequest("Credentials and tokens must never be sent in the URL.")
      : notFound("This address serves only GET /metrics."));
    return finish(errorResponse(error), requestIdFor(req), req.method === "HEAD");
  };
}
