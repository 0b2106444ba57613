/** `leaveapi serve`: the HTTP API on Bun.serve, over the store the global options name. */
import { createHandler, type RequestLogEntry } from "../../server/handler.ts";
import { mintClient } from "../../lib/credentials.ts";
import { ALL_SCOPES } from "../../lib/scopes.ts";
import { CommandError, UsageError, parseCommandArgs, type Command, type CommandContext } from "../cli-kit.ts";
import { locateStore, openMigratedStore } from "../open-store.ts";
import { findDemoOrganisation, seedDemo } from "../demo/seed-demo.ts";
import type { SqlAdminStore } from "../../adapters/sql/sql-admin-store.ts";

const USAGE = "leaveapi serve [--port 8080] [--host 127.0.0.1] [--demo]";

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be a number from 0 to 65535; got '${text}'\nusage: ${USAGE}`);
  return Number(text);
}

/** With --demo: seed the demo organisation into an empty store, or mint fresh demo credentials (old secrets cannot be shown again). */
async function prepareDemo(ctx: CommandContext, store: SqlAdminStore, baseUrl: string): Promise<void> {
  let credentials: { organisation: string; clientId: string; clientSecret: string };
  if ((await store.listOrganisations()).length === 0) {
    ctx.io.err("seeding the demo organisation (first start only)…");
    const seeded = await seedDemo(store, new Date());
    credentials = { organisation: seeded.organisation.name, clientId: seeded.client_id, clientSecret: seeded.client_secret };
  } else {
    const existing = await findDemoOrganisation(store);
    if (!existing) {
      ctx.io.err("--demo: the store already holds organisations and no demo organisation; serving it as it is");
      return;
    }
    const { client, secret } = mintClient(existing.id, [...ALL_SCOPES], "demo", Date.now());
    await store.createClient(client);
    credentials = { organisation: existing.name, clientId: client.client_id, clientSecret: secret };
  }
  ctx.io.err(
    [
      "",
      `demo organisation: ${credentials.organisation}`,
      `client_id:         ${credentials.clientId}`,
      `client_secret:     ${credentials.clientSecret}`,
      "",
      "get a token:",
      `  curl -s -u '${credentials.clientId}:${credentials.clientSecret}' -d grant_type=client_credentials ${baseUrl}/v1/oauth/token`,
      "",
    ].join("\n"),
  );
}

export const serveCommand: Command = {
  name: "serve",
  summary: "serve the HTTP API",
  usage: USAGE,
  help: `usage: ${USAGE}

  --port N       port to listen on (default 8080; env PORT)
  --host ADDR    address to bind (default 127.0.0.1; env HOST); 0.0.0.0 for every interface
  --demo         seed a demo organisation into an empty store and print working credentials

Logs one JSON line per request to stdout; never a secret, token or query string.
Stops cleanly on SIGINT or SIGTERM.`,
  async run(ctx) {
    const { values } = parseCommandArgs(
      ctx.args,
      { port: { type: "string" }, host: { type: "string" }, demo: { type: "boolean" } },
      USAGE,
    );
    const port = parsePort(values.port ?? ctx.io.env.PORT ?? "8080");
    const hostname = values.host ?? ctx.io.env.HOST ?? "127.0.0.1";
    const location = locateStore(ctx.global, ctx.io.env);
    const store = await openMigratedStore(ctx.global, ctx.io.env);
    const log = (entry: RequestLogEntry) => ctx.io.out(JSON.stringify(entry));
    const handler = createHandler({ store, log, issuer: ctx.io.env.LEAVEAPI_ISSUER });
    let server: ReturnType<typeof Bun.serve>;
    try {
      server = Bun.serve({
        port,
        hostname,
        fetch: (req, srv) => handler(req, { remoteAddress: srv.requestIP(req)?.address }),
      });
    } catch (error) {
      await store.close();
      throw new CommandError(`cannot listen on ${hostname}:${port}: ${(error as Error).message}`);
    }
    const baseUrl = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${server.port}`;
    if (values.demo) await prepareDemo(ctx, store, baseUrl);
    ctx.io.err(`leaveapi serving ${baseUrl} on ${location.kind} ${location.label}`);
    await new Promise<void>((resolve) => {
      const stop = async () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        await server.stop();
        await store.close();
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
  },
};
