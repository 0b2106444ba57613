/**
 * The raw-socket fuzzer (issue 12): seeded byte sequences sent over TCP to a running
 * `leaveapi serve`, each on its own connection, and the oracle every answer must meet.
 * Used by test/fuzz-socket.e2e.test.ts (the server from source) and test/binary.e2e.test.ts
 * (the compiled executable with a bare environment).
 *
 * What a case varies: the method (Bun's, unknown, malformed), the request target
 * (origin-form, absolute-form, asterisk-form, authority-form, broken), token-shaped strings
 * in paths and queries (plain, upper-case, percent-encoded up to three times), the Host
 * (missing, empty, duplicated, bad syntax, ports out of range, IPv6 literals, percent
 * escapes, userinfo), the version, Authorization and X-Request-Id, other header lines
 * (valid, malformed, oversized), the body framing (none, Content-Length right, short or
 * broken, chunked right or broken) and a pipelined second request.
 *
 * The oracle, SECURITY.md "At the edge": every answer is the project's JSON with the
 * headers of docs/api.md, "HTTP behaviour", and never a 5xx, or one of Bun's own bare refusals (400, 431,
 * 505: a status line and `Connection: close`, nothing else); a request whose bytes are
 * valid HTTP/1.1 with a method Bun knows always gets the JSON; a method Bun does not know
 * gets the connection closed, and nothing else does; no case takes longer than the
 * per-case limit. The server's output is checked apart (checkServerOutput).
 */
import { connect } from "node:net";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { holdsSecretMarker } from "../lib/url-credentials.ts";
import { DOCS_PATH, DOCS_SCRIPT_PATH } from "../server/docs-page.ts";
import { METRICS_PATH } from "../scripts/serve/front.ts";

/**
 * The methods Bun.serve hands to fetch (Node's `http.METHODS`): any other, or one not in
 * upper case, has its connection closed by Bun before our code runs (SECURITY.md).
 */
export const BUN_SERVE_METHODS = new Set([
  "ACL",
  "BIND",
  "CHECKOUT",
  "CONNECT",
  "COPY",
  "DELETE",
  "GET",
  "HEAD",
  "LINK",
  "LOCK",
  "M-SEARCH",
  "MERGE",
  "MKACTIVITY",
  "MKCALENDAR",
  "MKCOL",
  "MOVE",
  "NOTIFY",
  "OPTIONS",
  "PATCH",
  "POST",
  "PROPFIND",
  "PROPPATCH",
  "PURGE",
  "PUT",
  "QUERY",
  "REBIND",
  "REPORT",
  "SEARCH",
  "SOURCE",
  "SUBSCRIBE",
  "TRACE",
  "UNBIND",
  "UNLINK",
  "UNLOCK",
  "UNSUBSCRIBE",
]);

/** Bun's bare refusals: status line, `Connection: close`, no body (SECURITY.md lists when). */
export const BUN_REFUSALS = new Set([400, 431, 505]);

export interface FuzzFixtures {
  clientId: string;
  clientSecret: string;
  token: string;
  employeeId: string;
}

export interface SocketCase {
  index: number;
  bytes: Uint8Array;
  /** The request line's method and target, as sent. */
  method: string;
  target: string;
  /** Every part is valid HTTP/1.1 (RFC 9112) within Bun's limits, whatever the API will think of it. */
  wellFormed: boolean;
  /** The parts that are not (method, target, version, host, headers, body, size), for reports. */
  flaws: string[];
  /** The X-Request-Id sent, if any. */
  requestId: string | undefined;
  /** The path of an origin-form or absolute-form target, for the answers that are not JSON (/docs, /metrics). */
  pathname: string | undefined;
  /** A readable summary for failure reports. */
  label: string;
}

/** mulberry32: a small seeded generator, so a seed names a run exactly. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const chance = (p: number) => next() < p;
  const text = (length: number, alphabet: string) => Array.from({ length }, () => alphabet[int(0, alphabet.length - 1)]).join("");
  return { int, pick, chance, text };
}
type Gen = ReturnType<typeof generator>;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const PRINTABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

/** Part of a request, and whether it keeps the request valid HTTP/1.1. */
interface Part {
  text: string;
  valid: boolean;
}
const ok = (text: string): Part => ({ text, valid: true });
const broken = (text: string): Part => ({ text, valid: false });

