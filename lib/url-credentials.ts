/**
 * Credentials in a URL end up in proxy logs, browser history and Referer headers, so any
 * URL that carries one is refused before anything else and never logged as it is
 * (docs/api.md, "Query parameters"; RFC 6750 §2.3, RFC 6749 §2.3.1).
 *
 * "Carries one" is read generously: the markers in any case, after percent-decoding
 * repeatedly (`%2573vct_` is `%73vct_` to a proxy that decodes once, `svct_` to one that
 * decodes twice), so that no layer in front of the API can turn a logged path into a
 * token.
 */

const CREDENTIAL_PARAMS = new Set(["access_token", "client_id", "client_secret", "token"]);
/** The prefixes of client secrets and access tokens; tokens are case-sensitive, the check is not. */
const SECRET_MARKERS = /svc[ts]_/i;
/** What a query naming a CREDENTIAL_PARAMS member must hold somewhere: a word of its name, or an escape. */
const MAY_NAME_CREDENTIAL = /token|client|%/i;
const ASCII_ESCAPE = /%([0-7][0-9A-Fa-f])/g;
/**
 * Layers of escaping decoded before giving up. Each pass removes one (`%252573` →
 * `%2573` → `%73` → `s`), so a URL still changing after this many is escaped deeper than
 * any client does: it is treated as carrying a credential rather than decoded without end.
 */
const MAX_DECODING_PASSES = 8;

/**
 * The text with every percent-escape of an ASCII byte decoded, the others left as they are.
 * The markers are ASCII, so this finds `%73vct_` however the rest of the text is escaped;
 * decodeURIComponent would give up on the whole text at one malformed escape (`%`, `%E0`).
 */
function decodeLoosely(text: string): string {
  return text.replace(ASCII_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * Every spelling the text takes as it is decoded again and again (the text itself first),
 * or `null` when it still changes after MAX_DECODING_PASSES.
 */
function decodings(text: string): string[] | null {
  // No escape at all (most paths and queries, a cursor's base64url included): one spelling.
  if (!text.includes("%")) return [text];
  const all = [text];
  for (let pass = 0; ; pass++) {
    const next = decodeLoosely(all.at(-1)!);
    if (next === all.at(-1)) return all;
    if (pass === MAX_DECODING_PASSES) return null;
    all.push(next);
  }
}

/** Whether the text holds a secret or token marker in any spelling, however deeply escaped. */
export function holdsSecretMarker(text: string): boolean {
  const spellings = decodings(text);
  return spellings === null || spellings.some((spelling) => SECRET_MARKERS.test(spelling));
}

function namesCredentialParam(name: string): boolean {
  const spellings = decodings(name);
  return spellings === null || spellings.some((spelling) => CREDENTIAL_PARAMS.has(spelling.toLowerCase()));
}

/** Whether the URL names a credential parameter or holds a secret or token anywhere in it. */
export function urlCarriesCredentials(url: URL): boolean {
  if (holdsSecretMarker(url.pathname)) return true;
  const rawQuery = url.search.slice(1);
  if (rawQuery === "") return false;
  if (holdsSecretMarker(rawQuery)) return true;
  // Every credential parameter's name holds one of these words; a query with neither, and
  // no escape that could spell one, names none (most queries: parsing them cost 3% of a
  // small answer's time).
  if (!MAY_NAME_CREDENTIAL.test(rawQuery)) return false;
  for (const name of url.searchParams.keys()) if (namesCredentialParam(name)) return true;
  return false;
}

/** The path alone, for logs: query strings are never logged (they may hold anything). */
export function loggablePath(url: URL): string {
  return holdsSecretMarker(url.pathname) ? "[redacted]" : url.pathname;
}

/** `name=` of a credential parameter, as a word of free text may quote it. */
const CREDENTIAL_ASSIGNMENT = /(access_token|client_id|client_secret|token)=/i;

/**
 * Text for a log line (an error message, say) with every word that holds a secret or
 * token marker or a credential parameter, in any spelling, replaced: a message that
 * quotes a request must not carry what the request carried.
 */
export function redactSecrets(text: string): string {
  return text.replace(/[^\s"'`]+/g, (word) => {
    const spellings = decodings(word);
    const secret = spellings === null || spellings.some((s) => SECRET_MARKERS.test(s) || CREDENTIAL_ASSIGNMENT.test(s));
    return secret ? "[redacted]" : word;
  });
}
