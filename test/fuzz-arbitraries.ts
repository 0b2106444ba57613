/**
 * fast-check generators for the endpoint fuzzer (fuzz-endpoints.e2e.test.ts): request pieces
 * that are mostly near the edge of valid (real parameter names with good and bad values,
 * real tokens and secrets) with a share of plain garbage (unicode, percent-escapes, `+`,
 * repeats, very long values). What a generated request should get is decided by
 * fuzz-oracle.ts from the request itself, not from how it was generated, except where a
 * header is built to mean one thing (`BasicMeaning`).
 */
import fc from "fast-check";
import { LEAVE_STATUSES } from "../lib/records.ts";

/** Values the world set-up knows and the generators draw from. */
export interface FuzzFixtures {
  ownEmployeeIds: string[];
  otherEmployeeIds: string[];
  /** Bearer tokens, every kind the oracle tells apart (valid, narrow scope, expired, revoked, ...). */
  tokens: string[];
  /** Real cursors, each valid only with the filters it was made for. */
  cursors: string[];
}

const CREDENTIAL_NAMES = ["access_token", "client_id", "client_secret", "token", "Access_Token", "TOKEN"];
const SPECIAL_FRAGMENTS = [
  "%",
  "%Z",
  "%ZZ",
  "%E0%A4",
  "%C3%28",
  "%00",
  "%2B",
  "+",
  "++",
  "=",
  "==",
  "&",
  "a=b=c",
  "%26=%3D",
  "%FF",
  "%EF%BF%BD",
  "%F0%9F%98%80",
  "svct_",
  "%73vct_x",
  "%25",
];
const PARAM_NAMES = ["from", "to", "status", "employee_id", "updated_since", "limit", "cursor", "calendar", "type"];
const TYPO_NAMES = ["update_since", "From", "LIMIT", "employeeId", "page", "offset", "q", "from ", " to", "stat%75s", "cursor[]"];

/** Any string, from plain ASCII to astral-plane unicode and lone surrogates. */
export const anyText = (maxLength = 40) =>
  fc.oneof(fc.string({ maxLength }), fc.string({ unit: "grapheme", maxLength }), fc.string({ unit: "binary", maxLength }));

/** A very long value: cheap to build, long enough to cross the 8 KiB URL limit sometimes. */
const longText = fc.tuple(fc.constantFrom("a", "é", "%41", "1", "😀", "svct"), fc.integer({ min: 200, max: 9000 })).map(([s, n]) => s.repeat(n));

const uuidArb = fc.uuid().map((u) => u);
const isoDate = fc
  .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const nearDate = fc.integer({ min: -800, max: 800 }).map((n) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
const badDate = fc.constantFrom(
  "2026-02-30",
  "2026-13-01",
  "2026-1-1",
  "20260101",
  "2026-01-01T00:00:00Z",
  "0000-01-01",
  "2025-02-29",
  "-2026-01-01",
  "2026-01-01 ",
  "２０２６-01-01",
  "",
);

const offset = fc.oneof(fc.constantFrom("Z", "z", "+00:00", "-00:00", "+05:30", "-12:00", "+23:59", "+24:00", "+01:60", "+0100", "+01"), fc.constant(" 02:00"));
const rfc3339 = fc
  .tuple(
    fc.oneof(isoDate, nearDate),
    fc.constantFrom("T", "t", " ", "_"),
    fc.integer({ min: 0, max: 25 }),
    fc.integer({ min: 0, max: 61 }),
    fc.integer({ min: 0, max: 61 }),
    fc.option(fc.stringMatching(/^[0-9]{0,13}$/)),
    fc.option(offset, { nil: "" }),
  )
  .map(([date, t, h, m, s, frac, off]) => `${date}${t}${pad(h)}:${pad(m)}:${pad(s)}${frac === null ? "" : `.${frac}`}${off}`);

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

const limitValue = fc.oneof(
  fc.integer({ min: 1, max: 500 }).map(String),
  fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 600 })).map(([zeros, n]) => "0".repeat(zeros) + String(n)),
  fc.constantFrom("0", "501", "-1", "1e2", "1.0", " 5", "５", "0x10", "99999999999999999999", "Infinity", "NaN"),
);

