/**
 * Serving under a path prefix (createHandler's `basePath`, docs/embedding.md, "Mounting under
 * a path prefix"): what a prefix may be, and whether a path is under it.
 */

/** Path segments itty-router can put into its route patterns verbatim (it escapes only "."). */
const BASE_PATH_PATTERN = /^(\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)+$/;

/** A set-up mistake in `basePath` throws here, when the handler is created, not on the first request. */
export function validBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === "") return "";
  if (!BASE_PATH_PATTERN.test(basePath)) {
    throw new Error(
      `basePath must look like "/hr-api": start with "/", no trailing slash, no "?" or "#", path segments of letters, digits and -._~ only; got ${JSON.stringify(basePath)}. Omit it to serve at the root.`,
    );
  }
  return basePath;
}

export function isUnderBasePath(pathname: string, basePath: string): boolean {
  return basePath === "" || pathname === basePath || pathname.startsWith(`${basePath}/`);
}
