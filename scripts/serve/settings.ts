/**
 * Every `leaveapi serve` setting in one table: its flag, its environment variable and its
 * default. A flag wins over the environment, which wins over the default; a bad value is a
 * UsageError (exit 2) naming where it came from. `serve --help` is printed from this table,
 * so the help cannot forget a setting.
 */
import { availableParallelism } from "node:os";
import { UsageError } from "../cli-kit.ts";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "json" | "text" | "auto";
export type MetricsMode = { kind: "on" } | { kind: "off" } | { kind: "separate"; hostname: string; port: number };

export interface ServeSettings {
  port: number;
  hostname: string;
  demo: boolean;
  /** The public base URL the metadata and OpenAPI documents print (`--public-url`); else the request's origin. */
  publicUrl: string | undefined;
  logLevel: LogLevel;
  logFormat: LogFormat;
  metrics: MetricsMode;
  shutdownTimeoutMs: number;
  /** Whole seconds a connection may sit idle (or stall mid-body) before it is closed. */
  idleTimeoutSeconds: number;
  tls: { certFile: string; keyFile: string } | undefined;
  trustProxy: boolean;
  workers: number;
  /** Milliseconds the event loop may stand still before the watchdog ends the process; 0: no watchdog. */
  watchdogMs: number;
  /** Whole days the deletions feed reaches back; an older `updated_since` is 410 `sync_expired` (docs/api.md, "GET /v1/deletions"). */
  deletionRetentionDays: number;
  /** Data requests a second per client (lib/read-budget.ts); 0: no limit. */
  readRateLimit: number;
  /** The first retry's wait of a change notification, doubled each attempt (docs/api.md, "Change notifications"). */
  webhookRetryMs: number;
}

interface Setting {
  flag: string;
  env: string;
  metavar?: string;
  fallback: string;
  help: string;
}

/** The table `serve --help` and the README's Configuration section both follow. */
export const SERVE_SETTINGS = {
  port: { flag: "port", env: "PORT", metavar: "N", fallback: "8080", help: "port to listen on (0: any free port)" },
  host: { flag: "host", env: "HOST", metavar: "ADDR", fallback: "127.0.0.1", help: "address to bind; 0.0.0.0 for every interface" },
  demo: { flag: "demo", env: "LEAVEAPI_DEMO", fallback: "off", help: "seed a demo organisation into an empty store and print credentials" },
  "public-url": {
    flag: "public-url",
    env: "LEAVEAPI_PUBLIC_URL",
    metavar: "URL",
    fallback: "",
    help: "public base URL the metadata and OpenAPI print (default: the request's origin)",
  },
  issuer: { flag: "issuer", env: "LEAVEAPI_ISSUER", metavar: "URL", fallback: "", help: "older name of --public-url, still accepted" },
  "log-level": { flag: "log-level", env: "LOG_LEVEL", metavar: "LEVEL", fallback: "info", help: "debug|info|warn|error; requests log at info, 5xx at error" },
  "log-format": {
    flag: "log-format",
    env: "LOG_FORMAT",
    metavar: "FORMAT",
    fallback: "auto",
    help: "json|text|auto (auto: text on a terminal, else JSON lines)",
  },
  metrics: {
    flag: "metrics",
    env: "LEAVEAPI_METRICS",
    metavar: "MODE",
    fallback: "on",
    help: "on (GET /metrics on the API port) | off | HOST:PORT (only there)",
  },
  "idle-timeout": {
    flag: "idle-timeout",
    env: "LEAVEAPI_IDLE_TIMEOUT",
    metavar: "SECONDS",
    fallback: "30",
    help: "close a connection idle or stalled mid-request this long (1-255)",
  },
  "shutdown-timeout": {
    flag: "shutdown-timeout",
    env: "LEAVEAPI_SHUTDOWN_TIMEOUT",
    metavar: "SECONDS",
    fallback: "10",
    help: "how long SIGTERM/SIGINT waits for in-flight requests",
  },
  "tls-cert": { flag: "tls-cert", env: "LEAVEAPI_TLS_CERT", metavar: "FILE", fallback: "", help: "PEM certificate (chain): serve HTTPS; needs --tls-key" },
  "tls-key": { flag: "tls-key", env: "LEAVEAPI_TLS_KEY", metavar: "FILE", fallback: "", help: "PEM private key for --tls-cert" },
  "trust-proxy": { flag: "trust-proxy", env: "LEAVEAPI_TRUST_PROXY", fallback: "off", help: "take the client address from the last X-Forwarded-For entry" },
  workers: { flag: "workers", env: "LEAVEAPI_WORKERS", metavar: "N|auto", fallback: "1", help: "processes sharing the port (auto: one per CPU)" },
  watchdog: {
    flag: "watchdog",
    env: "LEAVEAPI_WATCHDOG",
    metavar: "SECONDS",
    fallback: "10",
    help: "end the process when its event loop is stuck this long (0: off)",
  },
  "deletions-retention-days": {
    flag: "deletions-retention-days",
    env: "LEAVEAPI_DELETIONS_RETENTION_DAYS",
    metavar: "DAYS",
    fallback: "90",
    help: "how far back GET /v1/deletions answers (older: 410 sync_expired)",
  },
  "read-rate-limit": {
    flag: "read-rate-limit",
    env: "LEAVEAPI_READ_RATE_LIMIT",
    metavar: "PER_SECOND",
    fallback: "100",
    help: "data requests a second per client, bursts of twice that, per process (0: no limit)",
  },
  "webhook-retry": {
    flag: "webhook-retry",
    env: "LEAVEAPI_WEBHOOK_RETRY",
    metavar: "SECONDS",
    fallback: "10",
    help: "first wait before a failed change notification is retried, doubled each time (0.1-3600)",
  },
} satisfies Record<string, Setting>;

