/**
 * The request log (docs/cli.md, "serve"): one line per request on stdout, JSON for log
 * collectors or one readable line on a terminal. It only ever writes the fields of a
 * `RequestLogEntry`, which the handler fills without secrets, tokens, headers or query
 * strings; nothing else from the request reaches it.
 */
import type { RequestLogEntry } from "../../server/handler.ts";
import { LOG_LEVELS, type LogFormat, type LogLevel } from "./settings.ts";

/** A server event that is not a request (start, shutdown, a worker's exit). */
export interface EventLogEntry {
  time: string;
  level: LogLevel;
  event: string;
  message: string;
  [detail: string]: string | number | undefined;
}

export interface Logger {
  request: (entry: RequestLogEntry) => void;
  event: (level: LogLevel, event: string, message: string, details?: Record<string, string | number>) => void;
  /**
   * A line that is written whatever the level (the start line: where the server listens),
   * to `writeAnnouncement`: as an `info` event when the log is JSON, so a log collector
   * meets no line it cannot parse; as the bare message on a terminal.
   */
  announce: (event: string, message: string, details?: Record<string, string | number>) => void;
}

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Whether stdout is a terminal: `auto` means text there, JSON elsewhere. */
  isTty: boolean;
  /** Writes a line; `urgent` for a server event, which should not wait for a batch of request lines. */
  write: (line: string, urgent?: boolean) => void;
  /** Where `announce` writes; `write` by default. */
  writeAnnouncement?: (line: string) => void;
}

function enabled(minimum: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}

/** The JSON shape: a stable set of keys, `null` where the caller is not known. */
function requestJson(entry: RequestLogEntry): string {
  return JSON.stringify({
    time: entry.time,
    level: entry.level,
    request_id: entry.request_id,
    method: entry.method,
    route: entry.route,
    status: entry.status,
    duration_ms: entry.duration_ms,
    organisation_id: entry.organisation_id ?? null,
    client_id: entry.client_id ?? null,
    records: entry.records ?? null,
    ...(entry.error === undefined ? {} : { error: entry.error }),
  });
}

function requestText(entry: RequestLogEntry): string {
  const who = entry.client_id ? ` org=${entry.organisation_id} client=${entry.client_id}` : "";
  const records = entry.records === undefined ? "" : ` records=${entry.records}`;
  const error = entry.error ? ` error="${entry.error}"` : "";
  return `${entry.time} ${entry.level.toUpperCase().padEnd(5)} ${entry.method} ${entry.route} ${entry.status} ${entry.duration_ms.toFixed(1)}ms id=${entry.request_id}${who}${records}${error}`;
}

function eventText(entry: EventLogEntry): string {
  const details = Object.entries(entry)
    .filter(([key]) => !["time", "level", "event", "message"].includes(key))
    .map(([key, value]) => ` ${key}=${value}`)
    .join("");
  return `${entry.time} ${entry.level.toUpperCase().padEnd(5)} ${entry.message}${details}`;
}

/** Whether the log is written as text lines: `auto` means text on a terminal, JSON elsewhere. */
export function writesText(format: LogFormat, isTty: boolean): boolean {
  return format === "text" || (format === "auto" && isTty);
}

export function createLogger(options: LoggerOptions): Logger {
  const text = writesText(options.format, options.isTty);
  const eventEntry = (level: LogLevel, event: string, message: string, details: Record<string, string | number>): EventLogEntry => ({
    time: new Date().toISOString(),
    level,
    event,
    message,
    pid: process.pid,
    ...details,
  });
  const announce = options.writeAnnouncement ?? options.write;
  return {
    request(entry) {
      if (!enabled(options.level, entry.level)) return;
      options.write(text ? requestText(entry) : requestJson(entry));
    },
    event(level, event, message, details = {}) {
      if (!enabled(options.level, level)) return;
      const entry = eventEntry(level, event, message, details);
      options.write(text ? eventText(entry) : JSON.stringify(entry), true);
    },
    announce(event, message, details = {}) {
      announce(text ? message : JSON.stringify(eventEntry("info", event, message, details)));
    },
  };
}
