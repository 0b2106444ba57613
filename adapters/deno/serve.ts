/**
 * The Deno host: the handler behind `Deno.serve`, with the client's address passed on (the
 * token endpoint's per-address limit needs it) and a graceful stop on SIGINT and SIGTERM:
 * no new connections, the requests in flight finish, then `onStop` (close the store) runs.
 * examples/deno-serve.ts is a whole program around it (docs/embedding.md, "Deno").
 */
import type { Handler } from "../../server/handler.ts";

export interface DenoServeOptions {
  hostname?: string;
  /** 0 picks a free port. */
  port: number;
  /** Called once the listener accepts connections, with its address. */
  onListen?: (address: { hostname: string; port: number }) => void;
  /** Runs after the server has stopped on a signal, before the process exits 0. */
  onStop?: () => Promise<void> | void;
}

/** Serves `handler` until SIGINT or SIGTERM; returns Deno's server. */
export function serveWithDeno(handler: Handler, options: DenoServeOptions): Deno.HttpServer<Deno.NetAddr> {
  const server = Deno.serve(
    { hostname: options.hostname ?? "127.0.0.1", port: options.port, onListen: (address) => options.onListen?.(address) },
    (request, info) => handler(request, { remoteAddress: info.remoteAddr.hostname }),
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await server.shutdown();
      await options.onStop?.();
      Deno.exit(0);
    });
  }
  return server;
}