type Name = keyof typeof SERVE_SETTINGS;
const BOOLEAN_SETTINGS = new Set<Name>(["demo", "trust-proxy"]);

/** The node:util parseArgs option table for the settings. */
export const SERVE_FLAGS = Object.fromEntries(
  Object.keys(SERVE_SETTINGS).map((name) => [name, { type: BOOLEAN_SETTINGS.has(name as Name) ? "boolean" : "string" }]),
) as Record<Name, { type: "string" | "boolean" }>;

export function serveHelp(usage: string): string {
  const rows = Object.values(SERVE_SETTINGS).map((s: Setting) => {
    const left = `  --${s.flag}${s.metavar ? ` ${s.metavar}` : ""}`;
    const fallback = s.fallback === "" ? "" : `; default ${s.fallback}`;
    return `${left.padEnd(30)} ${s.help}\n${"".padEnd(31)}(env ${s.env}${fallback})`;
  });
  return `usage: ${usage}\n\n${rows.join("\n")}\n
Flags win over the environment, which wins over the defaults. The global options
(--db, --database-url, ...) are listed by 'leaveapi --help'.
Logs one line per request to stdout; never a secret, token, Authorization header or
query string. SIGTERM or SIGINT: stop accepting, finish in-flight requests, exit 0.`;
}

type Values = Partial<Record<Name, string | boolean>>;
type Env = Record<string, string | undefined>;

/** The raw text of a setting and where it came from, for error messages. */
function raw(name: Name, values: Values, env: Env): { text: string; source: string } {
  const setting: Setting = SERVE_SETTINGS[name];
  const flag = values[name];
  if (flag !== undefined) return { text: flag === true ? "on" : String(flag), source: `--${setting.flag}` };
  const fromEnv = env[setting.env];
  if (fromEnv !== undefined && fromEnv !== "") return { text: fromEnv, source: setting.env };
  return { text: setting.fallback, source: `--${setting.flag}` };
}

function bad(source: string, expected: string, text: string): UsageError {
  return new UsageError(`${source} must be ${expected}; got '${text}'`);
}

function parseBoolean({ text, source }: { text: string; source: string }): boolean {
  if (/^(1|true|on|yes)$/i.test(text)) return true;
  if (/^(0|false|off|no)$/i.test(text)) return false;
  throw bad(source, "on or off", text);
}

export function parsePort(text: string, source: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw bad(source, "a number from 0 to 65535", text);
  return Number(text);
}

function parseChoice<T extends string>({ text, source }: { text: string; source: string }, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text)) throw bad(source, `one of ${choices.join("|")}`, text);
  return text as T;
}

function parseMetrics({ text, source }: { text: string; source: string }): MetricsMode {
  if (text === "on" || text === "off") return { kind: text };
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(text);
  if (!match) throw bad(source, "on, off or HOST:PORT", text);
  return { kind: "separate", hostname: match[1]!.replace(/^\[|\]$/g, ""), port: parsePort(match[2]!, source) };
}

