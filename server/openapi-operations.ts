/**
 * The parts OpenAPI operations are built of (the operations themselves sit with their
 * routes: server/data-routes.ts, server/service-routes.ts). Each operation lists every
 * status it can answer, the ones decided before routing (URL and header size, credentials
 * in the URL) included, because the test suite checks every response it receives against
 * this list.
 */
import type { Scope } from "../lib/scopes.ts";
import type { ComponentName, ParameterObject } from "./openapi-schemas.ts";

export const response = (name: string) => ({ $ref: `#/components/responses/${name}` }) as const;
export const schemaRef = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` }) as const;
export const requestId = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } } as const;
export const json = <E extends object>(schema: ComponentName, example: E) => ({ "application/json": { schema: schemaRef(schema), example } }) as const;

/** A data answer's headers: its id and its ETag (docs/api.md, "Conditional reads"). */
const tagged = { ...requestId, ETag: { $ref: "#/components/headers/ETag" } } as const;
/** What a data endpoint takes beside its query: If-None-Match, and the 304 it may bring. */
const IF_NONE_MATCH = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "ETags of answers you hold (RFC 9110 §13.1.2), or `*`; when one is the current ETag the answer is 304 with no body, and the read budget is not spent. " +
    "Members that are not entity tags match nothing.",
  schema: { type: "string", pattern: '^(\\*|\\s*(W/)?"[^"]*"\\s*(,\\s*(W/)?"[^"]*"\\s*)*)$' },
} as const;
const conditional = { "304": response("NotModified") } as const;

/** Decided before routing, so any request can get them (server/request-limits.ts). */
export const sizeLimits = { "414": response("UriTooLong"), "431": response("HeadersTooLarge") } as const;
const dataErrors = {
  "400": response("BadRequest"),
  "401": response("Unauthorized"),
  "403": response("Forbidden"),
  "429": response("ReadRateLimited"),
  ...sizeLimits,
  "500": response("ServerError"),
  "503": response("ServiceUnavailable"),
} as const;
const publicErrors = { "400": response("CredentialsInUrl"), ...sizeLimits, "500": response("ServerError") } as const;

/** The 501 of a route that `needs` an optional Store member (lib/errors.ts, `notProvidedByStore`). */
const notProvided = {
  "501": {
    description:
      'This server\'s data store does not provide what the endpoint reads: it predates the endpoint (docs/embedding.md, "How the Store interface changes").',
    headers: requestId,
    content: json("Error", {
      error: "server_error",
      error_description: "This endpoint is not available on this server: its data store does not provide what it reads.",
    }),
  },
} as const;

/** A data endpoint's own part of its operation; the rest follows from its route. */
export interface DataOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  /** Its query parameters (`queryParameters` of the schema that checks them) or path parameters; If-None-Match is added. */
  parameters: ParameterObject[];
  /** The 200: what it is, and its body (`json(component, example)`). */
  ok: { description: string; content: object };
  /** Statuses beside those every data endpoint may answer (404, 410). */
  errors?: object;
}

/** The whole operation of a data endpoint: its Bearer scopes, If-None-Match, the 200 with its ETag, the 304 and every error a data endpoint may answer. */
export function dataOperation(own: DataOperation, scopes: readonly Scope[], needsStore: boolean) {
  const { ok, errors, parameters, ...head } = own;
  return {
    ...head,
    security: scopes.map((scope) => ({ oauth2: [scope] })),
    parameters: [...parameters, IF_NONE_MATCH],
    responses: {
      "200": { description: ok.description, headers: tagged, content: ok.content },
      ...conditional,
      ...dataErrors,
      ...errors,
      ...(needsStore ? notProvided : {}),
    },
  };
}

/** A public GET: no authentication, no parameters. */
export function publicGet<R extends object>(operationId: string, summary: string, ok: R, extraErrors: object = {}) {
  return { operationId, tags: ["Service"], summary, security: [], responses: { "200": ok, ...publicErrors, ...extraErrors } };
}
