/**
 * The pieces of `leaveapi serve` that need no server: settings (flag over environment over
 * default, bad values are usage errors), the request log's two formats and its levels,
 * which address the per-address limit counts, and the parent–worker channel.
 */
import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { UsageError } from "../scripts/cli-kit.ts";
import { clientAddress } from "../scripts/serve/front.ts";
import { createIpcPeer, type IpcPeer } from "../scripts/serve/ipc.ts";
import { createLogger } from "../scripts/serve/logger.ts";
import { SERVE_SETTINGS, resolveServeSettings, serveHelp } from "../scripts/serve/settings.ts";
import type { RequestLogEntry } from "../server/handler.ts";

describe("settings", () => {
  test("defaults", () => {
    expect(resolveServeSettings({}, {})).toEqual({
      port: 8080,
      hostname: "127.0.0.1",
      demo: false,
      publicUrl: undefined,
      logLevel: "info",
      logFormat: "auto",
      metrics: { kind: "on" },
      shutdownTimeoutMs: 10_000,
      idleTimeoutSeconds: 30,
      tls: undefined,
      trustProxy: false,
      workers: 1,
      watchdogMs: 10_000,
      deletionRetentionDays: 90,
      readRateLimit: 100,
      webhookRetryMs: 10_000,
    });
  });

  test("the environment over the defaults, a flag over the environment", () => {
    const env = {
      PORT: "9000",
      LOG_LEVEL: "warn",
      LEAVEAPI_METRICS: "off",
      LEAVEAPI_WORKERS: "auto",
      LEAVEAPI_TRUST_PROXY: "true",
      LEAVEAPI_SHUTDOWN_TIMEOUT: "2.5",
    };
    const fromEnv = resolveServeSettings({}, env);
    expect(fromEnv).toMatchObject({
      port: 9000,
      logLevel: "warn",
      metrics: { kind: "off" },
      workers: availableParallelism(),
      trustProxy: true,
      shutdownTimeoutMs: 2500,
    });
    const fromFlags = resolveServeSettings({ port: "9100", "log-level": "debug", metrics: "0.0.0.0:9464", workers: "3" }, env);
    expect(fromFlags).toMatchObject({ port: 9100, logLevel: "debug", metrics: { kind: "separate", hostname: "0.0.0.0", port: 9464 }, workers: 3 });
    expect(resolveServeSettings({ metrics: "[::1]:9464" }, {}).metrics).toEqual({ kind: "separate", hostname: "::1", port: 9464 });
    expect(resolveServeSettings({ "public-url": "https://api.example.com/" }, {}).publicUrl).toBe("https://api.example.com");
    expect(resolveServeSettings({}, { LEAVEAPI_PUBLIC_URL: "https://api.example.com/hr" }).publicUrl).toBe("https://api.example.com/hr");
    expect(resolveServeSettings({ watchdog: "0" }, { LEAVEAPI_WATCHDOG: "30" }).watchdogMs).toBe(0);
    expect(resolveServeSettings({}, { LEAVEAPI_WATCHDOG: "30" }).watchdogMs).toBe(30_000);
    expect(resolveServeSettings({}, { LEAVEAPI_DELETIONS_RETENTION_DAYS: "365" }).deletionRetentionDays).toBe(365);
    expect(resolveServeSettings({ "deletions-retention-days": "30" }, { LEAVEAPI_DELETIONS_RETENTION_DAYS: "365" }).deletionRetentionDays).toBe(30);
    expect(() => resolveServeSettings({ "deletions-retention-days": "0" }, {})).toThrow(/deletions-retention-days must be a whole number of days/);
  });

  test("--issuer, the older name of --public-url, is still accepted, and the two must agree", () => {
    expect(resolveServeSettings({ issuer: "https://api.example.com/" }, {}).publicUrl).toBe("https://api.example.com");
    expect(resolveServeSettings({ "public-url": "https://a.example.com" }, { LEAVEAPI_ISSUER: "https://a.example.com/" }).publicUrl).toBe(
      "https://a.example.com",
    );
    expect(() => resolveServeSettings({ "public-url": "https://a.example.com" }, { LEAVEAPI_ISSUER: "https://b.example.com" })).toThrow(
      "--public-url and LEAVEAPI_ISSUER (its older name) disagree",
    );
  });

  test.each([
    ["LOG_LEVEL", {}, { LOG_LEVEL: "verbose" }],
    ["--log-level", { "log-level": "trace" }, {}],
    ["LOG_FORMAT", {}, { LOG_FORMAT: "xml" }],
    ["PORT", {}, { PORT: "80000" }],
    ["--metrics", { metrics: "sometimes" }, {}],
    ["LEAVEAPI_WORKERS", {}, { LEAVEAPI_WORKERS: "0" }],
    ["--shutdown-timeout", { "shutdown-timeout": "soon" }, {}],
    ["LEAVEAPI_IDLE_TIMEOUT", {}, { LEAVEAPI_IDLE_TIMEOUT: "256" }],
    ["--idle-timeout", { "idle-timeout": "0" }, {}],
    ["LEAVEAPI_TRUST_PROXY", {}, { LEAVEAPI_TRUST_PROXY: "maybe" }],
    ["--tls-cert", { "tls-key": "key.pem" }, {}],
    ["LEAVEAPI_ISSUER", {}, { LEAVEAPI_ISSUER: "api.example.com" }],
    ["LEAVEAPI_PUBLIC_URL", {}, { LEAVEAPI_PUBLIC_URL: "ftp://api.example.com" }],
    ["--public-url", { "public-url": "https://api.example.com/?x=1" }, {}],
    ["--public-url", { "public-url": "https://user@api.example.com" }, {}],
    ["--watchdog", { watchdog: "1" }, {}],
    ["LEAVEAPI_WATCHDOG", {}, { LEAVEAPI_WATCHDOG: "soon" }],
  ] as [string, Record<string, string>, Record<string, string>][])("a bad %s is a UsageError naming it", (name, values, env) => {
    expect(() => resolveServeSettings(values, env)).toThrow(UsageError);
    expect(() => resolveServeSettings(values, env)).toThrow(name);
  });

  test("--help lists every setting with its environment variable and default", () => {
    const help = serveHelp("leaveapi serve");
    for (const setting of Object.values(SERVE_SETTINGS)) {
      expect(help).toContain(`--${setting.flag}`);
      expect(help).toContain(`env ${setting.env}`);
      if (setting.fallback !== "") expect(help).toContain(`default ${setting.fallback}`);
    }
  });
});

