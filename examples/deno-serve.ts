/**
 * The API on Deno: the same handler the Bun server runs, served with `Deno.serve`, on a
 * SQLite file through node:sqlite (the file the `leaveapi` command creates and manages)
 * or on the in-memory store.
 *
 *   deno run --node-modules-dir=manual --allow-net --allow-read --allow-write \
 *     examples/deno-serve.ts --sqlite leaveapi.sqlite --port 8080
 *
 * Options: --sqlite FILE (default leaveapi.sqlite) or --memory; --seed FILE, a JSON file in
 * the shape of `StoreContents` (lib/store-contents.ts; `ContractFixture` in leaveapi/testing) written into the store on start;
 * --hostname (default 127.0.0.1); --port (default 8080; 0 picks a free one); --issuer URL;
 * --base-path /PREFIX to serve under a prefix (e.g. /hr-api → /hr-api/v1/employees).
 * Prints `listening on http://HOST:PORT` once it accepts connections; stops on SIGINT or
 * SIGTERM after the requests in flight finish.
 */
import { parseArgs } from "node:util";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { openNodeSqliteStore } from "../adapters/node/sqlite.ts";
import { writeStoreContents, type StoreContents } from "../lib/store-contents.ts";
import { createHandler } from "../server/handler.ts";
import { serveWithDeno } from "../adapters/deno/serve.ts";
import type { Store } from "../lib/store.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    sqlite: { type: "string" },
    memory: { type: "boolean" },
    seed: { type: "string" },
    hostname: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8080" },
    issuer: { type: "string" },
    "base-path": { type: "string" },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0–65535; got '${values.port}'.`);
if (values.memory && values.sqlite !== undefined) throw new Error("Give --sqlite FILE or --memory, not both.");

const seed = values.seed === undefined ? undefined : (JSON.parse(await Deno.readTextFile(values.seed)) as StoreContents);

async function openStore(): Promise<Store> {
  if (values.memory) return createMemoryStore(seed);
  const store = openNodeSqliteStore({ filename: values.sqlite ?? "leaveapi.sqlite" });
  await store.migrate();
  if (seed) await writeStoreContents(store, seed, Date.now());
  return store;
}

const store = await openStore();
const handler = createHandler({ store, issuer: values.issuer, basePath: values["base-path"] });

serveWithDeno(handler, {
  hostname: values.hostname,
  port,
  onListen: ({ hostname, port }) => console.log(`listening on http://${hostname}:${port}`),
  onStop: () => store.close(),
});
