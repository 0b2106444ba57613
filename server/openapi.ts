/**
 * The OpenAPI 3.1 document of the v1 API, generated: parameters and body schemas from the
 * valibot schemas that validate requests and type responses (server/openapi-schemas.ts),
 * operations in server/openapi-paths.ts, the rest in server/openapi-components.ts.
 *
 * Served at GET /v1/openapi.json (`openApiFor` adds this deployment's URLs) and
 * committed as openapi.json by `npm run openapi`; test/openapi.test.ts fails when the
 * committed file is not current, and every response the HTTP tests receive is validated
 * against it (test/openapi-conformance.ts).
 */
import { headers, responses, securitySchemes } from "./openapi-components.ts";
import { buildPaths } from "./openapi-paths.ts";
import { webhooks } from "./openapi-webhooks.ts";
import { componentSchemas } from "./openapi-schemas.ts";

const DESCRIPTION = `A read-only API over one organisation's employees, annual leave bookings and holidays.

**Authentication.** OAuth 2.0 client credentials: POST /v1/oauth/token with HTTP Basic (recommended) or
form-body client credentials, never both, then send \`Authorization: Bearer <token>\` on every data request.
A token lasts 3600 seconds: reuse it, and request a new one after a 401. Token requests are limited to 10 per
minute per set of credentials. Credentials or tokens in a URL are refused with 400.

**Errors.** Every error body is \`{"error", "error_description"}\`, plus \`param\` when one parameter is at fault.
Unknown and repeated query parameters are refused with 400. An unknown path is answered 404 and a method a
path does not answer 405 with \`Allow\` (see \`x-unmatched-requests\`).

**Paging and sync.** Employees are listed by (\`updated_at\`, \`id\`), leave bookings by (\`start_date\`, \`id\`).
Follow \`next_cursor\` while \`has_more\` is true. To keep a copy current, start each sync with \`updated_since\`
set to when the previous sync started, less a few seconds.

Every response carries \`Cache-Control: no-store\`, \`X-Content-Type-Options: nosniff\` and \`X-Request-Id\`;
every GET is also answered to HEAD. Records always carry every field; an unknown value is \`null\`.`;

/**
 * Answers to requests that match no operation: an unknown path, or a method a known path does
 * not answer. OpenAPI has no place for these, so they sit in this extension, which the
 * conformance check in the tests reads. Either can also be refused before routing.
 */
const beforeRouting = {
  "400": { $ref: "#/components/responses/CredentialsInUrl" },
  "414": { $ref: "#/components/responses/UriTooLong" },
  "431": { $ref: "#/components/responses/HeadersTooLarge" },
} as const;
const UNMATCHED_REQUESTS = {
  description: "Answers to a request that matches no operation of this document: an unknown path, or a method its path does not answer.",
  unknownPath: { responses: { ...beforeRouting, "404": { $ref: "#/components/responses/UnknownPath" } } },
  otherMethod: { responses: { ...beforeRouting, "405": { $ref: "#/components/responses/MethodNotAllowed" } } },
} as const;

export function buildOpenApiDocument() {
  return {
    openapi: "3.1.0",
    info: { title: "leaveapi", version: "1.0.0", description: DESCRIPTION, license: { name: "MIT", identifier: "MIT" } },
    tags: [
      { name: "OAuth", description: "Obtaining access tokens." },
      { name: "Employees", description: "Current and former employees." },
      { name: "Leave", description: "Annual leave bookings." },
      { name: "Holidays", description: "Public holidays and company closure days." },
      { name: "Service", description: "Public, unauthenticated documents and health." },
    ],
    // For the committed file; GET /v1/openapi.json answers with the URL it was fetched from instead.
    servers: [
      {
        url: "{baseUrl}",
        description: "Your leaveapi deployment",
        variables: {
          baseUrl: { default: "http://localhost:8080", description: "Its base URL, with any path prefix; `leaveapi serve` listens on 8080 by default." },
        },
      },
    ],
    paths: buildPaths(),
    webhooks,
    components: { schemas: componentSchemas(), headers, responses, securitySchemes },
    "x-unmatched-requests": UNMATCHED_REQUESTS,
  } as const;
}

/** Built once: the schemas do not change while the process runs. */
export const openApiDocument = buildOpenApiDocument();

/** The committed openapi.json, byte for byte: what `npm run openapi` writes and the test compares. */
export function renderOpenApiJson(): string {
  return `${JSON.stringify(openApiDocument, null, 2)}\n`;
}

/** The document with this deployment's URLs: relative token URLs break under a path prefix. */
export function openApiFor(issuer: string) {
  const schemes = openApiDocument.components.securitySchemes;
  return {
    ...openApiDocument,
    servers: [{ url: issuer }],
    components: {
      ...openApiDocument.components,
      securitySchemes: {
        ...schemes,
        oauth2: {
          ...schemes.oauth2,
          flows: { clientCredentials: { ...schemes.oauth2.flows.clientCredentials, tokenUrl: `${issuer}/v1/oauth/token` } },
        },
      },
    },
  };
}
