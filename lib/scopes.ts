/**
 * Scopes: the three read scopes, in the one order responses list them (docs/api.md, "POST
 * /v1/oauth/token").
 */

export const ALL_SCOPES = ["employees:read", "holidays:read", "leave:read"] as const;
export type Scope = (typeof ALL_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Canonical order and no repeats: what is stored and what a token response says. */
export function normalizeScopes(scopes: Iterable<Scope>): Scope[] {
  // Three scopes at most: a scan of the list costs less than building a Set, on every token request.
  const given = Array.isArray(scopes) ? (scopes as readonly Scope[]) : [...scopes];
  return ALL_SCOPES.filter((s) => given.includes(s));
}

export function formatScopes(scopes: readonly Scope[]): string {
  return normalizeScopes(scopes).join(" ");
}

/**
 * Splits a space-separated scope string. Repeated and extra ASCII whitespace is tolerated
 * (RFC 6749's grammar is stricter, but real clients send trailing spaces and tabs).
 * Returns the unknown names separately so the caller can name them in its error.
 */
export function parseScopeList(text: string): { scopes: Scope[]; unknown: string[] } {
  const scopes: Scope[] = [];
  const unknown: string[] = [];
  for (const name of text.split(/[ \t\r\n]+/)) {
    if (name === "") continue;
    if (isScope(name)) scopes.push(name);
    else unknown.push(name);
  }
  return { scopes: normalizeScopes(scopes), unknown };
}

/**
 * The scopes a token request is granted: all of the client's when `requested` is absent or
 * blank, else the requested subset; `refused` names what cannot be granted.
 */
export function grantScopes(requested: string | undefined, allowed: readonly Scope[]): { granted: Scope[] } | { refused: string[] } {
  // Blank means ASCII whitespace only, as parseScopeList splits: a no-break space is a (malformed) scope name.
  if (requested === undefined || /^[ \t\r\n]*$/.test(requested)) return { granted: normalizeScopes(allowed) };
  const { scopes, unknown } = parseScopeList(requested);
  const lacking = scopes.filter((s) => !allowed.includes(s));
  if (unknown.length > 0 || lacking.length > 0) return { refused: [...unknown, ...lacking] };
  return { granted: scopes };
}
