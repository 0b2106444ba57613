/**
 * The fuzzer's oracle: for any request, the answer docs/api.md gives (and the size
 * limits of issue 8) require, worked out from the request itself by rules written from
 * those sections, not by calling the code under test. HTTP whitespace is SP and HTAB
 * (RFC 9110), a form body is decoded strictly (RFC 6749 appendix B), and the order of
 * checks is docs/api.md's ("Order of checks").
 */
import { ALL_SCOPES } from "../lib/scopes.ts";
import { LEAVE_STATUSES } from "../lib/records.ts";

export interface Expected {
  status: number;
  /** The `error` code of an error answer. */
  error?: string;
  /** Acceptable values of `param`; absent: the body must have none. */
  params?: string[];
  /** The exact WWW-Authenticate header, or null for none. */
  challenge: string | null;
  allow?: string;
  /** For a 200 from the token endpoint: the granted scope string. */
  scope?: string;
}

export interface TokenFacts {
  live: boolean;
  scopes: readonly string[];
}

/** A real cursor and the only filters it is valid with. */
export type CursorFacts = { endpoint: "employees" } | { endpoint: "leave-requests"; from: string; to: string };

export interface OracleFacts {
  tokens: Map<string, TokenFacts>;
  ownEmployeeIds: Set<string>;
  cursors: Map<string, CursorFacts>;
}

const BEARER = 'Bearer realm="leaveapi"';
/** A secret's or token's prefix, in any case (SECURITY.md: refused however it is spelled). */
const MARKER = /svc[ts]_/i;
const CREDENTIAL_NAMES = new Set(["access_token", "client_id", "client_secret", "token"]);
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const error = (status: number, code: string, extra: Partial<Expected> = {}): Expected => ({ status, error: code, challenge: null, ...extra });

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** WHATWG percent-decoding (every valid `%XX` to its byte, the rest as is), then UTF-8 with U+FFFD for bad bytes. */
function percentDecode(text: string): string {
  const raw = new TextEncoder().encode(text);
  const bytes: number[] = [];
  const hex = (b: number | undefined) => b !== undefined && /[0-9A-Fa-f]/.test(String.fromCharCode(b));
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === 0x25 && hex(raw[i + 1]) && hex(raw[i + 2])) {
      bytes.push(parseInt(String.fromCharCode(raw[i + 1]!, raw[i + 2]!), 16));
      i += 2;
    } else bytes.push(raw[i]!);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * Whether the text, percent-decoded again and again (as proxies that each decode once
 * would see it), ever names a credential: a marker, or (for a parameter name) one of the
 * credential names. Eight layers at most; a text still changing after that counts as one.
 */
function namesCredential(text: string, isName: boolean): boolean {
  let spelling = text;
  for (let layer = 0; layer <= 8; layer++) {
    if (MARKER.test(spelling) || (isName && CREDENTIAL_NAMES.has(spelling.toLowerCase()))) return true;
    const next = percentDecode(spelling);
    if (next === spelling) return false;
    spelling = next;
  }
  return true;
}

/** 414, 431 or the URL-credentials 400: what every path checks before anything else. */
export function expectedGate(req: Request): Expected | null {
  const url = new URL(req.url);
  if (url.pathname.length + url.search.length > 8192) return error(414, "invalid_request");
  let headerBytes = 0;
  for (const [name, value] of req.headers) headerBytes += name.length + value.length + 4;
  if (headerBytes > 8192) return error(431, "invalid_request");
  const inPath = namesCredential(url.pathname, false);
  const inQuery = [...url.searchParams].some(([name, value]) => namesCredential(name, true) || namesCredential(value, false));
  if (inPath || inQuery || namesCredential(url.search, false)) return error(400, "invalid_request");
  return null;
}

type Route = "employees" | "employee" | "leave" | "holidays" | "public" | "token";

function routeOf(pathname: string): { route: Route; id?: string } | null {
  const exact: Record<string, Route> = {
    "/v1/employees": "employees",
    "/v1/leave-requests": "leave",
    "/v1/holidays": "holidays",
    "/healthz": "public",
    "/v1/openapi.json": "public",
    "/.well-known/oauth-authorization-server": "public",
    "/v1/oauth/token": "token",
  };
  if (exact[pathname]) return { route: exact[pathname] };
  const m = /^\/v1\/employees\/([^/]+)$/.exec(pathname);
  return m ? { route: "employee", id: m[1] } : null;
}

const SCOPE_OF: Record<string, string> = { employees: "employees:read", employee: "employees:read", leave: "leave:read", holidays: "holidays:read" };

