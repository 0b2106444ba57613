/**
 * The one handler: `(Request) => Promise<Response>`, like Hono's `app.fetch`. The server,
 * the Node bridge, Deno and the tests all call this same function.
 *
 * Order of checks (docs/api.md, "Order of checks"): a Host or target that makes no URL (400;
 * request-target.ts) → URL and header size (414, 431; request-limits.ts) → credentials in
 * the URL (400) → unknown path (404) or wrong method (405) → authentication (401) →
 * scope (403) → parameters (400) → lookup (404). Nothing a request carries can make this
 * function throw: every failure becomes an answer.
 */
import { IttyRouter, type IRequest } from "itty-router";
import { ApiError, StoreUnavailableError, invalidRequest, methodNotAllowed, notFound, serverError, storeUnavailable } from "../lib/errors.ts";
import { cryptoRandomBytes, type RandomBytes } from "../lib/credentials.ts";
import { loggablePath, redactSecrets, urlCarriesCredentials } from "../lib/url-credentials.ts";
import type { Scope } from "../lib/scopes.ts";
import type { PublicHolidaySource } from "../lib/public-holidays.ts";
import type { Store } from "../lib/store.ts";
import { RawJson } from "../lib/raw-json.ts";
import { getEmployee, listEmployeePage } from "../lib/employee-pages.ts";
import { listLeavePage } from "../lib/leave-pages.ts";
import { DEFAULT_DELETION_RETENTION_DAYS, checkDeletionFeedHorizon, listDeletionPage } from "../lib/deletion-pages.ts";
import { listHolidays, shippedPublicHolidaysOnFirstUse } from "../lib/holidays.ts";
import type { CredentialRestriction } from "../lib/restriction.ts";
import { parseDeletionsQuery, parseEmployeeId, parseEmployeesQuery, parseHolidaysQuery, parseLeaveQuery, readQuery } from "../lib/request-params.ts";
import { authenticate } from "./bearer.ts";
import { createReadBudget, type ReadBudgetOptions } from "../lib/read-budget.ts";
import { DOCS_PATH, DOCS_SCRIPT_PATH, docsPage, docsScript } from "./docs-page.ts";
import { WEB_ENCODERS, codedJson, encodeAnswer, type Encoders } from "./compression.ts";
import { authorizationServerMetadata, openApiFor } from "./metadata.ts";
import { METADATA_PATH, insertedMetadataPaths } from "./metadata-paths.ts";
import { errorResponse, finish, json, requestIdFor } from "./responses.ts";
import { URL_TOO_LONG_ROUTE, requestSizeError } from "./request-limits.ts";
import { BAD_TARGET_ROUTE, loggableMethod, requestUrl } from "./request-target.ts";
import { isUnderBasePath, validBasePath } from "./base-path.ts";
import { verifiedHmacSha256, type HmacSha256 } from "../lib/cursor-codec.ts";
import { DEFAULT_TOKEN_LIMITS, type TokenLimits } from "../lib/issue-token.ts";
import { verifiedSha256Hex, type Sha256Hex } from "../lib/digest.ts";
import { handleTokenRequest } from "./token-endpoint.ts";
import { createConditionalReads, matchesWeakly, notModified } from "./conditional.ts";

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

interface RequestState {
  url: URL;
  /** The method as sent (RequestInfo.method), which is what the routes check. */
  method: string;
  now: number;
  remoteAddress: string;
  route: string;
  organisationId?: string;
  clientId?: string;
  records?: number;
  /** A store failure answered without throwing (`/healthz`'s 503), for the log entry. */
  failure?: unknown;
}

/**
 * What the router sees: an object of its own that carries the caller's Request, never that
 * Request itself. itty-router writes `params`, `query` and `route` onto what it routes,
 * and a Request from Bun.serve's `routes` has a read-only `params` (writing it threw, and
 * every such request got a 500).
 */
