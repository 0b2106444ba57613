/**
 * The one handler: `(Request) => Promise<Response>`, like Hono's `app.fetch`. The server,
 * the Node bridge, Deno and the tests all call this same function.
 *
 * Order of checks (docs/api.md, "Order of checks"): a Host or target that makes no URL (400;
 * request-target.ts) → URL and header size (414, 431; request-limits.ts) → credentials in
 * the URL (400) → unknown path (404) or wrong method (405) → authentication (401) →
 * scope (403) → a Store capability the route needs (501) → parameters (400) → lookup
 * (404). Nothing a request carries can make this function throw: every failure becomes
 * an answer. The routes, and how each is answered, are the table of server/routes.ts.
 */
import { IttyRouter } from "itty-router";
import { ApiError, StoreUnavailableError, invalidRequest, notFound, serverError, storeUnavailable } from "../lib/errors.ts";
import { cryptoRandomBytes, type RandomBytes } from "../lib/credentials.ts";
import { loggablePath, redactSecrets, urlCarriesCredentials } from "../lib/url-credentials.ts";
import type { PublicHolidaySource } from "../lib/public-holidays.ts";
import type { Store } from "../lib/store.ts";
import { DEFAULT_DELETION_RETENTION_DAYS } from "../lib/deletion-pages.ts";
import { shippedPublicHolidaysOnFirstUse } from "../lib/holidays.ts";
import { createReadBudget, type ReadBudgetOptions } from "../lib/read-budget.ts";
import { WEB_ENCODERS, encodeAnswer, type Encoders } from "./compression.ts";
import { openApiFor } from "./openapi.ts";
import { insertedMetadataPaths } from "./metadata-paths.ts";
import { errorResponse, finish, requestIdFor } from "./responses.ts";
import { URL_TOO_LONG_ROUTE, requestSizeError } from "./request-limits.ts";
import { BAD_TARGET_ROUTE, loggableMethod, requestUrl } from "./request-target.ts";
import { isUnderBasePath, validBasePath } from "./base-path.ts";
import { verifiedHmacSha256, type HmacSha256 } from "../lib/cursor-codec.ts";
import { DEFAULT_TOKEN_LIMITS, type TokenLimits } from "../lib/issue-token.ts";
import { verifiedSha256Hex, type Sha256Hex } from "../lib/digest.ts";
import { createConditionalReads } from "./conditional.ts";
import { ROUTES } from "./routes.ts";
import { methodsOf, routerPath, type PlainRoute, type RequestState, type Route, type RouteContext, type Routed } from "./route-types.ts";
import { checkMethod, serveData } from "./serve-data.ts";
import { METADATA_ROUTE } from "./service-routes.ts";

export interface RequestLogEntry {
  time: string;
  level: "info" | "warn" | "error";
  request_id: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  organisation_id?: string;
  client_id?: string;
  /** How many records a data request answered with (a page's, a holiday list's, or 1 for one employee): with the organisation and client, who read how much (docs/api.md, "Personal data"). */
  records?: number;
  error?: string;
  /**
   * True when no route matched, so that `route` is the request's own path: a metric
   * labels such requests as one (`unmatched`), not by a path any scanner can choose.
   */
  unmatched?: boolean;
}

