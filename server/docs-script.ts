/**
 * Scalar's standalone bundle (megabytes of JavaScript), imported as text so that Bun embeds it in the
 * server, the binary and the package's bundle. A module of its own, imported by
 * server/docs-page.ts only when /docs/api-reference.js is first asked for: a host that
 * loads `leaveapi` does not parse it at start-up.
 */
import scalarBundle from "@scalar/api-reference/browser/standalone.js" with { type: "text" };

export default scalarBundle;