/** `s` → `%73` (or `%53`), then `%` → `%25` for each further layer: what proxies undo one layer at a time. */
function encodeLayers(text: string, layers: number): string {
  if (layers === 0) return text;
  let encoded = text.replace(/s/i, (s) => (s === "s" ? "%73" : "%53"));
  for (let layer = 1; layer < layers; layer++) encoded = encoded.replaceAll("%", "%25");
  return encoded;
}

function tokenShaped(g: Gen, f: FuzzFixtures): string {
  const raw = g.pick([
    f.token,
    f.clientSecret,
    `svct_${g.text(43, BASE64URL)}`,
    `svcs_${g.text(43, BASE64URL)}`,
    `SVCT_${g.text(43, BASE64URL)}`,
    `Svcs_${g.text(g.int(1, 43), BASE64URL)}`,
  ]);
  return g.chance(0.15)
    ? encodeURIComponent(raw).replace(/[A-Za-z]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    : encodeLayers(raw, g.int(0, 3));
}

function method(g: Gen): Part {
  const roll = g.int(0, 99);
  if (roll < 55) return ok("GET");
  if (roll < 63) return ok("HEAD");
  if (roll < 75) return ok("POST");
  if (roll < 85) return ok(g.pick([...BUN_SERVE_METHODS]));
  if (roll < 95) return ok(g.pick(["FOO", "get", "Get", "post", "BREW", "X", "PRI", "GETX", "HTTP", "svct_x", "DEBUG"]));
  return broken(g.pick(["A!#$%&'*+-.^_`|~", "G(T", "GE\u00e9T", "GET\u0000"]));
}

const ROUTES = [
  "/",
  "/healthz",
  "/v1/employees",
  "/v1/leave-requests",
  "/v1/holidays",
  "/v1/oauth/token",
  "/v1/openapi.json",
  "/.well-known/oauth-authorization-server",
  METRICS_PATH,
  DOCS_PATH,
  DOCS_SCRIPT_PATH,
  "/nope",
  "/v1/employees/",
  "/v1/deletions",
];

function path(g: Gen, f: FuzzFixtures): Part {
  const roll = g.int(0, 99);
  if (roll < 45) return ok(g.pick(ROUTES));
  if (roll < 55) return ok(`/v1/employees/${g.pick([f.employeeId, f.employeeId.toUpperCase(), "not-a-uuid", "%zz", "%E0%A4"])}`);
  if (roll < 75) return ok(`/${g.pick(["v1/", "v1/employees/", ""])}${tokenShaped(g, f)}`);
  if (roll < 85) return ok(g.pick(["//x/y", "/%zz", "/%00", "/a%2Fb", "/..", "/./v1/employees", "/v1//employees", "/%25%32%35", "/%C3%A9"]));
  if (roll < 96) return ok(`/v1/employees?x=${"a".repeat(g.int(7800, 9000))}`);
  // Not valid in a request target (RFC 9112 §3.2): spaces, controls, bytes above ASCII.
  return broken(g.pick(["/a b", "/\u0001", "/x\ty", "", "/\u00e9"]));
}

function query(g: Gen, f: FuzzFixtures): string {
  const roll = g.int(0, 99);
  if (roll < 45) return "";
  if (roll < 60)
    return `?${g.pick(["limit=5", "from=2026-01-01&to=2026-12-31", "updated_since=2026-01-01T00:00:00Z", "calendar=GB-ENG&from=2026-01-01&to=2026-01-31", "resource=employees&updated_since=2026-01-01T00:00:00Z"])}`;
  if (roll < 85) return `?${g.pick(["x", "q", "cursor", "limit"])}=${tokenShaped(g, f)}`;
  if (roll < 93) return `?${encodeLayers(g.pick(["access_token", "client_secret", "token", "CLIENT_ID"]), g.int(0, 2))}=${g.text(8, BASE64URL)}`;
  return `?${g.pick(["a=%zz", "&&", "=", "%", "a=1&a=2", "x=%E0%A4"])}`;
}

function target(g: Gen, f: FuzzFixtures, post: boolean): Part {
  const roll = g.int(0, 99);
  // A POST goes to the token endpoint half the time, so that its bodies meet their limits (413).
  const p = post && g.chance(0.5) ? ok(`/v1/oauth/token${g.chance(0.8) ? "" : query(g, f)}`) : path(g, f);
  const withQuery: Part = { text: p.text.includes("?") ? p.text : p.text + query(g, f), valid: p.valid };
  if (roll < 84) return withQuery;
  if (roll < 92)
    return { text: `${g.pick(["http://x", "https://x:99999", "http://u:p@x", "http://[::1]:8080", "HTTP://X"])}${withQuery.text}`, valid: withQuery.valid };
  if (roll < 95) return ok("*");
  if (roll < 98) return ok(g.pick(["x:443", "127.0.0.1:80", "[::1]:443"]));
  return broken(g.pick(["x/y", "?x", "http:/x", "\\x"]));
}

function version(g: Gen): Part {
  if (g.chance(0.93)) return ok("HTTP/1.1");
  if (g.chance(0.5)) return ok("HTTP/1.0");
  return broken(g.pick(["HTTP/2.0", "HTTP/1.2", "http/1.1", "HTTP/1.1 x", "HTTP/01.1"]));
}

/** Host lines; none at all is invalid in HTTP/1.1 only. */
function hostLines(g: Gen, port: number, http10: boolean): Part {
  const roll = g.int(0, 99);
  if (roll < 40) return ok(`Host: ${g.pick(["x", `127.0.0.1:${port}`, "localhost", "[::1]", "[::1]:8080", "api.example.test:443"])}\r\n`);
  if (roll < 75) {
    return ok(
      `Host: ${g.pick(["", "a b", "user@x", "u:p@x", "a:99999", "x:65536", "x:-1", "[::1", "::1", "[::g]", "[::1]x", "%zz", "a%20b", "a%41b", "a/b", "a?b", "a#b", "x:8o", ":80", "bücher", "a, b", "x:", "x:0"])}\r\n`,
    );
  }
  if (roll < 95) return ok(`Host: ${g.pick(["a", "x"])}\r\nHost: ${g.pick(["b", "x"])}\r\n`);
  if (roll < 98) return http10 ? ok("") : broken("");
  return broken(`Host: ${g.pick(["a\u0000b", "x\u0007"])}\r\n`);
}

function authorizationLine(g: Gen, f: FuzzFixtures): string {
  const roll = g.int(0, 99);
  if (roll < 40) return "";
  const value = g.pick([
    `Bearer ${f.token}`,
    `bearer  ${f.token}`,
    `Bearer svct_${g.text(43, BASE64URL)}`,
    `Bearer ${f.token} extra`,
    `Basic ${btoa(`${f.clientId}:${f.clientSecret}`)}`,
    `Basic ${btoa(`${f.clientId}:svcs_${g.text(43, BASE64URL)}`)}`,
    "Basic !!!",
    "Bearer",
  ]);
  return `Authorization: ${value}\r\n`;
}

function requestIdLine(g: Gen): { line: string; id: string | undefined } {
  if (g.chance(0.5)) return { line: "", id: undefined };
  const id = g.pick([`fuzz-${g.text(8, BASE64URL)}`, "bad id", "a".repeat(65), `svct_${g.text(43, BASE64URL)}`, "ü"]);
  return { line: `X-Request-Id: ${id}\r\n`, id };
}

function otherLines(g: Gen): Part {
  const lines: Part[] = [];
  for (let i = g.int(0, 2); i > 0; i--) {
    const roll = g.int(0, 99);
    if (roll < 50) lines.push(ok(`X-Fuzz-${g.int(0, 9)}: ${g.text(g.int(0, 40), PRINTABLE).trim()}\r\n`));
    else if (roll < 62) lines.push(ok(`Accept-Encoding: ${g.pick(["gzip", "br", "gzip, br", "identity", "*"])}\r\n`));
    else if (roll < 70) lines.push(ok(`X-Pad: ${"p".repeat(g.int(8300, 9000))}\r\n`));
    else if (roll < 72) lines.push(broken(`X-Pad: ${"p".repeat(g.int(17_000, 18_000))}\r\n`));
    else if (roll < 92) lines.push(ok(`Accept: ${g.pick(["application/json", "*/*", "text/html"])}\r\n`));
    else lines.push(broken(g.pick(["Bad Header: x\r\n", "NoColon\r\n", " folded: x\r\n", "X-Nul: a\u0000b\r\n", ": empty\r\n", "X-Ctl: a\u0001b\r\n"])));
  }
  return { text: lines.map((l) => l.text).join(""), valid: lines.every((l) => l.valid) };
}

/**
 * Content-Type, the body framing and the body; the request line's method decides nothing
 * here. `short` when Content-Length is less than what follows: the rest is then read as
 * the start of another request, so nothing may be pipelined after it.
 */
function bodyPart(g: Gen, f: FuzzFixtures, http10: boolean): Part & { short?: boolean } {
  const roll = g.int(0, 99);
  if (roll < 45) return ok("\r\n");
  const form = g.chance(0.25)
    ? "x".repeat(g.int(4000, 5000))
    : g.pick([
        "grant_type=client_credentials",
        `grant_type=client_credentials&client_id=${f.clientId}&client_secret=${f.clientSecret}`,
        `grant_type=client_credentials&scope=${g.pick(["employees:read", "nope", "%"])}`,
        g.text(g.int(0, 60), PRINTABLE),
      ]);
  const type = g.pick([
    "Content-Type: application/x-www-form-urlencoded\r\n",
    "Content-Type: text/plain\r\n",
    "Content-Type: application/x-www-form-urlencoded; charset=utf-8\r\n",
    "",
  ]);
  const bytes = new TextEncoder().encode(form).length;
  if (roll < 75) return ok(`${type}Content-Length: ${bytes}\r\n\r\n${form}`);
  if (roll < 82) return { ...ok(`${type}Content-Length: ${g.int(0, bytes)}\r\n\r\n${form}`), short: true };
  // Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 §6.1): Bun's bare 400.
  if (roll < 94) return { text: `${type}Transfer-Encoding: chunked\r\n\r\n${bytes.toString(16)}\r\n${form}\r\n0\r\n\r\n`, valid: !http10 };
  return broken(
    g.pick([
      `${type}Content-Length: abc\r\n\r\n${form}`,
      `${type}Content-Length: -1\r\n\r\n${form}`,
      `${type}Content-Length: 1\r\nContent-Length: 2\r\n\r\n${form}`,
      `${type}Transfer-Encoding: chunked\r\n\r\nzz\r\n${form}\r\n0\r\n\r\n`,
      `${type}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
      `${type}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
    ]),
  );
}

export function generateCases(seed: number, count: number, fixtures: FuzzFixtures, port: number): SocketCase[] {
  const g = generator(seed);
  const cases: SocketCase[] = [];
  for (let index = 0; index < count; index++) {
    const m = method(g);
    const t = target(g, fixtures, m.text === "POST");
    const v = version(g);
    const host = hostLines(g, port, v.text === "HTTP/1.0");
    const auth = authorizationLine(g, fixtures);
    const requestId = requestIdLine(g);
    const other = otherLines(g);
    const body = bodyPart(g, fixtures, v.text === "HTTP/1.0");
    // The last request asks for the connection to be closed after its answer: how a case ends.
    // After CONNECT Bun reads the rest of the connection as a tunnel, not as requests: nothing is pipelined after one.
    const pipelined = !body.short && m.text !== "CONNECT" && g.chance(0.1) ? "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" : "";
    const connection = pipelined
      ? g.pick(["", "Connection: keep-alive\r\n"])
      : g.pick(["Connection: close\r\n", "Connection: keep-alive, close\r\n", "Connection: close, upgrade\r\n"]);
    const head = `${m.text} ${t.text} ${v.text}\r\n${host.text}${auth}${requestId.line}${other.text}${connection}`;
    // Bun refuses a head over 16 KiB itself (bare 431); a little below, to leave the body's framing lines room.
    const withinBunLimit = head.length < 16_000;
    const text = `${head}${body.text}${pipelined}`;
    const parts = { method: m, target: t, version: v, host, headers: other, body };
    const flaws = Object.entries(parts)
      .filter(([, part]) => !part.valid)
      .map(([name]) => name);
    if (!withinBunLimit) flaws.push("size");
    if (!t.text.startsWith("/") && !/^https?:\/\//i.test(t.text)) flaws.push("target form");
    cases.push({
      index,
      bytes: Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff),
      method: m.text,
      target: t.text,
      // Bun takes only origin-form and absolute-form targets; the rest is its bare 400.
      wellFormed: flaws.length === 0,
      flaws,
      requestId: requestId.id,
      // Bun takes the path of an absolute-form target as it is, whatever its authority.
      pathname: /^(?:https?:\/\/[^/?#]*)?(\/[^?#]*)/i.exec(t.text)?.[1],
      label: `${m.text} ${t.text.slice(0, 120)} ${v.text}`,
    });
  }
  return cases;
}

/** One parsed response from the byte stream. */
interface Answer {
  status: number;
  headers: Map<string, string>;
  body: Uint8Array;
}

function indexOfHeadEnd(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/** Every response in what the server sent, in order; throws on bytes that are not HTTP/1.1 responses. */
function parseAnswers(bytes: Uint8Array, firstIsHead: boolean): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = indexOfHeadEnd(bytes, at);
    if (end === -1) throw new Error(`an incomplete response head: ${JSON.stringify(latin1(bytes.subarray(at, at + 200)))}`);
    const [statusLine = "", ...lines] = latin1(bytes.subarray(at, end)).split("\r\n");
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (!status) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).toLowerCase();
      if (headers.has(name)) throw new Error(`header ${name} twice`);
      headers.set(name, line.slice(colon + 1).trim());
    }
    at = end + 4;
    let body = new Uint8Array();
    const noBody = (answers.length === 0 && firstIsHead) || [204, 304].includes(Number(status[1]));
    if (!noBody && headers.get("transfer-encoding") === "chunked") {
      const parts: number[] = [];
      for (;;) {
        const lineEnd = latin1(bytes.subarray(at, at + 20)).indexOf("\r\n");
        const size = parseInt(latin1(bytes.subarray(at, at + lineEnd)), 16);
        if (lineEnd < 0 || Number.isNaN(size)) throw new Error("a broken chunk");
        at += lineEnd + 2;
        parts.push(...bytes.subarray(at, at + size));
        at += size + 2;
        if (size === 0) break;
      }
      body = Uint8Array.from(parts);
    } else if (!noBody && headers.has("content-length")) {
      const length = Number(headers.get("content-length"));
      if (at + length > bytes.length) throw new Error("a body shorter than its Content-Length");
      body = bytes.slice(at, at + length);
      at += length;
    }
    answers.push({ status: Number(status[1]), headers, body });
  }
  return answers;
}