/** One value for a known parameter: valid, invalid or garbage. */
function valueFor(name: string, f: FuzzFixtures): fc.Arbitrary<string> {
  const garbage = fc.oneof({ weight: 3, arbitrary: anyText() }, { weight: 1, arbitrary: longText });
  const specific: Record<string, fc.Arbitrary<string>> = {
    from: fc.oneof(nearDate, isoDate, badDate),
    to: fc.oneof(nearDate, isoDate, badDate),
    status: fc.oneof(fc.constantFrom(...LEAVE_STATUSES, "active", "terminated", "on_leave", "Active", "active "), fc.stringMatching(/^[a-z_]{0,32}$/)),
    employee_id: fc.oneof(
      fc.constantFrom(...f.ownEmployeeIds, ...f.otherEmployeeIds),
      uuidArb,
      uuidArb.map((u) => u.toUpperCase()),
      fc.constantFrom("not-a-uuid", "{00000000-0000-0000-0000-000000000000}"),
    ),
    updated_since: rfc3339,
    limit: limitValue,
    cursor: fc.oneof(
      fc.constantFrom(...f.cursors),
      fc.constantFrom(...f.cursors).map((c) => c.slice(0, -2)),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,80}$/),
      fc.constant("A".repeat(1025)),
    ),
    calendar: fc.oneof(
      fc.constantFrom("GB", "GB-ENG", "US-CA", "DE-BY", "XX", "gb", "GB-", "GB-ENGL", "ZZ-ZZZ"),
      fc.stringMatching(/^[A-Z]{2}(-[A-Z]{2,3})?$/),
    ),
    type: fc.constantFrom("public", "company", "Public", "both", ""),
  };
  return fc.oneof({ weight: 6, arbitrary: specific[name] ?? garbage }, { weight: 1, arbitrary: garbage });
}

/** How a name or value goes into the query: percent-encoded, form-encoded (`+` for space) or raw. */
const encoder = fc.constantFrom<(s: string) => string>(
  (s) => encodeURIComponent(s),
  (s) => encodeURIComponent(s).replaceAll("%20", "+"),
  (s) => s.replace(/[&#=%]/g, (c) => encodeURIComponent(c)),
  (s) => s,
);

/** One `name=value` item of a query string. */
function queryItem(f: FuzzFixtures): fc.Arbitrary<string> {
  // Built once: arbitraries such as stringMatching are costly to construct, cheap to draw from.
  const values = new Map(PARAM_NAMES.map((name) => [name, valueFor(name, f)]));
  const known = fc.constantFrom(...PARAM_NAMES).chain((name) => fc.tuple(fc.constant(name), values.get(name)!, encoder));
  const unknown = fc.tuple(fc.oneof(fc.constantFrom(...TYPO_NAMES), anyText(12)), anyText(), encoder);
  const credential = fc.tuple(fc.constantFrom(...CREDENTIAL_NAMES), fc.oneof(anyText(), fc.constantFrom(...f.tokens)), encoder);
  const marker = fc.tuple(
    fc.constantFrom(...PARAM_NAMES),
    fc.constantFrom("svct_x", "svcs_y", "xsvct_AAAA", "SVCT_upper", "svc_notamarker", "%2573vct_twice"),
    encoder,
  );
  return fc.oneof(
    { weight: 12, arbitrary: known.map(([n, v, enc]) => `${enc(n)}=${enc(v)}`) },
    { weight: 2, arbitrary: unknown.map(([n, v, enc]) => `${enc(n)}=${enc(v)}`) },
    { weight: 1, arbitrary: credential.map(([n, v, enc]) => `${enc(n)}=${enc(v)}`) },
    { weight: 1, arbitrary: marker.map(([n, v, enc]) => `${enc(n)}=${enc(v)}`) },
    { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_FRAGMENTS) },
    { weight: 1, arbitrary: fc.constantFrom(...PARAM_NAMES) },
  );
}

/** A leave or holiday range that is valid more often than two random dates would be. */
const rangeItems = fc.tuple(nearDate, fc.integer({ min: -3, max: 403 })).map(([from, span]) => {
  const to = new Date(Date.parse(`${from}T00:00:00Z`) + span * 86_400_000).toISOString().slice(0, 10);
  return [`from=${from}`, `to=${to}`];
});

/** A whole query string (without `?`): a valid range most of the time, then zero or more items. */
export function queryString(f: FuzzFixtures): fc.Arbitrary<string> {
  const item = queryItem(f);
  return fc
    .tuple(
      fc.option(rangeItems, { freq: 3 }),
      fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(item, { maxLength: 5 }) }),
      fc.constantFrom("&", "&", "&", "&&"),
    )
    .chain(([range, items, sep]) =>
      fc.shuffledSubarray([...(range ?? []), ...items], { minLength: (range ?? []).length + items.length }).map((all) => all.join(sep)),
    );
}

