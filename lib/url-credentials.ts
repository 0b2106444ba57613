/**
 * Credentials in a URL end up in proxy logs, browser history and Referer headers, so any
 * URL that carries one is refused before anything else and never logged as it is
 * (DECISIONS §4, RFC 6750 §2.3, RFC 6749 §2.3.1).
 */

const CREDENTIAL_PARAMS = new Set(["access_token", "client_id", "client_secret", "token"]);
const SECRET_MARKERS = /svc[ts]_/;

/**
 * The text with every percent-escape of an ASCII byte decoded, the others left as they are.
 * The markers are ASCII, so this finds `%73vct_` however the rest of the text is escaped;
 * decodeURIComponent would give up on the whole text at one malformed escape (`%`, `%E0`).
 */
function decodeLoosely(text: string): string {
  return text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Whether the URL names a credential parameter or holds a secret or token anywhere in it. */
export function urlCarriesCredentials(url: URL): boolean {
  if (SECRET_MARKERS.test(url.pathname) || SECRET_MARKERS.test(decodeLoosely(url.pathname))) return true;
  const rawQuery = url.search.slice(1);
  if (rawQuery === "") return false;
  if (SECRET_MARKERS.test(rawQuery) || SECRET_MARKERS.test(decodeLoosely(rawQuery))) return true;
  for (const name of url.searchParams.keys()) if (CREDENTIAL_PARAMS.has(name.toLowerCase())) return true;
  return false;
}

/** The path alone, for logs: query strings are never logged (they may hold anything). */
export function loggablePath(url: URL): string {
  return SECRET_MARKERS.test(decodeLoosely(url.pathname)) ? "[redacted]" : url.pathname;
}