function decodedBody(answer: Answer): string {
  const encoding = answer.headers.get("content-encoding");
  const bytes = encoding === "gzip" ? gunzipSync(answer.body) : encoding === "br" ? brotliDecompressSync(answer.body) : answer.body;
  return new TextDecoder().decode(bytes);
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** The answers that are not JSON, by path: the reference page, its script, the Prometheus metrics. */
const NOT_JSON = new Map([
  [DOCS_PATH, "text/html"],
  [DOCS_SCRIPT_PATH, "application/javascript"],
  [METRICS_PATH, "text/plain; version=0.0.4"],
]);

/** Why this response is not the project's JSON as docs/api.md describes it, or null. */
function jsonProblem(c: SocketCase, answer: Answer, first: boolean): string | null {
  const h = answer.headers;
  if (answer.status >= 500) return `a ${answer.status}`;
  if (answer.status >= 300 && answer.status < 400) return "a redirect";
  // The docs script is the one answer that may be kept and revalidated (docs/api.md, "HTTP behaviour").
  const cacheControl = first && answer.status === 200 && c.pathname === DOCS_SCRIPT_PATH ? "no-cache" : "no-store";
  if (h.get("cache-control") !== cacheControl) return `no Cache-Control: ${cacheControl}`;
  if (h.get("x-content-type-options") !== "nosniff") return "no X-Content-Type-Options: nosniff";
  const id = h.get("x-request-id") ?? "";
  if (!REQUEST_ID.test(id)) return "no X-Request-Id";
  if (first && c.requestId !== undefined) {
    const echoable = REQUEST_ID.test(c.requestId) && !holdsSecretMarker(c.requestId);
    if (echoable !== (id === c.requestId)) return `X-Request-Id ${echoable ? "not echoed" : "echoed though it must not be"}`;
  }
  if ([...h.keys()].some((name) => name.startsWith("access-control-"))) return "an Access-Control-* header";
  if (answer.body.length === 0) return answer.status >= 400 && !(first && c.method === "HEAD") ? "an error without a body" : null;
  const expectedType = (first && answer.status === 200 && NOT_JSON.get(c.pathname ?? "")) || "application/json";
  if (!h.get("content-type")?.startsWith(expectedType)) return `Content-Type ${h.get("content-type")}`;
  if (expectedType !== "application/json") return null;
  let body: unknown;
  try {
    body = JSON.parse(decodedBody(answer));
  } catch {
    return "a body that is not JSON";
  }
  if (answer.status >= 400) {
    const error = body as { error?: unknown; error_description?: unknown };
    if (typeof error.error !== "string" || typeof error.error_description !== "string") return "an error body without error and error_description";
  }
  return null;
}

function isBunRefusal(answer: Answer): boolean {
  return (
    BUN_REFUSALS.has(answer.status) &&
    answer.body.length === 0 &&
    [...answer.headers.keys()].every((name) => name === "connection" || name === "content-length") &&
    (answer.headers.get("content-length") ?? "0") === "0"
  );
}

export type Outcome = "json" | "bun-refusal" | "closed";

/** The one request with a method Bun knows that it drops unanswered: CONNECT with an empty target or one of only a query (SECURITY.md). */
function closedByBun(c: SocketCase): boolean {
  return c.method === "CONNECT" && (c.target === "" || c.target.startsWith("?"));
}

/** The outcome of one case, or throws with what is wrong. */
export function judge(c: SocketCase, received: Uint8Array): Outcome {
  if (received.length === 0) {
    if (BUN_SERVE_METHODS.has(c.method) && !closedByBun(c)) throw new Error("the connection was closed without an answer, though Bun knows the method");
    return "closed";
  }
  const answers = parseAnswers(received, c.method === "HEAD");
  const bunMethod = BUN_SERVE_METHODS.has(c.method);
  if (!bunMethod && !isBunRefusal(answers[0]!))
    throw new Error("the handler answered a method Bun does not know: SECURITY.md says Bun closes or refuses those");
  answers.forEach((answer, i) => {
    const problem = isBunRefusal(answer)
      ? c.wellFormed && bunMethod && i === 0
        ? "Bun's bare refusal of a well-formed request"
        : null
      : jsonProblem(c, answer, i === 0);
    if (problem)
      throw new Error(`${i === 0 ? "the answer" : `answer ${i + 1}`}: ${problem} (status ${answer.status}, headers ${JSON.stringify([...answer.headers])})`);
  });
  return isBunRefusal(answers[0]!) ? "bun-refusal" : "json";
}

/**
 * Sends the case on a fresh connection and collects all the server sends until it closes
 * (every case ends with `Connection: close`, or with bytes Bun refuses). The client never
 * half-closes: Bun drops a request still in progress when its client does (SECURITY.md).
 */
export function exchange(port: number, bytes: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of the answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    // A reset after the answer (the server closing with unread bytes) is still an answer.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const chunk of chunks) {
        all.set(chunk, at);
        at += chunk.length;
      }
      resolve(all);
    });
  });
}

