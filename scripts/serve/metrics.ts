/**
 * Prometheus metrics on prom-client, derived from the request log entries the handler
 * already produces: the handler stays free of any metrics library, and a metric can never
 * hold what the log may not (no secret, token or query string). Each process counts its
 * own requests; with `--workers` a scrape adds up every process's (worker-metrics.ts), so
 * the counters stay monotonic whichever process answers.
 */
import { AggregatorRegistry, Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestLogEntry } from "../../server/handler.ts";

const TOKEN_ROUTE = "/v1/oauth/token";
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/**
 * Default gauges whose names end in `_total`, which Prometheus keeps for counters
 * (`promtool check metrics` refuses them). Each is the sum of a gauge that stays,
 * labelled by type: `sum(leaveapi_nodejs_active_handles)` gives the same figure.
 */
const MISNAMED_DEFAULT_GAUGES = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

/**
 * The route label: the route as the log names it (a template such as
 * `/v1/employees/{id}`, or a fixed name such as `[uri too long]`), except a path no route
 * matched, which is one label: scanners' guesses cannot blow up the series count.
 */
export function routeLabel(entry: RequestLogEntry): string {
  return entry.unmatched ? "unmatched" : entry.route;
}

/** One process's metrics as prom-client's `getMetricsAsJSON()` gives them. */
export type MetricsSnapshot = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

export interface Metrics {
  /** Counts one finished request. */
  observe: (entry: RequestLogEntry) => void;
  /** Counts one change-notification delivery attempt by its outcome (webhook-sender.ts). */
  delivery: (outcome: "delivered" | "retrying" | "failing") => void;
  /** This process's metrics, for adding up across worker processes. */
  snapshot: () => Promise<MetricsSnapshot>;
  /** From now on, render the sum of the snapshots `gather` returns (every process's) instead of this process's alone. */
  aggregateWith: (gather: () => Promise<MetricsSnapshot[]>) => void;
  /** The exposition text and its Content-Type (`text/plain; version=0.0.4`). */
  render: () => Promise<{ body: string; contentType: string }>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "leaveapi_" });
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(`leaveapi_${name}`);
  const registers = [registry];
  const requests = new Counter({
    name: "leaveapi_http_requests_total",
    help: "HTTP requests answered, by route and status.",
    labelNames: ["route", "status"] as const,
    registers,
  });
  const latency = new Histogram({
    name: "leaveapi_http_request_duration_seconds",
    help: "Time from receiving a request to its answer, by route.",
    labelNames: ["route"] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const tokensIssued = new Counter({ name: "leaveapi_tokens_issued_total", help: "Access tokens issued.", registers });
  const rateLimited = new Counter({
    name: "leaveapi_rate_limit_refusals_total",
    help: "Token requests refused with 429: kind=client (10 per client per minute) or kind=address (failed authentications per address).",
    labelNames: ["kind"] as const,
    registers,
  });
  const storeErrors = new Counter({
    name: "leaveapi_store_errors_total",
    help: "Requests that failed on the store or an unexpected error: status=503 (store unreachable) or status=500.",
    labelNames: ["status"] as const,
    registers,
  });
  const deliveries = new Counter({
    name: "leaveapi_webhook_deliveries_total",
    help: "Change-notification delivery attempts, by outcome: delivered (2xx), retrying (failed, tried again later), failing (undelivered for 24 h).",
    labelNames: ["outcome"] as const,
    registers,
  });
  for (const outcome of ["delivered", "retrying", "failing"]) deliveries.inc({ outcome }, 0);
  // Series that exist from the start read 0 rather than absent, so rate() and alerts work at once.
  for (const kind of ["client", "address"]) rateLimited.inc({ kind }, 0);
  for (const status of ["500", "503"]) storeErrors.inc({ status }, 0);

  let gather: (() => Promise<MetricsSnapshot[]>) | undefined;
  return {
    observe(entry) {
      const route = routeLabel(entry);
      requests.inc({ route, status: String(entry.status) });
      latency.observe({ route }, entry.duration_ms / 1000);
      if (route === TOKEN_ROUTE && entry.status === 200) tokensIssued.inc();
      // The per-client limit applies only after the client authenticated, so a known client id tells the two apart.
      if (route === TOKEN_ROUTE && entry.status === 429) rateLimited.inc({ kind: entry.client_id ? "client" : "address" });
      if (entry.status === 500 || entry.status === 503) storeErrors.inc({ status: String(entry.status) });
    },
    delivery: (outcome) => deliveries.inc({ outcome }),
    snapshot: () => registry.getMetricsAsJSON(),
    aggregateWith(source) {
      gather = source;
    },
    async render() {
      const body = gather ? await AggregatorRegistry.aggregate(await gather()).metrics() : await registry.metrics();
      return { body, contentType: registry.contentType };
    },
  };
}
