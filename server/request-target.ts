/**
 * The URL of a request, checked before anything reads it: a `Host` header or request
 * target that cannot make an http(s) URL is a 400 `invalid_request` (docs/api.md, "HTTP behaviour"),
 * never an exception that escapes the handler. Runtimes build `req.url` from the Host
 * header as they see fit (Bun falls back to the bare path for some bad Hosts, keeps
 * `a:99999` for others), so the Host is checked itself, against its grammar, and then
 * the URL must parse.
 */
import { invalidRequest, type ApiError } from "../lib/errors.ts";

/** RFC 3986 §2.2–2.3: unreserved characters and sub-delims, as a character class body. */
const REG_NAME_CHARS = "A-Za-z0-9\\-._~!$&'()*+,;=";
/** reg-name (which includes IPv4address), non-empty: RFC 9110 §4.2.1 forbids an empty host. */
const REG_NAME = `(?:[${REG_NAME_CHARS}]|%[0-9A-Fa-f]{2})+`;
/** IP-literal: an IPv6 address or IPvFuture in brackets (the URL parser then checks the address itself). */
const IP_LITERAL = `\\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\\.[${REG_NAME_CHARS}:]+)\\]`;
/** RFC 9110 §7.2: `Host = uri-host [ ":" port ]`, port = *DIGIT (RFC 3986 §3.2.3). */
const HOST_FIELD = new RegExp(`^(?:${IP_LITERAL}|${REG_NAME})(?::([0-9]*))?$`);
const MAX_PORT = 65535;

/** What the log shows as the route of a request whose URL could not be made: the target may be anything. */
export const BAD_TARGET_ROUTE = "[bad request target]";

/**
 * Whether a Host field value is a host name, IPv4 address or bracketed IP literal with an
 * optional port of 0–65535, that a URL parser also takes. Userinfo (`user@host`), spaces,
 * paths and a second Host (joined as `a, b`) all fail.
 */
export function isValidHost(value: string): boolean {
  // A server sees the same few Host values over and over: remember the last good one.
  if (value === lastValidHost) return true;
  const match = HOST_FIELD.exec(value);
  if (match === null) return false;
  const port = match[1];
  if (port !== undefined && port !== "" && Number(port) > MAX_PORT) return false;
  // What the grammar allows but a URL does not (`a%20b`, a malformed IPv6 address) is no
  // host either, whichever way the runtime builds `req.url` from it.
  if (parseUrl(`http://${value}/`) === null) return false;
  lastValidHost = value;
  return true;
}

let lastValidHost: string | undefined;

/** `new URL(text)`, or null where it would throw (URL.parse is not in Node 20). */
export function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The 400 for a Host field that is not one valid host (isValidHost). */
export function badHost(): ApiError {
  return invalidRequest("The Host header must be one host name or IP address, with an optional port of 0-65535.");
}

/** The 400 for a request target (or Host) that makes no http or https URL. */
export function badTarget(): ApiError {
  return invalidRequest("The request target and Host header must make an http or https URL; send a path such as /v1/employees and a valid Host.");
}

/** The request's URL, or the 400 for a Host or target that cannot make an http(s) URL. */
export function requestUrl(req: Request): URL | ApiError {
  const host = req.headers.get("host");
  if (host !== null && !isValidHost(host)) return badHost();
  const url = parseUrl(req.url);
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") return badTarget();
  if (url.username !== "" || url.password !== "") {
    return invalidRequest("Credentials and tokens must never be sent in the URL; use the Authorization header or the form body.");
  }
  return url;
}

/**
 * The method for the log: any token the Node bridge passes through is a string the
 * client chose, so only a short run of letters (which cannot hold a `svct_` token) is
 * written as it is.
 */
export function loggableMethod(method: string): string {
  return /^[A-Za-z-]{1,16}$/.test(method) ? method : "[other]";
}
