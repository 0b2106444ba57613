/**
 * What a request may cost before anything reads it (issue 8): a URL over MAX_URL_BYTES is
 * 414 and headers over MAX_HEADER_BYTES are 431, both as the usual JSON error. These run
 * first, before even the URL-credentials check, because they bound the work every later
 * check does.
 *
 * Bun refuses a request head (request line and headers together) over 16 KiB by itself,
 * with a bare 431 and no body, before any of our code runs. Both limits sit at half of
 * that, so a request whose URL alone, or whose headers alone, are too large still
 * reaches this code and gets a JSON answer; only a head over 16 KiB gets Bun's bare one.
 */
import { ApiError } from "../lib/errors.ts";

/** Bytes of the request target (path and query, percent-encoded as sent). */
export const MAX_URL_BYTES = 8192;
/** Bytes of all header lines, counted as `name: value\r\n`. */
export const MAX_HEADER_BYTES = 8192;
/** What the log shows as the route of a refused URL: the path itself may be kilobytes of anything. */
export const URL_TOO_LONG_ROUTE = "[uri too long]";

/** The request target's length (path and query; a fragment is never sent): the parsed URL is ASCII. */
export function urlBytes(url: URL): number {
  return url.pathname.length + url.search.length;
}

export function headerBytes(headers: Headers): number {
  let total = 0;
  for (const [name, value] of headers) total += name.length + value.length + 4;
  return total;
}

/** The 414 or 431 a request of this size gets, or `null` when it is within the limits. */
export function requestSizeError(req: Request, url: URL): ApiError | null {
  if (urlBytes(url) > MAX_URL_BYTES) {
    return new ApiError(414, "invalid_request", `The URL must be at most ${MAX_URL_BYTES} bytes; send fewer or shorter query parameters.`);
  }
  if (headerBytes(req.headers) > MAX_HEADER_BYTES) {
    return new ApiError(431, "invalid_request", `The request headers must be at most ${MAX_HEADER_BYTES} bytes in all.`);
  }
  return null;
}