export interface HandlerOptions {
  store: Store;
  /**
   * The public base URL of the API (no trailing slash) that metadata and the OpenAPI
   * document print, used as given: it already includes any path prefix. By default the
   * request's own origin followed by `basePath`. Its path also gives a metadata address:
   * `/.well-known/oauth-authorization-server<issuer's path>` (RFC 8414 §3.1).
   */
  issuer?: string;
  /**
   * A path prefix to serve under, e.g. "/hr-api" → `/hr-api/v1/employees`; anything
   * outside it is 404 but the metadata's RFC 8414 §3.1 address,
   * `/.well-known/oauth-authorization-server/hr-api` (docs/embedding.md). Path segments
   * of letters, digits and `-._~`, no trailing slash. By default the API is served at the root.
   */
  basePath?: string;
  /** Milliseconds since the epoch; pass a fake clock in tests. */
  now?: () => number;
  randomBytes?: RandomBytes;
  /**
   * HMAC-SHA256 (all 32 bytes) of the data under the key: how paging cursors are signed.
   * By default pure JavaScript (@noble/hashes, any runtime); `leaveapi serve` passes
   * node:crypto's, several times faster. One that computes otherwise throws when the
   * handler is created.
   */
  hmacSha256?: HmacSha256;
  /**
   * SHA-256 of a string's UTF-8 bytes as lowercase hex: how the token endpoint digests
   * client secrets and the tokens it stores, and how a data request's bearer token is
   * digested to be looked up. By default pure JavaScript (@noble/hashes,
   * any runtime); `leaveapi serve` passes node:crypto's (adapters/node-crypto.ts), several
   * times faster. One that digests otherwise throws when the handler is created.
   */
  sha256Hex?: Sha256Hex;
  /** Receives one entry per request; never given secrets, tokens or query strings. */
  log?: (entry: RequestLogEntry) => void;
  tokenLimits?: Partial<TokenLimits>;
  /**
   * Where the dataset's public holidays come from. By default they are computed in this
   * thread and remembered: the first request for a lunar-calendar year (CN, TW, HK, VN,
   * KR) then holds the event loop while the year is computed (bench/RESULTS.md,
   * "Holiday calendar-years"). `leaveapi serve` passes
   * createHolidayWorker's source, which computes them in a worker thread.
   */
  publicHolidays?: PublicHolidaySource;
  /**
   * The content codings answers may be sent in (docs/api.md, "HTTP behaviour"): by default
   * gzip through the web-standard CompressionStream; `leaveapi serve` passes gzip and br
   * from node:zlib (adapters/zlib-encoders.ts).
   */
  encoders?: Encoders;
  /**
   * Reads the bytes of Scalar's bundle that /docs/api-reference.js serves. By default the
   * bundle is the text module server/docs-script.ts, whose first load parses the whole
   * bundle on the event loop (bench/RESULTS.md, "The docs script"); `leaveapi serve` passes a read of the
   * file itself (adapters/bun/docs-script-file.ts), which parses nothing.
   */
  docsScriptBytes?: () => Promise<Uint8Array<ArrayBuffer>>;
  /**
   * The data endpoints' budget per client (lib/read-budget.ts): past it, 429. Off unless
   * given, so that an embedding app decides; `leaveapi serve` passes 100 a second with
   * bursts of 200 by default (`--read-rate-limit`).
   */
  readRateLimit?: ReadBudgetOptions;
  /**
   * Whole days the store keeps tombstones (docs/api.md, "GET /v1/deletions"): a deletions
   * request with an older `updated_since` is 410 `sync_expired`. Default 90.
   */
  deletionRetentionDays?: number;
  /** The host's release (and its shipped holiday data), in every ETag (docs/api.md, "Conditional reads"); `leaveapi serve` passes its version. */
  release?: string;
}

/** What a host passes beside the request. */
export interface RequestInfo {
  /** The client's address, for the per-address limit on failed authentications. */
  remoteAddress?: string;
  /**
   * The method exactly as the client spelled it, when a web Request cannot carry it: the
   * fetch standard upper-cases `get`, `post`, `put`, `delete`, `head` and `options` in any
   * case, but methods are case-sensitive (RFC 9110 §9.1), so `get` is not GET and gets
   * 405. The Node bridge passes it for the methods its parser refuses.
   */
  method?: string;
}

export type Handler = (req: Request, info?: RequestInfo) => Promise<Response>;

export function createHandler(options: HandlerOptions): Handler {
  return handlerOf(options, ROUTES);
}

