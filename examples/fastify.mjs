/**
 * Embedding leaveapi in a Fastify 5 app (Node 20+): the API answers under /hr-api, beside
 * the app's own routes, on the app's own server and port; the store is Postgres.
 *
 *   DATABASE_URL=postgres://user@host/db node examples/fastify.mjs [PORT]
 */
import Fastify from "fastify";
import { createHandler } from "leaveapi";
import { toNodeListener } from "leaveapi/node";
import { openPostgresStore } from "leaveapi/postgres";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const hrApi = toNodeListener(createHandler({ store, basePath: "/hr-api" }));

const app = Fastify();
app.get("/", async () => "The host app's home page\n");
// leaveapi in a plugin of its own, whose one content-type parser leaves every body unread
// for the token endpoint to read itself, whatever parsers the rest of the app uses.
app.register(async (api) => {
  api.removeAllContentTypeParsers();
  api.addContentTypeParser("*", (_request, _body, done) => done(null));
  const route = (request, reply) => {
    reply.hijack();
    hrApi(request.raw, reply.raw);
  };
  // The prefix, and the OAuth discovery address for it; every method, so the API answers 405 itself.
  for (const url of ["/hr-api", "/hr-api/*", "/.well-known/oauth-authorization-server/hr-api"]) api.all(url, route);
});
app.addHook("onClose", () => store.close());

await app.listen({ port: Number(process.argv[2] ?? process.env.PORT ?? 3000) });
console.log(`listening on http://localhost:${app.server.address().port}`);
process.once("SIGTERM", () => app.close());
