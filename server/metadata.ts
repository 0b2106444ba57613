/** The public, unauthenticated documents: RFC 8414 metadata and the OpenAPI document. */
import { ALL_SCOPES } from "../lib/scopes.ts";
import { openApiDocument } from "./openapi.ts";

export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    token_endpoint: `${issuer}/v1/oauth/token`,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: [],
  };
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
