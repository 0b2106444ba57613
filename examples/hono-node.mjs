/**
 * Embedding leaveapi in a Hono app on Node (@hono/node-server, Node 20+): the API answers
 * under /hr-api, beside the app's own routes, on the app's own server and port; the store
 * is Postgres.
 *
 *   DATABASE_URL=postgres://user@host/db node examples/hono-node.mjs [PORT]
 */
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { createHandler } from "leaveapi";
import { openPostgresStore } from "leaveapi/postgres";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const handler = createHandler({ store, basePath: "/hr-api" });
const hrApi = (c) => handler(c.req.raw, { remoteAddress: getConnInfo(c).remote.address });

const app = new Hono();
app.get("/", (c) => c.text("The host app's home page\n"));
// The prefix, and the OAuth discovery address for it; every method, so the API answers 405 itself.
app.all("/hr-api", hrApi);
app.all("/hr-api/*", hrApi);
app.all("/.well-known/oauth-authorization-server/hr-api", hrApi);

const server = serve({ fetch: app.fetch, port: Number(process.argv[2] ?? process.env.PORT ?? 3000) }, (info) => {
  console.log(`listening on http://localhost:${info.port}`);
});
process.once("SIGTERM", () => server.close(() => store.close()));
