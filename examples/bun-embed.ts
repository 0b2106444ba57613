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

const server = Bun.serve({
  port: Number(Bun.argv[3] ?? 3000),
  fetch(req, server) {
    const { pathname } = new URL(req.url);
    if (pathname === "/hr-api" || pathname.startsWith("/hr-api/")) {
      return hrApi(req, { remoteAddress: server.requestIP(req)?.address });
    }
    if (pathname === "/") return new Response("The host app's home page\n");
    return new Response("Not found\n", { status: 404 });
  },
});
console.log(`listening on ${server.url}`);