/** createHandler over a route table of its own: ROUTES, or (in a test) more. */
export function handlerOf(options: HandlerOptions, routes: readonly Route[]): Handler {
  const { store } = options;
  const now = options.now ?? Date.now;
  const mac = options.hmacSha256 === undefined ? undefined : verifiedHmacSha256(options.hmacSha256);
  const sha256Hex = options.sha256Hex === undefined ? undefined : verifiedSha256Hex(options.sha256Hex);
  const basePath = validBasePath(options.basePath);
  const context: RouteContext = {
    store,
    mac,
    sha256Hex,
    randomBytes: options.randomBytes ?? cryptoRandomBytes,
    limits: { ...DEFAULT_TOKEN_LIMITS, ...options.tokenLimits },
    publicHolidays: options.publicHolidays ?? shippedPublicHolidaysOnFirstUse,
    retentionDays: options.deletionRetentionDays ?? DEFAULT_DELETION_RETENTION_DAYS,
    encoders: options.encoders ?? WEB_ENCODERS,
    docsScriptBytes: options.docsScriptBytes,
    issuerFor: (url) => options.issuer ?? url.origin + basePath,
    openApiFor,
  };
  const readBudget = createReadBudget(options.readRateLimit ?? { perSecond: 0 });
  const conditional = createConditionalReads(store, { mac, sha256Hex }, options.release ?? "");

  const servePlain = (route: PlainRoute, routeName = route.path) => {
    const methods = methodsOf(route);
    return (req: Routed, state: RequestState) => {
      state.route = routeName;
      checkMethod(methods, state);
      return route.answer(req, state, context);
    };
  };
  const metadataOutsideBase = insertedMetadataPaths(basePath, options.issuer);

  const router = IttyRouter<Routed, [RequestState]>({ base: basePath });
  // A route without parameters is found by its path alone: itty-router parses the URL again
  // and tries each route's pattern in turn, 13% of a small answer's time under load
  // (bench/RESULTS.md, "The request path's fixed costs"). The router keeps the others.
  const exactRoutes = new Map<string, (req: Routed, state: RequestState) => Promise<Response> | Response>();
  for (const route of routes) {
    const serve = route.kind === "data" ? serveData(route, context, conditional, readBudget) : servePlain(route);
    if (route.path.includes("{")) router.all(routerPath(route.path), serve);
    else exactRoutes.set(basePath + route.path, serve);
  }
  // Found first, an exact path must be one no route with parameters would have answered.
  for (const route of routes.filter((r) => r.path.includes("{"))) {
    const pattern = new RegExp(`^${basePath}${route.path.replace(/\{\w+\}/g, "[^/]+")}$`);
    const shadowed = [...exactRoutes.keys()].find((path) => pattern.test(path));
    if (shadowed) throw new Error(`Route ${route.path} also matches ${shadowed}, which is answered by its own route`);
  }
  router.all("*", () => {
    throw notFound();
  });

  /** Everything after the URL is known; throws ApiError (and anything a store throws). */
  const answer = async (req: Request, state: RequestState): Promise<Response> => {
    const { url } = state;
    // The size limits bound what every later check reads (414, 431).
    const tooLarge = requestSizeError(req, url);
    if (tooLarge) {
      if (tooLarge.status === 414) state.route = URL_TOO_LONG_ROUTE;
      throw tooLarge;
    }
    if (urlCarriesCredentials(url)) {
      throw invalidRequest("Credentials and tokens must never be sent in the URL; use the Authorization header or the form body.");
    }
    // One spelling per resource: a trailing slash is another, unknown path (never a redirect).
    if (url.pathname.length > 1 && url.pathname.endsWith("/")) throw notFound();
    // RFC 8414 §3.1 discovery under a prefix (docs/embedding.md, "Mounting under a path prefix").
    if (metadataOutsideBase.has(url.pathname)) return servePlain(METADATA_ROUTE, url.pathname)({ request: req } as Routed, state);
    if (!isUnderBasePath(url.pathname, basePath)) throw notFound();
    const exact = exactRoutes.get(url.pathname);
    if (exact) return exact({ method: req.method, url: url.href, request: req, params: {}, query: {} } as unknown as Routed, state);
    const routed = { method: req.method, url: url.href, request: req } as Routed;
    return (await router.fetch(routed, state)) as Response;
  };

  return async function handle(req: Request, info: RequestInfo = {}): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdFor(req);
    const method = info.method ?? req.method;
    const target = requestUrl(req);
    let state: RequestState | undefined;
    let response: Response;
    let failure: unknown;
    if (target instanceof URL) {
      state = { url: target, method, now: now(), remoteAddress: info.remoteAddress ?? "unknown", route: "unmatched" };
      try {
        response = await answer(req, state);
      } catch (error) {
        if (!(error instanceof ApiError)) failure = error;
        response = errorResponse(error instanceof ApiError ? error : error instanceof StoreUnavailableError ? storeUnavailable() : serverError());
      }
      failure ??= state.failure;
      // Every token-endpoint answer, the URL-credentials refusal included (RFC 6749 §5.1).
      if (target.pathname === `${basePath}/v1/oauth/token`) response.headers.set("Pragma", "no-cache");
    } else {
      response = errorResponse(target);
    }
    response = await encodeAnswer(response, req.headers.get("accept-encoding"), context.encoders);
    options.log?.({
      time: new Date().toISOString(),
      level: response.status >= 500 ? "error" : "info",
      request_id: requestId,
      method: loggableMethod(method),
      route: state === undefined ? BAD_TARGET_ROUTE : state.route === "unmatched" ? loggablePath(state.url) : state.route,
      unmatched: state?.route === "unmatched" || undefined,
      status: response.status,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      organisation_id: state?.organisationId,
      client_id: state?.clientId,
      records: state?.records,
      error: failure === undefined ? undefined : redactSecrets(failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)),
    });
    return finish(response, requestId, method === "HEAD");
  };
}
