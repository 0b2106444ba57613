/**
 * Opening the listeners: HTTP or HTTPS (Bun.serve's `tls` option, PEM files), with
 * SO_REUSEPORT when several worker processes share one port.
 *
 * Never in Bun's development mode: Bun.serve defaults to it unless NODE_ENV is
 * `production`, and then answers an uncaught error with a 50 KB HTML page of file paths
 * and source lines and prints the request's URL to stderr. The systemd unit sets no
 * NODE_ENV, so the mode is switched off here, whatever the environment (SECURITY.md,
 * "At the edge").
 */
import { accessSync, constants } from "node:fs";
import type { Server } from "bun";
import { CommandError } from "../cli-kit.ts";
import { answerUnexpectedError, type BunFetch } from "./front.ts";
import type { RequestLogEntry } from "../../server/handler.ts";

export const IDLE_TIMEOUT_SECONDS = 30;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface ListenOptions {
  hostname: string;
  port: number;
  tls?: TlsFiles;
  /** SO_REUSEPORT: let other processes bind the same port, the kernel spreads connections. */
  reusePort: boolean;
  /** Seconds before an idle or stalled connection is closed (`--idle-timeout`); IDLE_TIMEOUT_SECONDS by default. */
  idleTimeoutSeconds?: number;
  fetch: BunFetch;
  /**
   * Receives the log entry of an error that escaped `fetch` (Bun.serve's `error`
   * callback); by default one JSON line on stderr. The fetch functions of front.ts answer
   * their own errors, so this is the last resort.
   */
  logUnexpected?: (entry: RequestLogEntry) => void;
}

function logToStderr(entry: RequestLogEntry): void {
  console.error(JSON.stringify(entry));
}

/** Certificate and key, checked readable first so that a wrong path says so plainly (exit 1). */
function loadTls(files: TlsFiles): { cert: ReturnType<typeof Bun.file>; key: ReturnType<typeof Bun.file> } {
  for (const [what, path] of [["--tls-cert", files.certFile], ["--tls-key", files.keyFile]] as const) {
    try {
      accessSync(path, constants.R_OK);
    } catch {
      throw new CommandError(`${what}: cannot read ${path}`);
    }
  }
  return { cert: Bun.file(files.certFile), key: Bun.file(files.keyFile) };
}

export function listen(options: ListenOptions): Server<undefined> {
  const tls = options.tls ? loadTls(options.tls) : undefined;
  try {
    return Bun.serve({
      hostname: options.hostname,
      port: options.port,
      reusePort: options.reusePort,
      // Above the Postgres statement timeout (10 s) plus its client-side margin, so an
      // answer of 503 after a silent database link still reaches the client; below
      // Bun's ceiling of 255 s, so idle or stalled connections are still closed.
      idleTimeout: options.idleTimeoutSeconds ?? IDLE_TIMEOUT_SECONDS,
      ...(tls ? { tls } : {}),
      development: false,
      fetch: options.fetch,
      error: (error) => answerUnexpectedError(error, options.logUnexpected ?? logToStderr),
    });
  } catch (error) {
    throw new CommandError(`cannot listen on ${options.hostname}:${options.port}: ${(error as Error).message}`);
  }
}

/** The base URL a person can paste: brackets around an IPv6 address, https with TLS. */
export function baseUrlOf(hostname: string, port: number, tls: boolean): string {
  return `${tls ? "https" : "http"}://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}
