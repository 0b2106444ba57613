/**
 * Embedding leaveapi in an Express 5 app (Node 20+): the API answers under /hr-api, beside
 * the app's own routes, on the app's own server and port; the store is Postgres.
 *
 *   DATABASE_URL=postgres://user@host/db node examples/express.mjs [PORT]
 *
 * With BODY_PARSERS_FIRST=1 the app parses every body before the mount, as many apps do;
 * the token endpoint still gets its form (docs/embedding.md, "Body parsers").
 */
import express from "express";
import { createHandler } from "leaveapi";
import { toNodeListener } from "leaveapi/node";
import { openPostgresStore } from "leaveapi/postgres";

const store = openPostgresStore({ connectionString: process.env.DATABASE_URL });
await store.migrate();
const hrApi = toNodeListener(createHandler({ store, basePath: "/hr-api" }));

const app = express();
if (process.env.BODY_PARSERS_FIRST === "1") app.use(express.json(), express.urlencoded(), express.text(), express.raw());
// The prefix, and the OAuth discovery address for it. Express takes the mount path off
// req.url; the bridge reads req.originalUrl, so basePath still matches.
app.use(["/hr-api", "/.well-known/oauth-authorization-server/hr-api"], hrApi);
// The app's own routes, and their body parsers, after the mount.
app.use(express.urlencoded());
app.get("/", (_req, res) => res.type("text").send("The host app's home page\n"));

const server = app.listen(Number(process.argv[2] ?? process.env.PORT ?? 3000), () => {
  console.log(`listening on http://localhost:${server.address().port}`);
});
process.once("SIGTERM", () => server.close(() => store.close()));
