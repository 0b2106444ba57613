/**
 * Where the RFC 8414 metadata is found outside the base path (docs/embedding.md, "Mounting
 * under a path prefix"). An issuer with a path, such as `https://host/hr-api`, has its
 * metadata at `https://host/.well-known/oauth-authorization-server/hr-api` (RFC 8414 §3.1:
 * the well-known segment goes between the host and the issuer's path), which is where
 * oauth4webapi and openid-client look; the router serves the prefixed
 * `/hr-api/.well-known/oauth-authorization-server` as well.
 */

export const METADATA_PATH = "/.well-known/oauth-authorization-server";

/**
 * The RFC 8414 §3.1 paths the handler answers with its metadata besides
 * `<basePath>/.well-known/oauth-authorization-server`: the one derived from `basePath`
 * (what the host routes when it forwards paths unchanged) and, when `issuer` is set, the
 * one derived from the issuer's path (what a proxy that rewrites the prefix forwards when
 * it passes the discovery request through as it came). Empty when neither has a path:
 * the metadata is then at the root, where the router already serves it.
 */
export function insertedMetadataPaths(basePath: string, issuer: string | undefined): Set<string> {
  const prefixes = [basePath];
  // An issuer that is no URL derives no address; the documents still print it as given.
  if (issuer !== undefined && URL.canParse(issuer)) {
    // RFC 8414 §3.1: "any terminating '/' MUST be removed" from the issuer's path first.
    prefixes.push(new URL(issuer).pathname.replace(/\/+$/, ""));
  }
  return new Set(prefixes.filter((prefix) => prefix !== "").map((prefix) => METADATA_PATH + prefix));
}
