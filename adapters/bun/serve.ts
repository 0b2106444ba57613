/**
 * The Bun host: the handler (or any fetch function) behind `Bun.serve`. Opening the
 * listeners: HTTP or HTTPS (Bun.serve's `tls` option, PEM files), with SO_REUSEPORT when
 * several worker processes share one port or when serving HTTPS (so that `relisten` can
 * take over the port with a renewed certificate); and the last-resort answer to an error that
 * escapes the fetch function. `leaveapi serve` (scripts/commands/serve.ts) puts its
 * metrics, logs and client addresses in front (scripts/serve/front.ts).
 *
 * Never in Bun's development mode: Bun.serve defaults to it unless NODE_ENV is
 * `production`, and then answers an uncaught error with an HTML page of file paths
 * and source lines and prints the request's URL to stderr. The systemd unit sets no
 * NODE_ENV, so the mode is switched off here, whatever the environment (SECURITY.md,
 * "At the edge").
 */
import { accessSync, constants } from "node:fs";
import type { Server } from "bun";
import type { RequestLogEntry } from "../../server/handler.ts";
import { errorResponse, finish } from "../../server/responses.ts";
import { serverError } from "../../lib/errors.ts";
import { redactSecrets } from "../../lib/url-credentials.ts";

export type BunFetch = (req: Request, server: Server<undefined>) => Promise<Response>;

/** A listener that cannot be opened, or TLS files that cannot be read: a set-up mistake, said plainly. */
export class ListenError extends Error {
  override name = "ListenError";
}

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
   * callback); by default one JSON line on stderr. Fetch functions wrapped in `guarded`
   * answer their own errors, so this is the last resort.
   */
  logUnexpected?: (entry: RequestLogEntry) => void;
}

function logToStderr(entry: RequestLogEntry): void {
  console.error(JSON.stringify(entry));
}

/** Certificate and key, checked readable first so that a wrong path says so plainly (exit 1). */
function loadTls(files: TlsFiles): { cert: ReturnType<typeof Bun.file>; key: ReturnType<typeof Bun.file> } {
  for (const [what, path] of [
    ["--tls-cert", files.certFile],
    ["--tls-key", files.keyFile],
  ] as const) {
    try {
      accessSync(path, constants.R_OK);
    } catch {
      throw new ListenError(`${what}: cannot read ${path}`);
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
      // With TLS always: relisten binds a second listener to the same port (SO_REUSEPORT
      // must be set on both), because Bun's server.reload() ignores `tls` (Bun 1.4,
      // oven-sh/bun#43815).
      reusePort: options.reusePort || tls !== undefined,
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
    throw new ListenError(`cannot listen on ${options.hostname}:${options.port}: ${(error as Error).message}`);
  }
}

/**
 * The same listener with its TLS files read again (a renewed certificate): a new listener
 * takes the port first, then the old one stops accepting and lets its requests in flight
 * finish (as nginx's reload does), so no connection is refused and no request is cut off.
 * Idle keep-alive connections of the old listener are closed; clients reconnect. Throws
 * ListenError, leaving the old listener serving, when the files cannot be read or used.
 */
export function relisten(old: Server<undefined>, options: ListenOptions): Server<undefined> {
  const next = listen({ ...options, port: old.port! });
  void old.stop(false);
  return next;
}

/** The base URL a person can paste: brackets around an IPv6 address, https with TLS. */
export function baseUrlOf(hostname: string, port: number, tls: boolean): string {
  return `${tls ? "https" : "http"}://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/** What the log shows as the route of a failure outside the handler. */
export const UNEXPECTED_ROUTE = "[unexpected error]";

/**
 * The JSON 500 with the headers every answer carries, for a failure outside the handler:
 * logged with its request id and the error's name and message, secrets redacted; never
 * the URL, which this code does not know and must not print.
 */
export function answerUnexpectedError(error: unknown, log: (entry: RequestLogEntry) => void): Response {
  const requestId = crypto.randomUUID();
  try {
    log({
      time: new Date().toISOString(),
      level: "error",
      request_id: requestId,
      method: "-",
      route: UNEXPECTED_ROUTE,
      status: 500,
      duration_ms: 0,
      error: redactSecrets(error instanceof Error ? `${error.name}: ${error.message}` : "a non-Error value was thrown"),
    });
  } catch {
    // A log that fails must not stop the answer.
  }
  return finish(errorResponse(serverError()), requestId, false);
}

/** `fetch`, with anything it throws answered by answerUnexpectedError instead of Bun. */
export function guarded(fetch: BunFetch, log: (entry: RequestLogEntry) => void): BunFetch {
  return async (req, server) => {
    try {
      return await fetch(req, server);
    } catch (error) {
      return answerUnexpectedError(error, log);
    }
  };
}