export interface FuzzReport {
  cases: number;
  outcomes: Record<Outcome, number>;
  statuses: Map<number, number>;
  failures: string[];
}

/** Runs every case against the port, a few at a time; failures are collected, not thrown. */
export async function runSocketFuzz(
  port: number,
  cases: SocketCase[],
  options: { concurrency: number; timeoutMs: number; replay: string },
): Promise<FuzzReport> {
  const report: FuzzReport = { cases: 0, outcomes: { json: 0, "bun-refusal": 0, closed: 0 }, statuses: new Map(), failures: [] };
  let next = 0;
  const worker = async () => {
    for (let c = cases[next++]; c !== undefined; c = cases[next++]) {
      try {
        const received = await exchange(port, c.bytes, options.timeoutMs);
        const outcome = judge(c, received);
        report.outcomes[outcome]++;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(latin1(received.subarray(0, 12)))?.[1] ?? 0);
        report.statuses.set(status, (report.statuses.get(status) ?? 0) + 1);
      } catch (error) {
        if (report.failures.length < 20)
          report.failures.push(
            `case ${c.index} (${options.replay}): ${c.label}\n  ${(error as Error).message}\n  sent: ${JSON.stringify(latin1(c.bytes).slice(0, 600))}`,
          );
      }
      report.cases++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return report;
}

/**
 * What must never be in the server's stdout and stderr: any of the given secrets, anything
 * token-shaped however percent-encoded, and anything but its start line and JSON log lines
 * (no error page, no stack trace, no URL printed by Bun).
 */
export function serverOutputProblems(output: string, secrets: readonly string[]): string[] {
  const problems: string[] = [];
  for (const line of output.split("\n")) {
    if (line === "" || /^leaveapi serving https?:\/\/\S+ on /.test(line)) continue;
    if (secrets.some((secret) => line.includes(secret)) || holdsSecretMarker(line)) problems.push(`a token-shaped string: ${line.slice(0, 300)}`);
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      problems.push(`not a log line: ${line.slice(0, 300)}`);
      continue;
    }
    if (typeof entry !== "object" || entry === null || !("level" in entry)) problems.push(`not a log entry: ${line.slice(0, 300)}`);
  }
  return problems.slice(0, 20);
}
