/** RFC 8414 authorization server metadata: where and how to obtain tokens. */
import { ALL_SCOPES } from "../lib/scopes.ts";

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