/** RFC 6750 §2.1 read with SP/HTAB as the only whitespace; null when the token may pass. */
function expectedAuth(header: string | null, scope: string, facts: OracleFacts): Expected | null {
  if (header === null || /^[ \t]*$/.test(header)) return error(401, "invalid_token", { challenge: BEARER });
  const scheme = header.split(/[ \t]/)[0]!;
  if (scheme.toLowerCase() !== "bearer") return error(401, "invalid_token", { challenge: BEARER });
  const credentials = header.slice(scheme.length).replace(/^[ \t]+|[ \t]+$/g, "");
  const malformed = error(400, "invalid_request", { challenge: `${BEARER}, error="invalid_request"` });
  if (credentials === "" || /[ \t,]/.test(credentials) || !B64TOKEN.test(credentials)) return malformed;
  const token = facts.tokens.get(credentials);
  if (!token?.live) return error(401, "invalid_token", { challenge: `${BEARER}, error="invalid_token"` });
  if (!token.scopes.includes(scope)) {
    return error(403, "insufficient_scope", { challenge: `${BEARER}, error="insufficient_scope", scope="${scope}"` });
  }
  return null;
}

function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return y >= 1 && days !== undefined && d >= 1 && d <= days;
}

/** RFC 3339 §5.6 date-time with an offset; a space before a final hh:mm was an unencoded `+`. */
function isInstant(text: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+ -](\d{2}):(\d{2}))$/.exec(text);
  if (!m || !isDate(m[1]!)) return false;
  const [h, mi, s] = [Number(m[2]), Number(m[3]), Number(m[4])];
  if (h > 23 || mi > 59 || s > 60) return false;
  return m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
}

const days = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

const VALID: Record<string, (v: string) => boolean> = {
  from: isDate,
  to: isDate,
  updated_since: isInstant,
  limit: (v) => /^[0-9]+$/.test(v) && Number(v) >= 1 && Number(v) <= 500,
  employee_id: (v) => UUID.test(v),
  cursor: (v) => /^[A-Za-z0-9_-]{1,1024}$/.test(v),
  calendar: (v) => /^[A-Z]{2}(-[A-Z]{2,3})?$/.test(v),
  type: (v) => v === "public" || v === "company",
};

/** The 400 a data endpoint's query gets, or null: unknown and repeated names, then values, then range, then cursor. */
function expectedParams(route: Route, url: URL, facts: OracleFacts): Expected | null {
  const allowed: Record<string, string[]> = {
    employees: ["status", "updated_since", "limit", "cursor"],
    employee: [],
    leave: ["from", "to", "status", "employee_id", "updated_since", "limit", "cursor"],
    holidays: ["from", "to", "calendar", "type"],
  };
  const names = [...url.searchParams.keys()];
  const misnamed = names.filter((n, i) => !allowed[route]!.includes(n) || names.indexOf(n) !== i);
  if (misnamed.length > 0) return error(400, "invalid_request", { params: misnamed });
  const q = Object.fromEntries(url.searchParams);
  const valid: Record<string, (v: string) => boolean> = {
    ...VALID,
    status: route === "employees" ? (v) => /^[a-z_]{1,30}$/.test(v) : (v) => (LEAVE_STATUSES as readonly string[]).includes(v),
  };
  const bad = Object.keys(q).filter((n) => !valid[n]!(q[n]!));
  if (route === "leave" || route === "holidays") for (const n of ["from", "to"]) if (q[n] === undefined) bad.push(n);
  if (bad.length > 0) return error(400, "invalid_request", { params: bad });
  if (q.from !== undefined && q.to !== undefined) {
    const span = days(q.to!) - days(q.from!);
    if (span < 0 || span > 400) return error(400, "invalid_request", { params: ["to"] });
  }
  if (q.cursor !== undefined && !cursorFits(facts.cursors.get(q.cursor), route, q)) return error(400, "invalid_request", { params: ["cursor"] });
  return null;
}

function cursorFits(cursor: CursorFacts | undefined, route: Route, q: Record<string, string>): boolean {
  if (!cursor) return false;
  if (cursor.endpoint === "employees") return route === "employees" && q.status === undefined && q.updated_since === undefined;
  return (
    route === "leave" && q.from === cursor.from && q.to === cursor.to && q.status === undefined && q.employee_id === undefined && q.updated_since === undefined
  );
}