/** A path segment of anything, escaped so that it stays one segment. */
const segment = anyText(20).map((s) => encodeURIComponent(s));

export function pathArb(f: FuzzFixtures): fc.Arbitrary<string> {
  const id = fc.oneof(
    fc.constantFrom(...f.ownEmployeeIds),
    fc.constantFrom(...f.ownEmployeeIds).map((u) => u.toUpperCase()),
    fc.constantFrom(...f.ownEmployeeIds).map((u) => encodeURIComponent(u).replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)),
    fc.constantFrom(...f.ownEmployeeIds).map((u) => `%25${u.charCodeAt(0).toString(16)}${u.slice(1)}`),
    fc.constantFrom(...f.otherEmployeeIds),
    uuidArb,
    segment,
    fc.constantFrom("%2e%2e", "..", "%2F", "svct_x", "%ZZ", " ", "%20"),
  );
  return fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom("/v1/employees", "/v1/leave-requests", "/v1/holidays") },
    { weight: 5, arbitrary: id.map((i) => `/v1/employees/${i}`) },
    { weight: 2, arbitrary: fc.constantFrom("/healthz", "/v1/openapi.json", "/.well-known/oauth-authorization-server", "/v1/oauth/token") },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          "/",
          "/v1",
          "/v1/",
          "/v1/employees/",
          "/V1/EMPLOYEES",
          "/v1//employees",
          "/v2/employees",
          "/metrics",
          "/v1/holidays/x",
          "/v1/employees/a/b",
          "//v1/employees",
          "/v1/./holidays",
          "/v1/x/../employees",
        ),
        segment.map((s) => `/v1/${s}`),
        fc.tuple(id, segment).map(([i, s]) => `/v1/employees/${i}/${s}`),
      ),
    },
  );
}

const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xff }) },
    { weight: 1, arbitrary: fc.constantFrom(0x09, 0x80, 0x85) },
  )
  .map((c) => String.fromCharCode(c));
/** A header value a real client could send: visible Latin-1 and tabs (no CR, LF or NUL). */
export const headerText = (maxLength = 60) => fc.array(headerChar, { maxLength }).map((cs) => cs.join(""));
const space = fc.constantFrom(" ", "  ", "\t", " \t ", "\u00a0");

/** Authorization headers for a data endpoint; the oracle reads what they mean from the text. */
export function bearerHeader(f: FuzzFixtures): fc.Arbitrary<string | null> {
  const scheme = fc.constantFrom("Bearer", "bearer", "BEARER", "BeArEr");
  const token = fc.constantFrom(...f.tokens);
  return fc.oneof(
    { weight: 10, arbitrary: fc.tuple(scheme, fc.constantFrom(" "), token).map(([s, sp, t]) => `${s}${sp}${t}`) },
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: fc.tuple(space, scheme, space, token, fc.constantFrom("", " ", "\t")).map(([a, s, b, t, c]) => `${a}${s}${b}${t}${c}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(scheme, token, fc.constantFrom(" ", ",", ", ", "\t"), fc.oneof(token, headerText(10))).map(([s, t, sep, u]) => `${s} ${t}${sep}${u}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(scheme, fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,60}=*$/), headerText(), fc.constantFrom("", "=", "svct_", "a=b")))
        .map(([s, t]) => `${s} ${t}`),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Basic", "Digest", "Token", "Bearer:", "Bearerx", "MAC", "DPoP"), token).map(([s, t]) => `${s} ${t}`) },
    { weight: 1, arbitrary: headerText() },
  );
}

/** X-Request-Id values: well-formed ones to echo and ones to replace. */
export const requestIdArb = fc.option(
  fc.oneof(fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/), headerText(80), fc.constantFrom("a".repeat(64), "a".repeat(65), "req 1", "x\ty", "ü")),
  { freq: 3 },
);

export const methodArb = fc.oneof(
  { weight: 10, arbitrary: fc.constant("GET") },
  { weight: 1, arbitrary: fc.constantFrom("HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS") },
);
