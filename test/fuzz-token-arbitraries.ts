/**
 * fast-check generators for token requests: bodies (well-formed forms of real and wrong
 * credentials, repeats, malformed escapes, invalid UTF-8, random bytes, bodies around
 * the 4 KiB limit), content types and Authorization headers. A header is built to mean
 * one thing (`BasicMeaning`), so the oracle needs no base64 decoder of its own.
 */
import fc from "fast-check";
import { anyText, headerText } from "./fuzz-arbitraries.ts";
import { clientFormEncode } from "./oauth-helpers.ts";
import type { BasicMeaning, ClientFacts } from "./fuzz-oracle.ts";

export interface TokenCase {
  method: string;
  /** `""` or `?…`. */
  query: string;
  contentType: string | null;
  body: Uint8Array<ArrayBuffer>;
  authorization: string | null;
  basic: BasicMeaning;
}

const utf8 = (s: string) => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;
const SCOPE_WORDS = ["employees:read", "holidays:read", "leave:read", "admin", "employees:write", "EMPLOYEES:READ", "openid", ""];
const UNKNOWN_ID = `svcc_${"0".repeat(24)}`;

const scopeValue = fc.oneof(
  fc.array(fc.constantFrom(...SCOPE_WORDS), { maxLength: 4 }).chain((words) => fc.constantFrom(" ", "  ", "\t", " \n ").map((sep) => words.join(sep))),
  fc.constantFrom(" ", "\t", "\u00a0", "employees:read\u00a0leave:read"),
  anyText(20),
);

/** A form value as a real client would encode it, or with `+` for space, or raw. */
const encodeWith = fc.constantFrom<(s: string) => string>(
  (s) => encodeURIComponent(s),
  (s) => clientFormEncode(s),
  (s) => s.replace(/[&=%+]/g, (c) => encodeURIComponent(c)),
);

function formBody(clients: Map<string, ClientFacts>): fc.Arbitrary<string> {
  const ids = [...clients.keys()];
  const credentialPair = fc
    .tuple(fc.constantFrom(...ids, UNKNOWN_ID, "svcc_bad", ""), fc.constantFrom("right", "wrong", "none", "empty"))
    .map(([id, which]) => {
      const secret = clients.get(id)?.secret ?? "svcs_x";
      const pairs: [string, string][] = [["client_id", id]];
      if (which === "right") pairs.push(["client_secret", secret]);
      if (which === "wrong") pairs.push(["client_secret", `${secret}x`]);
      if (which === "empty") pairs.push(["client_secret", ""]);
      return pairs;
    });
  const grant = fc.constantFrom(
    "client_credentials",
    "client_credentials",
    "client_credentials",
    "password",
    "",
    "CLIENT_CREDENTIALS",
    "client_credentials ",
    "authorization_code",
  );
  const extra = fc.tuple(fc.oneof(fc.constantFrom("grant_type", "scope", "client_id", "client_secret", "audience", "resource", "x"), anyText(8)), anyText(20));
  return fc
    .record({
      grant: fc.option(grant, { freq: 8 }),
      scope: fc.option(scopeValue, { freq: 2 }),
      credentials: fc.option(credentialPair, { freq: 2 }),
      extras: fc.array(extra, { maxLength: 3 }),
      encode: encodeWith,
      separator: fc.constantFrom("&", "&", "&&"),
    })
    .chain(({ grant: g, scope, credentials, extras, encode, separator }) => {
      const pairs: [string, string][] = [
        ...(g === null ? [] : [["grant_type", g] as [string, string]]),
        ...(scope === null ? [] : [["scope", scope] as [string, string]]),
        ...(credentials ?? []),
        ...extras,
      ];
      return fc.shuffledSubarray(pairs, { minLength: pairs.length }).map((all) => all.map(([n, v]) => `${encode(n)}=${encode(v)}`).join(separator));
    });
}

