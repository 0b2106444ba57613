/**
 * Embedding leaveapi in a Bun app: the API answers under /hr-api, beside the app's own
 * routes, on the app's own server and port.
 *
 *   bun examples/bun-embed.ts [SQLITE_FILE] [PORT]
 */
import { createHandler } from "leaveapi";
import { openSqliteStore } from "leaveapi/sqlite";

const store = openSqliteStore({ filename: Bun.argv[2] ?? "leaveapi.sqlite" });
await store.migrate();
const hrApi = createHandler({ store, basePath: "/hr-api" });

/** The prefix, and the OAuth discovery address for it (docs/embedding.md, "Mounting under a path prefix"). */
function isHrApiPath(path: string): boolean {
  return path === "/hr-api" || path.startsWith("/hr-api/") || path === "/.well-known/oauth-authorization-server/hr-api";
}

const server = Bun.serve({
  port: Number(Bun.argv[3] ?? process.env.PORT ?? 3000),
  fetch(req, server) {
    // URL.parse, not new URL: a bad Host makes req.url no URL, and the handler answers that with its 400.
    const path = URL.parse(req.url)?.pathname;
    if (path === undefined || isHrApiPath(path)) {
      return hrApi(req, { remoteAddress: server.requestIP(req)?.address });
    }
    if (path === "/") return new Response("The host app's home page\n");
    return new Response("Not found\n", { status: 404 });
  },
});
console.log(`listening on ${server.url}`);
