/**
 * Operations (issue 16): `/livez` answers without the store while `/healthz` asks it; every
 * route the handler matched is labelled in the metrics as the log names it, and only a
 * path no route matched is `unmatched`; the default gauges promtool refuses are gone; the
 * start line is a JSON event when the log is JSON.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { createHandler, type RequestLogEntry } from "../server/handler.ts";
import { createLogger } from "../scripts/serve/logger.ts";
import { createMetrics } from "../scripts/serve/metrics.ts";
import { conformToDocument } from "./openapi-conformance.ts";

/** The handler on a memory store (the probes do not depend on the store's kind), every answer checked against openapi.json. */
function createWorld(options: { log?: (entry: RequestLogEntry) => void } = {}) {
  const store = createMemoryStore();
  const handler = conformToDocument(createHandler({ store, ...options }));
  const call = (path: string, init: RequestInit = {}) => handler(new Request(`http://leaveapi.test${path}`, init), { remoteAddress: "127.0.0.1" });
  return { store, call };
}

describe("/livez and /healthz", () => {
  test("/livez is 200 with the store closed, when /healthz is 503", async () => {
    const world = createWorld();
    expect((await world.call("/livez")).status).toBe(200);
    await world.store.close();
    const live = await world.call("/livez");
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: "ok" });
    expect(live.headers.get("x-request-id")).not.toBeNull();
    expect((await world.call("/healthz")).status).toBe(503);
  });

  test("/livez answers GET and HEAD only, and is logged under its own route", async () => {
    const entries: RequestLogEntry[] = [];
    const world = createWorld({ log: (entry) => entries.push(entry) });
    const head = await world.call("/livez", { method: "HEAD" });
    expect([head.status, await head.text()]).toEqual([200, ""]);
    const post = await world.call("/livez", { method: "POST" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect(entries.map((e) => [e.route, e.status, e.unmatched])).toEqual([
      ["/livez", 200, undefined],
      ["/livez", 405, undefined],
    ]);
  });
});

describe("route labels", () => {
  test("each route is labelled as it is logged; only an unmatched path is `unmatched`", async () => {
    const metrics = createMetrics();
    const logged: string[] = [];
    const world = createWorld({
      log: (entry) => {
        logged.push(entry.route);
        metrics.observe(entry);
      },
    });
    for (const path of [
      "/docs",
      "/livez",
      "/healthz",
      "/v1/openapi.json",
      "/.well-known/oauth-authorization-server",
      "/v1/employees",
      "/wp-admin/x.php",
      "/docs/",
    ]) {
      await (await world.call(path)).arrayBuffer();
    }
    const { body } = await metrics.render();
    const labels = [...body.matchAll(/^leaveapi_http_requests_total\{route="([^"]*)",status="(\d+)"\} (\d+)$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    expect(labels.sort()).toEqual(
      [
        "/docs 200 1",
        "/livez 200 1",
        "/healthz 200 1",
        "/v1/openapi.json 200 1",
        "/.well-known/oauth-authorization-server 200 1",
        "/v1/employees 401 1",
        "unmatched 404 2",
      ].sort(),
    );
    // The log keeps the path itself; the metrics never do.
    expect(logged).toContain("/wp-admin/x.php");
    expect(body).not.toContain("wp-admin");
  });

  test("no gauge is named like a counter (`*_total`), which promtool refuses", async () => {
    const { body } = await createMetrics().render();
    const types = [...body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(types.length).toBeGreaterThan(10);
    expect(types.filter(([name, type]) => name.endsWith("_total") && type !== "counter")).toEqual([]);
    // The per-type gauges stay: their sum is what the removed totals said.
    expect(types.map(([name]) => name)).toContain("leaveapi_nodejs_active_handles");
  });
});

describe("the start line", () => {
  const announced = (format: "json" | "text", level: "info" | "error" = "info") => {
    const out: string[] = [];
    const err: string[] = [];
    const logger = createLogger({ level, format, isTty: false, write: (l) => out.push(l), writeAnnouncement: (l) => err.push(l) });
    logger.announce("listening", "leaveapi serving http://127.0.0.1:8080 on sqlite :memory: with 1 process(es)", {
      url: "http://127.0.0.1:8080",
      processes: 1,
    });
    return { out, err };
  };

  test("is a JSON event when the log is JSON, whatever the level, with its wording kept as the message", () => {
    for (const level of ["info", "error"] as const) {
      const { out, err } = announced("json", level);
      expect(out).toEqual([]);
      expect(err).toHaveLength(1);
      expect(JSON.parse(err[0]!)).toMatchObject({
        level: "info",
        event: "listening",
        message: "leaveapi serving http://127.0.0.1:8080 on sqlite :memory: with 1 process(es)",
        url: "http://127.0.0.1:8080",
        processes: 1,
        pid: process.pid,
      });
      expect(new Date(JSON.parse(err[0]!).time).toISOString()).toBe(JSON.parse(err[0]!).time);
    }
  });

  test("is the bare sentence on a terminal's text log", () => {
    expect(announced("text").err).toEqual(["leaveapi serving http://127.0.0.1:8080 on sqlite :memory: with 1 process(es)"]);
  });
});