type Routed = IRequest & { request: Request };
/**
 * A data endpoint for the token's organisation and client's restriction, in two steps: its
 * query (and path) read and checked (400); then the read, the 200's JSON body with its
 * record count (lookup: 404).
 */
type Endpoint = (organisationId: string, url: URL, routed: Routed, restriction: CredentialRestriction | undefined) => () => Promise<RawJson>;

const DATA_METHODS = ["GET", "HEAD"] as const;

export function createHandler(options: HandlerOptions): Handler {
  const { store } = options;
  const now = options.now ?? Date.now;
  const randomBytes = options.randomBytes ?? cryptoRandomBytes;
  const mac = options.hmacSha256 === undefined ? undefined : verifiedHmacSha256(options.hmacSha256);
  const sha256Hex = options.sha256Hex === undefined ? undefined : verifiedSha256Hex(options.sha256Hex);
  const limits: TokenLimits = { ...DEFAULT_TOKEN_LIMITS, ...options.tokenLimits };
  const basePath = validBasePath(options.basePath);
  const publicHolidays = options.publicHolidays ?? shippedPublicHolidaysOnFirstUse;
  const issuerFor = (url: URL) => options.issuer ?? url.origin + basePath;
  const encoders = options.encoders ?? WEB_ENCODERS;
  const retentionDays = options.deletionRetentionDays ?? DEFAULT_DELETION_RETENTION_DAYS;
  const readBudget = createReadBudget(options.readRateLimit ?? { perSecond: 0 });
  const conditional = createConditionalReads(store, { mac, sha256Hex }, options.release ?? "");

  const only = (methods: readonly string[], state: RequestState) => {
    if (!methods.includes(state.method)) throw methodNotAllowed(methods);
  };

  /** `stillCurrent`: what time alone may change of an answer whose tag matched (the deletions feed's 410). */
  const data = (route: string, scope: Scope, endpoint: Endpoint, stillCurrent?: (url: URL) => void) => async (req: Routed, state: RequestState) => {
    state.route = route;
    only(DATA_METHODS, state);
    const grant = await authenticate(req.request, store, scope, state.now, sha256Hex);
    state.organisationId = grant.organisation_id;
    state.clientId = grant.client_id;
    // A tag If-None-Match names is tested before the budget is spent (server/conditional.ts).
    const asked = conditional.asked(req.request);
    const prepare = () => endpoint(grant.organisation_id, state.url, req, grant.restriction);
    if (asked.kind !== "tags") readBudget.spend(grant.client_id, state.now);
    let read = asked.kind === "tags" ? undefined : prepare();
    const tag = await conditional.tagOf({ organisationId: grant.organisation_id, clientId: grant.client_id, restriction: grant.restriction, url: state.url });
    if (tag !== null && matchesWeakly(asked, tag)) {
      // A tag is given only with a 200 of this very URL, whose parameters passed then.
      stillCurrent?.(state.url);
      return notModified(tag, state);
    }
    read ??= prepare();
    if (asked.kind === "tags") readBudget.spend(grant.client_id, state.now);
    const body = await read();
    // `*` matches any current answer (RFC 9110 §13.1.2), known once it has been read.
    if (tag !== null && asked.kind === "any") return notModified(tag, state);
    state.records = body.records;
    const response = await codedJson(200, body.text, req.request.headers.get("accept-encoding"), encoders);
    if (tag !== null) response.headers.set("ETag", tag);
    return response;
  };

  const metadata = (route: string, state: RequestState) => {
    state.route = route;
    only(DATA_METHODS, state);
    return json(200, authorizationServerMetadata(issuerFor(state.url)));
  };
  const metadataOutsideBase = insertedMetadataPaths(basePath, options.issuer);

  const router = IttyRouter<Routed, [RequestState]>({ base: basePath });
  router
    .all("/v1/oauth/token", (req, state) => {
      state.route = "/v1/oauth/token";
      only(["POST"], state);
      return handleTokenRequest(req.request, state.url, store, {
        now: state.now,
        remoteAddress: state.remoteAddress,
        randomBytes,
        limits,
        sha256Hex,
        onAuthenticated: (client) => Object.assign(state, { organisationId: client.organisation_id, clientId: client.client_id }),
      });
    })
    .all(
      "/v1/employees",
      data("/v1/employees", "employees:read", (org, url, _req, restriction) => {
        const params = parseEmployeesQuery(url);
        return () => listEmployeePage(store, org, params, mac, restriction);
      }),
    )
    .all(
      "/v1/employees/:id",
      data("/v1/employees/{id}", "employees:read", (org, url, req, restriction) => {
        // No query parameters here; any is refused like a typo on the lists (docs/api.md, "Query parameters").
        readQuery(url, []);
        const id = parseEmployeeId(req.params.id ?? "");
        return async () => RawJson.of({ data: await getEmployee(store, org, id, restriction) }, 1);
      }),
    )
    .all(
      "/v1/leave-requests",
      data("/v1/leave-requests", "leave:read", (org, url, _req, restriction) => {
        const params = parseLeaveQuery(url);
        return () => listLeavePage(store, org, params, mac, restriction);
      }),
    )
    .all("/v1/deletions", async (req, state) => {
      // The scope depends on the resource asked about, so it is read first; a bad one is
      // still answered only after authentication (docs/api.md, "Order of checks").
      const resource = state.url.searchParams.get("resource");
      const scope: Scope = resource === "employees" ? "employees:read" : "leave:read";
      const feed = data(
        "/v1/deletions",
        scope,
        (org, url, _req, restriction) => {
          const params = parseDeletionsQuery(url);
          return () => listDeletionPage(store, org, params, { now: state.now, retentionDays, mac, restriction });
        },
        // The one check that time alone changes: a 304 must never stand for a 410.
        (url) => checkDeletionFeedHorizon(parseDeletionsQuery(url).updated_since, state.now, retentionDays),
      );
      return feed(req, state);
    })
    .all(
      "/v1/holidays",
      data("/v1/holidays", "holidays:read", (org, url, _req, restriction) => {
        const params = parseHolidaysQuery(url);
        return async () => {
          const holidays = await listHolidays(store, org, params, publicHolidays, restriction);
          return RawJson.of({ data: holidays }, holidays.length);
        };
      }),
    )
    .all("/healthz", async (_req, state) => {
      state.route = "/healthz";
      only(DATA_METHODS, state);
      try {
        await store.ping();
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        // Which of the two the store cannot do (DECISIONS §9): reads, or token issuance.
        // The failure goes into this request's log entry, as any other store failure's does.
        state.failure = error;
        const unavailable = storeUnavailable();
        return json(503, { ...unavailable.body, unavailable: error.part }, unavailable.headers);
      }
      return json(200, { status: "ok" });
    })
    // Liveness: the process answers; the store is not asked (docs/api.md, "Public endpoints").
    .all("/livez", (_req, state) => {
      state.route = "/livez";
      only(DATA_METHODS, state);
      return json(200, { status: "ok" });
    })
    .all("/v1/openapi.json", (_req, state) => {
      state.route = "/v1/openapi.json";
      only(DATA_METHODS, state);
      return json(200, openApiFor(issuerFor(state.url)));
    })
    .all(METADATA_PATH, (_req, state) => metadata(METADATA_PATH, state))
    .all(DOCS_PATH, (_req, state) => {
      state.route = DOCS_PATH;
      only(DATA_METHODS, state);
      return docsPage();
    })
    .all(DOCS_SCRIPT_PATH, (req, state) => {
      state.route = DOCS_SCRIPT_PATH;
      only(DATA_METHODS, state);
      return docsScript(req.request, encoders, options.docsScriptBytes);
    })
    .all("*", () => {
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
    if (metadataOutsideBase.has(url.pathname)) return metadata(url.pathname, state);
    if (!isUnderBasePath(url.pathname, basePath)) throw notFound();
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
    response = await encodeAnswer(response, req.headers.get("accept-encoding"), encoders);
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
