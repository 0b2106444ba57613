/**
 * GET /docs: the API reference, rendered in the browser by Scalar (@scalar/api-reference)
 * from /v1/openapi.json. The renderer's standalone bundle is embedded (server/docs-script.ts):
 * the page loads nothing but this server's own URLs, and its Content-Security-Policy
 * forbids anything else.
 */
import { chooseCoding, type ContentCoding, type Encoders } from "./compression.ts";
import { sha256 } from "@noble/hashes/sha2.js";

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

interface DocsScript {
  /** The strong validator of the uncoded bytes: a digest of them, so it changes with the bundle. */
  etag: string;
  bytes: Uint8Array;
  /** Each coding computed once, on first use. */
  coded: Map<ContentCoding, Promise<Uint8Array>>;
}

let script: Promise<DocsScript> | undefined;

/** The bundle as a text module, parsed on first use (HandlerOptions.docsScriptBytes says what that costs). */
async function bundledText(): Promise<Uint8Array<ArrayBuffer>> {
  const { default: scalarBundle } = await import("./docs-script.ts");
  return new TextEncoder().encode(scalarBundle);
}

/** Scalar's standalone bundle, as shipped in the package this server was built with; loaded on first use. */
async function loadScript(read: () => Promise<Uint8Array<ArrayBuffer>>): Promise<DocsScript> {
  const bytes = await read();
  const digest = await digestInSteps(bytes);
  const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
  return { etag: `"${hex}"`, bytes, coded: new Map() };
}

/** The end of the last coding of the script asked for: the next starts after it. */
let codingQueue: Promise<unknown> = Promise.resolve();

/** How much of the script is hashed between two turns of the event loop: a slice far below SECURITY.md's bound on holding it. */
const DIGEST_STEP_BYTES = 256 * 1024;

/**
 * SHA-256 of the script a slice at a time, giving the event loop back between slices:
 * `crypto.subtle.digest` of the whole bundle held Bun's loop in one piece, which with
 * sending the body left /livez waiting past SECURITY.md's bound
 * (test/docs-script-loop.test.ts measures the loop).
 */
async function digestInSteps(bytes: Uint8Array): Promise<Uint8Array> {
  const hash = sha256.create();
  for (let at = 0; at < bytes.byteLength; at += DIGEST_STEP_BYTES) {
    hash.update(bytes.subarray(at, at + DIGEST_STEP_BYTES));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return hash.digest();
}

/** Whether If-None-Match names this entity tag (weak comparison, RFC 9110 §13.1.2), or is `*`. */
function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false;
  return ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim();
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
  });
}

/**
 * Scalar's bundle (megabytes of JavaScript), the one answer that is not `no-store`: its
 * ETag is a digest of the bytes (one per coding), so a browser revalidates it (`no-cache`)
 * and gets a 304 without the body while the server runs the same bundle. Coded as the
 * request's Accept-Encoding asks, whatever its size, once per coding and process.
 */
export async function docsScript(req: Request, encoders: Encoders, read: () => Promise<Uint8Array<ArrayBuffer>> = bundledText): Promise<Response> {
  script ??= loadScript(read);
  const { etag: plainTag, bytes, coded } = await script;
  const { coding } = chooseCoding(req.headers.get("accept-encoding"), Object.keys(encoders) as ContentCoding[]);
  const etag = coding === "identity" ? plainTag : `${plainTag.slice(0, -1)}-${coding}"`;
  const headers: Record<string, string> = {
    "Content-Type": "application/javascript; charset=utf-8",
    "Cache-Control": "no-cache",
    ETag: etag,
    Vary: "Accept-Encoding",
  };
  if (matchesEtag(req.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  let body = bytes;
  if (coding !== "identity") {
    let pending = coded.get(coding);
    if (!pending) {
      // One coding at a time: each takes a core for a hundred ms or more, and two at once (a
      // browser's first visit can ask gzip and br together) left the loop no core of a 2-core server.
      pending = codingQueue.then(() => encoders[coding]!(bytes));
      codingQueue = pending.catch(() => undefined);
      coded.set(coding, pending);
      pending.catch(() => coded.delete(coding));
    }
    body = await pending;
    headers["Content-Encoding"] = coding;
  }
  headers["Content-Length"] = String(body.byteLength);
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
