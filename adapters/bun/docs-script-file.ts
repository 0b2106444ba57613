/**
 * Scalar's bundle for /docs/api-reference.js as a file, read when first asked for: Bun
 * embeds a `type: "file"` import in the compiled binary and gives its path, so serving it
 * parses no JavaScript. The text import of server/docs-script.ts, the portable default,
 * held the event loop about 100 ms on the first request (issue 24).
 */
import bundlePath from "@scalar/api-reference/browser/standalone.js" with { type: "file" };

export function readDocsScript(): Promise<Uint8Array<ArrayBuffer>> {
  return Bun.file(bundlePath).bytes();
}