function bodyArb(clients: Map<string, ClientFacts>): fc.Arbitrary<Uint8Array<ArrayBuffer>> {
  return fc.oneof(
    { weight: 12, arbitrary: formBody(clients).map(utf8) },
    { weight: 1, arbitrary: anyText(60).map(utf8) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => new Uint8Array(b)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("grant_type=client_credentials&x=%ZZ", "grant_type=%E0%A4", "grant_type=client_credentials&%C3%28=1", "=", "&&&", "grant_type")
        .map(utf8),
    },
    { weight: 1, arbitrary: fc.integer({ min: 4000, max: 4200 }).map((n) => utf8(`grant_type=client_credentials&pad=${"a".repeat(n - 34)}`)) },
  );
}

const contentTypeArb = fc.oneof(
  { weight: 10, arbitrary: fc.constant<string | null>("application/x-www-form-urlencoded") },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | null>(
      "application/x-www-form-urlencoded; charset=UTF-8",
      "APPLICATION/X-WWW-FORM-URLENCODED",
      "application/x-www-form-urlencoded ;charset=utf-8",
      null,
      "application/json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencodedx",
      "",
    ),
  },
  { weight: 1, arbitrary: headerText(40) },
);

/** Basic headers for every client, right and wrong, as real clients and broken ones send them. */
function authorizationArb(clients: Map<string, ClientFacts>): fc.Arbitrary<{ authorization: string | null; basic: BasicMeaning }> {
  const ids = [...clients.keys()];
  const scheme = fc.constantFrom("Basic", "basic", "BASIC");
  const gap = fc.constantFrom(" ", "  ", " \t");
  const basic = fc
    .tuple(fc.constantFrom(...ids, UNKNOWN_ID), fc.constantFrom("right", "wrong", "other"), fc.boolean(), scheme, gap)
    .map(([id, which, formEncoded, s, g]) => {
      const right = clients.get(id)?.secret ?? "svcs_unknown";
      const secret = which === "right" ? right : which === "wrong" ? `${right.slice(0, -1)}Q` : (clients.get(ids[0]!)?.secret ?? "");
      const enc = formEncoded ? clientFormEncode : (t: string) => t;
      return { authorization: `${s}${g}${btoa(`${enc(id)}:${enc(secret)}`)}`, basic: { kind: "basic", id, secret } as BasicMeaning };
    });
  const notBasic = fc
    .oneof(
      fc.constantFrom(
        "Basic",
        "Basic !!!!",
        `Basic ${btoa("no-colon")}`,
        `Basic ${btoa("svcc_x:%ZZ")}`,
        "Basic YWJj=",
        "Basic =",
        "Basic \u00ff\u00fe",
        `Bearer svct_${"A".repeat(43)}`,
        "Digest x",
        "Basicx YTpi",
      ),
      fc.constantFrom(...ids).map((id) => `Basic ${btoa(`${id}:${clients.get(id)!.secret}`).replace(/=+$/, "")}=`),
      fc.constantFrom(...ids).map((id) => `Basic ${String.fromCharCode(...new TextEncoder().encode(`${id}:\u00e9`))}`),
      fc.constantFrom(...ids).map((id) => `Basic ${btoa(`${id}:`)}${"\u00e9"}`),
      headerText(30).map((t) => `X${t}`),
    )
    .map((authorization) => ({ authorization, basic: { kind: "not-basic" } as BasicMeaning }));
  return fc.oneof(
    { weight: 6, arbitrary: basic },
    { weight: 3, arbitrary: fc.constant({ authorization: null, basic: { kind: "none" } as BasicMeaning }) },
    { weight: 2, arbitrary: notBasic },
  );
}

export function tokenCase(clients: Map<string, ClientFacts>): fc.Arbitrary<TokenCase> {
  return fc
    .record({
      method: fc.oneof({ weight: 20, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: fc.constantFrom("GET", "PUT", "DELETE", "HEAD") }),
      query: fc.oneof(
        { weight: 20, arbitrary: fc.constant("") },
        { weight: 1, arbitrary: fc.constantFrom("?", "?grant_type=client_credentials", "?x=1", "?client_secret=s", "?a=svcs_b") },
      ),
      contentType: contentTypeArb,
      body: bodyArb(clients),
      auth: authorizationArb(clients),
    })
    .map(({ auth, ...rest }) => ({ ...rest, ...auth }));
}
