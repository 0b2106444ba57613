/**
 * Reading a token request (RFC 6749 §2.3.1, §3.2, §4.4): the form body and the HTTP Basic
 * header, strictly, into the parameters the token operation takes (lib/issue-token.ts).
 * Pure functions: reading the HTTP request itself is the server's.
 */
import { base64Decode, formDecode, utf8DecodeStrict } from "./encoding.ts";
import { invalidParam, invalidRequest } from "./errors.ts";

/** Form fields by name, each with every value given; `null` for a malformed body. */
export function parseForm(body: string): Map<string, string[]> | null {
  const fields = new Map<string, string[]>();
  if (body === "") return fields;
  for (const pair of body.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = formDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = formDecode(eq === -1 ? "" : pair.slice(eq + 1));
    if (name === null || value === null) return null;
    fields.set(name, [...(fields.get(name) ?? []), value]);
  }
  return fields;
}

export type BasicCredentials = { kind: "none" } | { kind: "other-scheme" } | { kind: "malformed" } | { kind: "basic"; clientId: string; clientSecret: string };

/**
 * An Authorization header as client credentials: the scheme matched case-insensitively,
 * base64 decoded, split at the first `:`, and each half form-url-decoded, because real
 * clients (oauth4webapi, openid-client) send `-` as `%2D` and `_` as `%5F`.
 */
export function parseBasicAuthorization(header: string | null): BasicCredentials {
  // HTTP whitespace only (SP, HTAB: RFC 9110 §5.6.3); String.trim would also take a no-break space.
  const trimmed = header?.replace(/^[ \t]+|[ \t]+$/g, "") ?? "";
  if (trimmed === "") return { kind: "none" };
  const space = trimmed.search(/[ \t]/);
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== "basic") return { kind: "other-scheme" };
  if (space === -1) return { kind: "malformed" };
  const bytes = base64Decode(trimmed.slice(space).replace(/^[ \t]+/, ""));
  const text = bytes && utf8DecodeStrict(bytes);
  if (text === null || text === undefined) return { kind: "malformed" };
  const colon = text.indexOf(":");
  if (colon === -1) return { kind: "malformed" };
  const clientId = formDecode(text.slice(0, colon));
  const clientSecret = formDecode(text.slice(colon + 1));
  if (clientId === null || clientSecret === null) return { kind: "malformed" };
  return { kind: "basic", clientId, clientSecret };
}

/** `application/x-www-form-urlencoded`, any case, with or without parameters such as charset. */
export function isFormContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return contentType.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

/** A token request's parameters as `issueToken` (lib/issue-token.ts) takes them. */
export interface TokenRequest {
  grantType: string;
  scope: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The Authorization header could not be read as Basic credentials. */
  badAuthorization: boolean;
}

const PROTOCOL_PARAMS = ["grant_type", "scope", "client_id", "client_secret"] as const;

/**
 * The parameters of a token request from its form fields and its Authorization header:
 * each protocol parameter at most once, client credentials in one place only, and a
 * grant type present. Throws the 400 that names what is wrong (docs/api.md, "Order of checks").
 */
export function readTokenRequest(form: ReadonlyMap<string, string[]>, authorization: BasicCredentials): TokenRequest {
  const single: Partial<Record<(typeof PROTOCOL_PARAMS)[number], string>> = {};
  for (const name of PROTOCOL_PARAMS) {
    const values = form.get(name);
    if (values && values.length > 1) throw invalidParam(name, `The parameter '${name}' is given more than once.`);
    // An empty value counts as omitted (RFC 6749 §3.2).
    if (values && values[0] !== "") single[name] = values[0];
  }

  let clientId = single.client_id;
  let clientSecret = single.client_secret;
  if (authorization.kind !== "none") {
    if (single.client_secret !== undefined || (authorization.kind === "basic" && clientId !== undefined && clientId !== authorization.clientId)) {
      throw invalidRequest("Send client credentials either in the Authorization header or in the form body, not both.");
    }
    if (authorization.kind === "basic") {
      clientId = authorization.clientId;
      clientSecret = authorization.clientSecret;
    }
  }
  if (single.grant_type === undefined) throw invalidParam("grant_type", "The parameter 'grant_type' is required: use client_credentials.");
  return {
    grantType: single.grant_type,
    scope: single.scope,
    clientId,
    clientSecret,
    badAuthorization: authorization.kind === "other-scheme" || authorization.kind === "malformed",
  };
}
