/**
 * GET /docs: the API reference, rendered in the browser by Scalar (@scalar/api-reference)
 * from /v1/openapi.json. The renderer's standalone bundle is embedded (server/docs-script.ts):
 * the page loads nothing but this server's own URLs, and its Content-Security-Policy
 * forbids anything else.
 */

export const DOCS_PATH = "/docs";
export const DOCS_SCRIPT_PATH = "/docs/api-reference.js";

/**
 * Only this origin, for everything. Scalar needs two exceptions, both inline and neither a
 * way out of the machine: it injects its stylesheet and sets element styles at run time
 * (style-src 'unsafe-inline'), and its icons and logos are data: URLs (img-src, font-src data:).
 * Scripts stay 'self' only: the configuration is a data attribute, not an inline script, and
 * no 'unsafe-eval': zod inside Scalar probes `new Function` once and works without it.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * No fonts from fonts.scalar.com, no telemetry, no AI agent: each would call out. URLs are
 * relative to /docs so the page keeps working when a proxy mounts the API under a prefix.
 */
const SCALAR_CONFIGURATION = {
  url: "v1/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
  defaultOpenAllTags: true,
};

const escapeAttribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>leaveapi API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <script id="api-reference" data-configuration="${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}"></script>
    <script src="${DOCS_SCRIPT_PATH.slice(1)}"></script>
  </body>
</html>
`;

/** The reference page; the handler adds the headers every response carries. */
export function docsPage(): Response {
  return new Response(PAGE, {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": DOCS_CONTENT_SECURITY_POLICY,
      "Referrer-Policy": "no-referrer",
    },
  });
}

/** Scalar's standalone bundle, as shipped in the package this server was built with; loaded on first use. */
export async function docsScript(): Promise<Response> {
  const { default: scalarBundle } = await import("./docs-script.ts");
  return new Response(scalarBundle, { status: 200, headers: { "Content-Type": "application/javascript; charset=utf-8" } });
}
