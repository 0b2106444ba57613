/**
 * The routes that are not data endpoints, one entry each with its OpenAPI operation: the
 * token endpoint, health, and the public documents.
 */
import { StoreUnavailableError, storeUnavailable } from "../lib/errors.ts";
import { DOCS_CONTENT_SECURITY_POLICY, DOCS_PATH, DOCS_SCRIPT_PATH, docsPage, docsScript } from "./docs-page.ts";
import { authorizationServerMetadata } from "./metadata.ts";
import { METADATA_PATH } from "./metadata-paths.ts";
import { METADATA_EXAMPLE, OPENAPI_EXAMPLE, TOKEN_EXAMPLE, TOKEN_REQUEST_EXAMPLE } from "./openapi-examples.ts";
import { json as jsonContent, publicGet, requestId, response, schemaRef, sizeLimits } from "./openapi-operations.ts";
import { json } from "./responses.ts";
import type { PlainRoute } from "./route-types.ts";
import { handleTokenRequest, TOKEN_BODY_LIMIT } from "./token-endpoint.ts";

export const TOKEN_ROUTE: PlainRoute = {
  kind: "plain",
  path: "/v1/oauth/token",
  method: "post",
  answer: (req, state, { store, randomBytes, limits, sha256Hex }) =>
    handleTokenRequest(req.request, state.url, store, {
      now: state.now,
      remoteAddress: state.remoteAddress,
      randomBytes,
      limits,
      sha256Hex,
      onAuthenticated: (client) => Object.assign(state, { organisationId: client.organisation_id, clientId: client.client_id }),
    }),
  operation: {
    operationId: "requestToken",
    tags: ["OAuth"],
    summary: "Exchange client credentials for an access token",
    description: "Client authentication by HTTP Basic or by client_id and client_secret in the form body; using both is refused.",
    security: [{ httpBasic: [] }, {}],
    requestBody: {
      required: true,
      description: `At most ${TOKEN_BODY_LIMIT} bytes.`,
      content: { "application/x-www-form-urlencoded": { schema: schemaRef("TokenRequest"), example: TOKEN_REQUEST_EXAMPLE } },
    },
    responses: {
      "200": {
        description: "A new access token. Every answer of this endpoint also carries `Pragma: no-cache`.",
        headers: requestId,
        content: jsonContent("TokenResponse", TOKEN_EXAMPLE),
      },
      "400": {
        description:
          "`invalid_request` (missing or repeated parameter, both Basic and form credentials, wrong content type, credentials in the URL), " +
          "`unsupported_grant_type`, `unauthorized_client` (the organisation's API access is switched off) or `invalid_scope`.",
        headers: requestId,
        content: jsonContent("Error", {
          error: "invalid_scope",
          error_description: "These scopes cannot be granted to this client: leave:read.",
          param: "scope",
        }),
      },
      "401": {
        description: "`invalid_client`: unknown client, wrong secret, revoked credentials or no credentials.",
        headers: {
          ...requestId,
          "WWW-Authenticate": { description: 'Always `Basic realm="leaveapi"`.', required: true, schema: { type: "string", const: 'Basic realm="leaveapi"' } },
        },
        content: jsonContent("Error", {
          error: "invalid_client",
          error_description: "Client authentication failed: unknown client, wrong secret or revoked credentials.",
        }),
      },
      "413": {
        description: `The request body is larger than ${TOKEN_BODY_LIMIT} bytes.`,
        headers: requestId,
        content: jsonContent("Error", { error: "invalid_request", error_description: `The token request body must be at most ${TOKEN_BODY_LIMIT} bytes.` }),
      },
      ...sizeLimits,
      "429": response("TooManyRequests"),
      "500": response("ServerError"),
      "503": response("ServiceUnavailable"),
    },
  },
};

/** A public GET route; HEAD is answered too. */
const get = (path: string, answer: PlainRoute["answer"], operation: object): PlainRoute => ({ kind: "plain", path, method: "get", answer, operation });

/** RFC 8414 metadata; the handler also answers it outside its base path (server/metadata-paths.ts). */
export const METADATA_ROUTE = get(
  METADATA_PATH,
  (_req, state, context) => json(200, authorizationServerMetadata(context.issuerFor(state.url))),
  publicGet("getAuthorizationServerMetadata", "OAuth 2.0 authorization server metadata (RFC 8414)", {
    description: "Where and how to obtain tokens.",
    headers: requestId,
    content: jsonContent("AuthorizationServerMetadata", METADATA_EXAMPLE),
  }),
);

export const SERVICE_ROUTES: readonly PlainRoute[] = [
  get(
    "/healthz",
    async (_req, state, { store }) => {
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
    },
    publicGet(
      "getHealth",
      "Readiness: 200 when the data store serves reads and issues tokens",
      { description: "The service and its store are up.", headers: requestId, content: jsonContent("Health", { status: "ok" }) },
      { "503": response("HealthUnavailable") },
    ),
  ),
  // Liveness: the process answers; the store is not asked (docs/api.md, "Public endpoints").
  get(
    "/livez",
    () => json(200, { status: "ok" }),
    publicGet("getLiveness", "Liveness: 200 while the process answers; the data store is not asked", {
      description: "The process is up and its event loop turns.",
      headers: requestId,
      content: jsonContent("Health", { status: "ok" }),
    }),
  ),
  get(
    "/v1/openapi.json",
    (_req, state, context) => json(200, context.openApiFor(context.issuerFor(state.url))),
    publicGet("getOpenApiDocument", "This OpenAPI document", {
      description: "The OpenAPI 3.1 document, with `servers` and the token URL set to this service's base URL.",
      headers: requestId,
      content: jsonContent("OpenApiDocument", OPENAPI_EXAMPLE),
    }),
  ),
  METADATA_ROUTE,
  get(
    DOCS_PATH,
    () => docsPage(),
    publicGet("getReferencePage", "This reference, as a web page", {
      description: "An HTML page that renders this document in the browser. It loads nothing from anywhere but this service.",
      headers: {
        ...requestId,
        "Content-Security-Policy": { description: "Only this origin.", required: true, schema: { type: "string", const: DOCS_CONTENT_SECURITY_POLICY } },
      },
      content: { "text/html": { schema: { type: "string" } } },
    }),
  ),
  get(
    DOCS_SCRIPT_PATH,
    (req, _state, { encoders, docsScriptBytes }) => docsScript(req.request, encoders, docsScriptBytes),
    publicGet("getReferencePageScript", "The script that renders the reference page", {
      description: "The API reference renderer (Scalar), served by this service so the page needs no other site.",
      headers: requestId,
      content: { "application/javascript": { schema: { type: "string" } } },
    }),
  ),
];