function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    time: "2026-03-01T09:30:00.000Z",
    level: "info",
    request_id: "r1",
    method: "GET",
    route: "/v1/employees",
    status: 200,
    duration_ms: 1.25,
    ...overrides,
  };
}

describe("request log", () => {
  const collect = (level: "debug" | "info" | "warn" | "error", format: "json" | "text" | "auto", isTty = false) => {
    const lines: string[] = [];
    return { lines, logger: createLogger({ level, format, isTty, write: (line) => lines.push(line) }) };
  };

  test("JSON lines have a stable set of keys, null where the caller is unknown", () => {
    const { lines, logger } = collect("info", "auto");
    logger.request(entry());
    logger.request(entry({ organisation_id: "o1", client_id: "svcc_1", records: 3 }));
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        time: "2026-03-01T09:30:00.000Z",
        level: "info",
        request_id: "r1",
        method: "GET",
        route: "/v1/employees",
        status: 200,
        duration_ms: 1.25,
        organisation_id: null,
        client_id: null,
        records: null,
      },
      {
        time: "2026-03-01T09:30:00.000Z",
        level: "info",
        request_id: "r1",
        method: "GET",
        route: "/v1/employees",
        status: 200,
        duration_ms: 1.25,
        organisation_id: "o1",
        client_id: "svcc_1",
        records: 3,
      },
    ]);
  });

  test("on a terminal, one readable line", () => {
    const { lines, logger } = collect("info", "auto", true);
    logger.request(entry({ organisation_id: "o1", client_id: "svcc_1" }));
    expect(lines).toEqual(["2026-03-01T09:30:00.000Z INFO  GET /v1/employees 200 1.3ms id=r1 org=o1 client=svcc_1"]);
  });

  test("levels: requests at info, 5xx at error; LOG_LEVEL=error keeps only those; debug adds server events", () => {
    const quiet = collect("error", "json");
    quiet.logger.request(entry());
    quiet.logger.request(entry({ status: 503, level: "error", error: "StoreUnavailableError: down" }));
    quiet.logger.event("info", "shutdown", "SIGTERM");
    expect(quiet.lines).toHaveLength(1);
    expect(JSON.parse(quiet.lines[0]!)).toMatchObject({ level: "error", status: 503, error: "StoreUnavailableError: down" });
    const chatty = collect("debug", "json");
    chatty.logger.event("debug", "worker_listening", "worker 1 listening", { worker: 1 });
    expect(JSON.parse(chatty.lines[0]!)).toMatchObject({ level: "debug", event: "worker_listening", worker: 1 });
    const normal = collect("info", "json");
    normal.logger.event("debug", "worker_listening", "worker 1 listening");
    expect(normal.lines).toEqual([]);
  });
});

describe("the address the failure limit counts", () => {
  const req = (xff?: string) => new Request("http://x/", { headers: xff === undefined ? {} : { "X-Forwarded-For": xff } });

  test("the socket's, unless the proxy is trusted", () => {
    expect(clientAddress(req("10.0.0.1"), "192.0.2.1", false)).toBe("192.0.2.1");
    expect(clientAddress(req(), "192.0.2.1", true)).toBe("192.0.2.1");
  });

  test("behind a trusted proxy: the last entry, the one the proxy appended", () => {
    expect(clientAddress(req("10.0.0.1"), "192.0.2.1", true)).toBe("10.0.0.1");
    expect(clientAddress(req("6.6.6.6, 10.0.0.1 "), "192.0.2.1", true)).toBe("10.0.0.1");
    expect(clientAddress(req("10.0.0.1,"), "192.0.2.1", true)).toBe("192.0.2.1");
    expect(clientAddress(req(`10.0.0.1, ${"f".repeat(200)}`), "192.0.2.1", true)).toBe("192.0.2.1");
  });
});

describe("the parent–worker channel", () => {
  test("a question is answered by the other side; one never answered is undefined after its deadline", async () => {
    const toWorker: unknown[] = [];
    let worker: IpcPeer | undefined;
    const parent = createIpcPeer(
      (m) => worker!.receive(m),
      async () => "parent answer",
    );
    worker = createIpcPeer(
      (m) => parent.receive(m),
      async (method) => (method === "metrics-snapshot" ? [{ name: "x" }] : undefined),
    );
    expect(await parent.ask("metrics-snapshot", 1000)).toEqual([{ name: "x" }]);
    expect(await worker.ask("anything", 1000)).toBe("parent answer");
    const deaf = createIpcPeer(
      (m) => void toWorker.push(m),
      async () => undefined,
    );
    expect(await deaf.ask("metrics-snapshot", 10)).toBeUndefined();
    expect(toWorker).toEqual([{ ipc: "question", id: 1, method: "metrics-snapshot" }]);
    expect(parent.receive("leaveapi-worker-ready")).toBe(false);
  });
});
