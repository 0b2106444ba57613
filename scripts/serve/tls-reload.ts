/**
 * `serve` with TLS: SIGHUP reads the certificate and key files again (docs/install.md,
 * "TLS: directly, or behind a reverse proxy"), as Caddy and Prometheus reload theirs, so that a renewed certificate needs no
 * restart. New connections get the new certificate; the old listener finishes its requests
 * in flight (adapters/bun/serve.ts, `relisten`). A file that cannot be used is logged and
 * the previous certificate kept. The parent passes the signal to its --workers, each of
 * which swaps its own listener. Without TLS, SIGHUP is logged and changes nothing, so that
 * `systemctl reload` (the unit's ExecReload) is safe on any server.
 */
import type { Server } from "bun";
import { relisten, type ListenOptions } from "../../adapters/bun/serve.ts";
import type { Logger } from "./logger.ts";

export interface TlsReloadOptions {
  /** The listeners being served; the one at `index` is replaced in place. */
  servers: Server<undefined>[];
  index: number;
  listenOptions: ListenOptions;
  logger: Logger;
  /** Passes the signal on (to the --workers); called before this process swaps its own listener. */
  forward: () => void;
  /** Once this settles (the server is stopping), SIGHUP is ignored. */
  until: Promise<unknown>;
}

export function reloadTlsOnHangup(options: TlsReloadOptions): void {
  const { servers, index, listenOptions, logger } = options;
  const certFile = listenOptions.tls?.certFile;
  let stopping = false;
  void options.until.then(() => (stopping = true));
  process.on("SIGHUP", () => {
    if (stopping) return;
    if (certFile === undefined) {
      logger.event("info", "reload", "SIGHUP: no TLS certificate to read again (plain HTTP); nothing changed");
      return;
    }
    options.forward();
    const old = servers[index];
    if (!old) return;
    try {
      servers[index] = relisten(old, listenOptions);
      logger.event("info", "tls_reloaded", `SIGHUP: new connections get the certificate now in ${certFile}`);
    } catch (error) {
      logger.event("error", "tls_reload_failed", `SIGHUP: ${(error as Error).message}; still serving the previous certificate`);
    }
  });
}
