/**
 * Prometheus metrics (issue 4 item 5): what each counter counts, /metrics in front of the
 * handler with the standard headers, switched off, and on a separate address of a real
 * `leaveapi serve`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import type { RequestLogEntry } from "../server/handler.ts";
import { createApiFetch } from "../scripts/serve/front.ts";
import { listen } from "../adapters/bun/serve.ts";
import { createMetrics, type Metrics } from "../scripts/serve/metrics.ts";
import { startServer } from "./cli-harness.ts";
import { basicHeader, createClient, createOrganisation, createWorld } from "./support.ts";
import { provisionDatabase } from "./serve-fixture.ts";

/** The value of one sample line, e.g. `leaveapi_tokens_issued_total` or `name{label="x"}`; 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

function entry(overrides: Partial<RequestLogEntry>): RequestLogEntry {
  return { time: new Date().toISOString(), level: "info", request_id: "r", method: "GET", route: "/v1/employees", status: 200, duration_ms: 3, ...overrides };
}

describe("what the counters count", () => {
  test("requests by route and status, latency, tokens, rate-limit refusals by kind, store errors", async () => {
    const metrics = createMetrics();
    metrics.observe(entry({ route: "/v1/employees", status: 200, duration_ms: 7 }));
    metrics.observe(entry({ route: "/v1/oauth/token", method: "POST", status: 200, client_id: "svcc_1" }));
    metrics.observe(entry({ route: "/v1/oauth/token", method: "POST", status: 429, client_id: "svcc_1" }));
    metrics.observe(entry({ route: "/v1/oauth/token", method: "POST", status: 429 }));
    metrics.observe(entry({ route: "/healthz", status: 503, level: "error" }));
    metrics.observe(entry({ route: "/v1/holidays", status: 500, level: "error" }));
    metrics.observe(entry({ route: "/wp-admin/x.php", status: 404, unmatched: true }));
    const { body, contentType } = await metrics.render();
    expect(contentType).toStartWith("text/plain; version=0.0.4");
    expect(sample(body, 'leaveapi_http_requests_total{route="/v1/employees",status="200"}')).toBe(1);
    expect(sample(body, 'leaveapi_http_requests_total{route="unmatched",status="404"}')).toBe(1);
    expect(body).not.toContain("wp-admin");
    expect(sample(body, 'leaveapi_http_request_duration_seconds_bucket{le="0.005",route="/v1/employees"}')).toBe(0);
    expect(sample(body, 'leaveapi_http_request_duration_seconds_bucket{le="0.01",route="/v1/employees"}')).toBe(1);
    expect(sample(body, "leaveapi_tokens_issued_total")).toBe(1);
    expect(sample(body, 'leaveapi_rate_limit_refusals_total{kind="client"}')).toBe(1);
    expect(sample(body, 'leaveapi_rate_limit_refusals_total{kind="address"}')).toBe(1);
    expect(sample(body, 'leaveapi_store_errors_total{status="503"}')).toBe(1);
    expect(sample(body, 'leaveapi_store_errors_total{status="500"}')).toBe(1);
  });
});

describe("/metrics in front of the handler", () => {
  let server: Server<undefined> | undefined;
  afterEach(() => server?.stop(true));

  async function serveWorld(metricsHere: boolean) {
    const metrics: Metrics = createMetrics();
    const log = (e: RequestLogEntry) => metrics.observe(e);
    const world = await createWorld({ log });
    server = listen({
      hostname: "127.0.0.1",
      port: 0,
      reusePort: false,
      fetch: createApiFetch({ handler: world.handler, metrics, metricsHere, trustProxy: false, log }),
    });
    const base = `http://127.0.0.1:${server.port}`;
    const client = await createClient(world, await createOrganisation(world));
    const token = (secret = client.clientSecret) =>
      fetch(`${base}/v1/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: basicHeader(client.clientId, secret) },
        body: "grant_type=client_credentials",
      });
    return { base, token, scrape: async () => (await fetch(`${base}/metrics`)).text() };
  }

  test("counters move after requests, and the answer carries the standard headers", async () => {
    const { base, token, scrape } = await serveWorld(true);
    const before = await scrape();
    for (let i = 0; i < 11; i++) await (await token()).arrayBuffer();
    for (let i = 0; i < 61; i++) await (await token("svcs_wrong")).arrayBuffer();
    const res = await fetch(`${base}/metrics`, { headers: { "X-Request-Id": "scrape-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toBe("scrape-1");
    const after = await res.text();
    expect(sample(before, "leaveapi_tokens_issued_total")).toBe(0);
    expect(sample(after, "leaveapi_tokens_issued_total")).toBe(10);
    expect(sample(after, 'leaveapi_rate_limit_refusals_total{kind="client"}')).toBe(1);
    expect(sample(after, 'leaveapi_rate_limit_refusals_total{kind="address"}')).toBe(1);
    expect(sample(after, 'leaveapi_http_requests_total{route="/v1/oauth/token",status="401"}')).toBe(60);
    expect(sample(after, 'leaveapi_http_requests_total{route="/metrics",status="200"}')).toBe(1);
    expect(sample(after, 'leaveapi_http_request_duration_seconds_count{route="/v1/oauth/token"}')).toBe(72);
  });

  test("other methods get 405; a token in the URL is still refused", async () => {
    const { base } = await serveWorld(true);
    const post = await fetch(`${base}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(`${base}/metrics?access_token=svct_x`)).status).toBe(400);
  });

  test("switched off, /metrics is an unknown path: 404 JSON", async () => {
    const { base } = await serveWorld(false);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });
});

test("leaveapi serve --metrics HOST:PORT serves metrics only there; the API port answers 404", async () => {
  const p = await provisionDatabase("metrics.sqlite");
  const server = await startServer(p.db, { serveArgs: ["--metrics", "127.0.0.1:0"] });
  try {
    const metricsUrl = /metrics on (http:\/\/[^\s"]+\/metrics)/.exec(server.output())![1]!;
    expect(metricsUrl).not.toContain(":0/");
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
    const scraped = await (await fetch(metricsUrl)).text();
    expect(sample(scraped, 'leaveapi_http_requests_total{route="/healthz",status="200"}')).toBe(1);
    // No route serves /metrics on the API port here: the 404 is counted as any unknown path's.
    expect(sample(scraped, 'leaveapi_http_requests_total{route="unmatched",status="404"}')).toBe(1);
    const elsewhere = await fetch(metricsUrl.replace("/metrics", "/v1/employees"));
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get("x-content-type-options")).toBe("nosniff");
  } finally {
    expect(await server.stop()).toBe(0);
    p.dispose();
  }
}, 30_000);