function parseSeconds({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,6}(\.\d{1,3})?$/.test(text)) throw bad(source, "a number of seconds", text);
  return Math.round(Number(text) * 1000);
}

/** Bun's idleTimeout: whole seconds, at most 255; below 11 an answer that waits on a silent Postgres may be cut off. */
function parseIdleTimeout({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1 || Number(text) > 255) throw bad(source, "a whole number of seconds from 1 to 255", text);
  return Number(text);
}

function parseWorkers({ text, source }: { text: string; source: string }): number {
  if (text === "auto") return availableParallelism();
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1) throw bad(source, "a whole number above 0, or auto", text);
  return Number(text);
}

function parsePublicUrl({ text, source }: { text: string; source: string }): string | undefined {
  if (text === "") return undefined;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw bad(source, "an http(s) URL", text);
  const url = new URL(text);
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw bad(source, "an http(s) URL without query, fragment or user name", text);
  }
  return text.replace(/\/+$/, "");
}

/** `--public-url`, or its older name `--issuer`; both at once must agree. */
function resolvePublicUrl(get: (name: Name) => { text: string; source: string }): string | undefined {
  const publicUrl = parsePublicUrl(get("public-url"));
  const issuer = parsePublicUrl(get("issuer"));
  if (publicUrl !== undefined && issuer !== undefined && publicUrl !== issuer) {
    throw new UsageError(`${get("public-url").source} and ${get("issuer").source} (its older name) disagree; give only ${get("public-url").source}`);
  }
  return publicUrl ?? issuer;
}

/** Whole seconds; 0 turns the watchdog off. Below 2 a long garbage collection could end a healthy process. */
function parseWatchdog({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,4}$/.test(text) || (Number(text) !== 0 && Number(text) < 2)) throw bad(source, "0 (off) or a whole number of seconds from 2", text);
  return Number(text) * 1000;
}

/** Whole requests a second; 0 turns the budget off. */
function parseRate({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,6}$/.test(text)) throw bad(source, "0 (no limit) or a whole number of requests a second", text);
  return Number(text);
}

/** Seconds, tenths allowed: the first wait of the notification retries. */
function parseRetrySeconds({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,4}(\.\d)?$/.test(text) || Number(text) < 0.1 || Number(text) > 3600) throw bad(source, "seconds from 0.1 to 3600", text);
  return Math.round(Number(text) * 1000);
}

/** Whole days, at least one: the feed must reach back past a client's usual sync interval. */
function parseDays({ text, source }: { text: string; source: string }): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1) throw bad(source, "a whole number of days from 1", text);
  return Number(text);
}

function parseTls(values: Values, env: Env): ServeSettings["tls"] {
  const cert = raw("tls-cert", values, env).text;
  const key = raw("tls-key", values, env).text;
  if (cert === "" && key === "") return undefined;
  if (cert === "" || key === "") throw new UsageError("--tls-cert and --tls-key (env LEAVEAPI_TLS_CERT, LEAVEAPI_TLS_KEY) go together: give both or neither");
  return { certFile: cert, keyFile: key };
}

/** Resolves every serve setting: flag, else environment, else default. */
export function resolveServeSettings(values: Values, env: Env): ServeSettings {
  const get = (name: Name) => raw(name, values, env);
  return {
    port: parsePort(get("port").text, get("port").source),
    hostname: get("host").text,
    demo: parseBoolean(get("demo")),
    publicUrl: resolvePublicUrl(get),
    logLevel: parseChoice(get("log-level"), LOG_LEVELS),
    logFormat: parseChoice(get("log-format"), ["json", "text", "auto"] as const),
    metrics: parseMetrics(get("metrics")),
    deletionRetentionDays: parseDays(get("deletions-retention-days")),
    readRateLimit: parseRate(get("read-rate-limit")),
    webhookRetryMs: parseRetrySeconds(get("webhook-retry")),
    shutdownTimeoutMs: parseSeconds(get("shutdown-timeout")),
    idleTimeoutSeconds: parseIdleTimeout(get("idle-timeout")),
    tls: parseTls(values, env),
    trustProxy: parseBoolean(get("trust-proxy")),
    workers: parseWorkers(get("workers")),
    watchdogMs: parseWatchdog(get("watchdog")),
  };
}