/** What any request to any path must get, the token endpoint's POSTs with a body aside (expectedToken). */
export function expectedData(req: Request, facts: OracleFacts): Expected {
  const gate = expectedGate(req);
  if (gate) return gate;
  const url = new URL(req.url);
  const found = routeOf(url.pathname);
  if (!found) return error(404, "not_found");
  const methods = found.route === "token" ? ["POST"] : ["GET", "HEAD"];
  if (!methods.includes(req.method)) return error(405, "method_not_allowed", { allow: methods.join(", ") });
  if (found.route === "public") return { status: 200, challenge: null };
  if (found.route === "token") return error(400, "invalid_request");
  const auth = expectedAuth(req.headers.get("authorization"), SCOPE_OF[found.route]!, facts);
  if (auth) return auth;
  const params = expectedParams(found.route, url, facts);
  if (params) return params;
  if (found.route !== "employee") return { status: 200, challenge: null };
  const id = decodeOr(found.id!);
  if (!UUID.test(id)) return error(400, "invalid_request", { params: ["id"] });
  return facts.ownEmployeeIds.has(id.toLowerCase()) ? { status: 200, challenge: null } : error(404, "not_found");
}

/** What the Authorization header of a token request was built to mean. */
export type BasicMeaning = { kind: "none" } | { kind: "not-basic" } | { kind: "basic"; id: string; secret: string };

export interface ClientFacts {
  secret: string;
  scopes: readonly string[];
  revoked: boolean;
  apiEnabled: boolean;
}

/** application/x-www-form-urlencoded, strictly: invalid UTF-8 or a bad escape is null. */
export function strictForm(body: Uint8Array): Map<string, string[]> | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return null;
  }
  const out = new Map<string, string[]>();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    try {
      const name = decodeURIComponent((eq === -1 ? pair : pair.slice(0, eq)).replaceAll("+", " "));
      const value = decodeURIComponent((eq === -1 ? "" : pair.slice(eq + 1)).replaceAll("+", " "));
      out.set(name, [...(out.get(name) ?? []), value]);
    } catch {
      return null;
    }
  }
  return out;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded$/i;
const PROTOCOL = ["grant_type", "scope", "client_id", "client_secret"];

/** docs/api.md, "POST /v1/oauth/token", for POST /v1/oauth/token with this body and Authorization meaning (rate limits never reached). */
export function expectedToken(req: Request, body: Uint8Array, basic: BasicMeaning, clients: Map<string, ClientFacts>): Expected {
  const base = expectedData(req, { tokens: new Map(), ownEmployeeIds: new Set(), cursors: new Map() });
  if (base.status !== 400 || req.method !== "POST" || new URL(req.url).pathname !== "/v1/oauth/token") return base;
  if (new URL(req.url).search !== "") return base;
  const contentType = req.headers.get("content-type");
  if (contentType === null || !FORM_TYPE.test(contentType.split(";")[0]!.replace(/^[ \t]+|[ \t]+$/g, ""))) return base;
  if (body.byteLength > 4096) return error(413, "invalid_request");
  const form = strictForm(body);
  if (!form) return base;
  const repeated = PROTOCOL.filter((p) => (form.get(p)?.length ?? 0) > 1);
  if (repeated.length > 0) return error(400, "invalid_request", { params: repeated });
  const one = (p: string) => (form.get(p)?.[0] === "" ? undefined : form.get(p)?.[0]);
  if (
    basic.kind !== "none" &&
    (one("client_secret") !== undefined || (basic.kind === "basic" && one("client_id") !== undefined && one("client_id") !== basic.id))
  ) {
    return base;
  }
  if (one("grant_type") === undefined) return error(400, "invalid_request", { params: ["grant_type"] });
  const [id, secret] =
    basic.kind === "basic" ? [basic.id, basic.secret] : basic.kind === "none" ? [one("client_id"), one("client_secret")] : [undefined, undefined];
  const client = id === undefined ? undefined : clients.get(id);
  if (!client || secret === undefined || secret !== client.secret || client.revoked) {
    return error(401, "invalid_client", { challenge: 'Basic realm="leaveapi"' });
  }
  if (one("grant_type") !== "client_credentials") return error(400, "unsupported_grant_type", { params: ["grant_type"] });
  if (!client.apiEnabled) return error(400, "unauthorized_client");
  const requested = one("scope");
  const names = requested === undefined ? [] : requested.split(/[ \t\r\n]+/).filter((n) => n !== "");
  if (requested !== undefined && !/^[ \t\r\n]*$/.test(requested) && names.some((n) => !client.scopes.includes(n))) {
    return error(400, "invalid_scope", { params: ["scope"] });
  }
  const granted = names.length === 0 ? client.scopes : names;
  return { status: 200, challenge: null, scope: ALL_SCOPES.filter((s) => granted.includes(s)).join(" ") };
}
