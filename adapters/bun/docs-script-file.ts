/**
 * Scalar's bundle for /docs/api-reference.js as a file, read when first asked for: Bun
 * embeds a `type: "file"` import in the compiled binary and gives its path, so serving it
 * parses no JavaScript. The text import of server/docs-script.ts, the portable default,
 * parses the whole bundle on the event loop at the first request (issue 24).
 *
 * The path is absolute from source and in the binary (/$bunfs/…); in the package's bundle
 * (dist/cli) it is relative to the bundled module, not to the working directory.
 */
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import bundlePath from "@scalar/api-reference/browser/standalone.js" with { type: "file" };

const path = isAbsolute(bundlePath) ? bundlePath : fileURLToPath(new URL(bundlePath, import.meta.url));

export function readDocsScript(): Promise<Uint8Array<ArrayBuffer>> {
  return Bun.file(path).bytes();
}
