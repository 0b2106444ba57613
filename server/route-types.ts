/**
 * What an entry of the route table (server/routes.ts) is: its path, how it is answered and
 * its OpenAPI operation, side by side, so that the router (handler.ts), the document's
 * paths (openapi-paths.ts → openapi.json) and the tests' list of routes all come from the
 * one entry.
 */
import type { IRequest } from "itty-router";
import type { RandomBytes } from "../lib/credentials.ts";
import type { HmacSha256 } from "../lib/cursor-codec.ts";
import type { Sha256Hex } from "../lib/digest.ts";
import type { TokenLimits } from "../lib/issue-token.ts";
import type { PublicHolidaySource } from "../lib/public-holidays.ts";
import type { RawJson } from "../lib/raw-json.ts";
import type { CredentialRestriction } from "../lib/restriction.ts";
import type { Scope } from "../lib/scopes.ts";
import type { OptionalStoreMember, Store } from "../lib/store.ts";
import type { Encoders } from "./compression.ts";

/** One request on its way through the handler; what its log entry is made of. */
export interface RequestState {
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
export type Routed = IRequest & { request: Request };

/** What createHandler makes of its options once, for every route to use. */
export interface RouteContext {
  store: Store;
  mac: HmacSha256 | undefined;
  sha256Hex: Sha256Hex | undefined;
  randomBytes: RandomBytes;
  limits: TokenLimits;
  publicHolidays: PublicHolidaySource;
  retentionDays: number;
  encoders: Encoders;
  docsScriptBytes: (() => Promise<Uint8Array<ArrayBuffer>>) | undefined;
  /** The public base URL (HandlerOptions.issuer, or the request's origin and base path). */
  issuerFor(url: URL): string;
  /** The OpenAPI document with this deployment's URLs: passed in, since that document is built from this table. */
  openApiFor(issuer: string): object;
}

/** A data route's request once its token passed: whose data, and what it asked. */
export interface DataCall {
  organisationId: string;
  restriction: CredentialRestriction | undefined;
  url: URL;
  /** The path's parameters as matched, still percent-encoded: `id` of /v1/employees/{id}. */
  params: Record<string, string | undefined>;
  now: number;
}

/**
 * A data endpoint: GET (and HEAD) with a Bearer token of its scope, spending the client's
 * read budget, answered with a JSON body and an ETag (server/serve-data.ts).
 */
export interface DataRoute {
  kind: "data";
  /** The path as OpenAPI writes it, `{name}` for a parameter. */
  path: string;
  /** The scopes a token may hold to read it: the OpenAPI security, one entry each. */
  scopes: readonly [Scope, ...Scope[]];
  /** Which of `scopes` this request needs, when there are several (the deletions feed's depends on `resource`). */
  scopeOf?(url: URL): Scope;
  /**
   * The optional Store member the route reads (lib/store.ts, `OptionalStoreMember`): on a
   * store without it the route answers 501 after authentication, and its operation
   * documents that 501 (docs/embedding.md, "How the Store interface changes").
   */
  needs?: OptionalStoreMember;
  /**
   * Two steps: the request's query and path read and checked (a 400 throws here); then the
   * read, the 200's body with its record count (a 404 throws there).
   */
  prepare(call: DataCall, context: RouteContext): () => Promise<RawJson>;
  /** What time alone may change of an answer whose tag matched (the deletions feed's 410): throws as the 200 would. */
  stillCurrent?(call: DataCall, context: RouteContext): void;
  operation: object;
}

/** Any other route: public documents, health, the token endpoint. */
export interface PlainRoute {
  kind: "plain";
  path: string;
  /** GET routes answer HEAD too. */
  method: "get" | "post";
  answer(req: Routed, state: RequestState, context: RouteContext): Response | Promise<Response>;
  operation: object;
}

export type Route = DataRoute | PlainRoute;

/** The methods a route answers, as `Allow` lists them. */
export const methodsOf = (route: Route): readonly string[] => (route.kind === "plain" && route.method === "post" ? ["POST"] : ["GET", "HEAD"]);

/** The route's path as itty-router matches it: `{id}` → `:id`. */
export const routerPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");
