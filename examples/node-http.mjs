/**
 * Embedding leaveapi in a plain node:http server (Node 20+): the API answers under /hr-api,
 * beside the app's own routes, on the app's own server and port; the store is Postgres.
 *
 *   DATABASE_URL=postgres://user@host/db node examples/node-http.mjs [PORT]
 */
import { createServer } from "node:http";
import { createHandler } from "leaveapi";
import { toNodeClientErrorListener, toNodeListener } from "leaveapi/node";
import { openPostgresStore } from "leaveapi/postgres";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const handler = createHandler({ store, basePath: "/hr-api" });
const hrApi = toNodeListener(handler);

/** The prefix, and the OAuth discovery address for it (docs/embedding.md, "Mounting under a path prefix"). */
function isHrApiPath(path) {
  return path === "/hr-api" || path.startsWith("/hr-api/") || path === "/.well-known/oauth-authorization-server/hr-api";
}

const server = createServer((req, res) => {
  // The path as sent, cut at the query. Not new URL(…): a bad Host would make it throw.
  const path = (req.url ?? "/").split("?", 1)[0];
  if (isHrApiPath(path)) return hrApi(req, res);
  if (path === "/") return res.writeHead(200, { "Content-Type": "text/plain" }).end("The host app's home page\n");
  res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found\n");
});
// What Node's own parser refuses (FOO, get, a broken header line) gets the API's JSON answer.
server.on("clientError", toNodeClientErrorListener(handler));
server.listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}`);
});
process.once("SIGTERM", () => server.close(() => store.close()));
