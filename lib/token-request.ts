/**
 * Reading a token request (RFC 6749 §2.3.1, §3.2, §4.4): the form body and the HTTP Basic
 * header, strictly. Pure functions; the flow that uses them is in the token endpoint.
 */
import { base64Decode, formDecode, utf8DecodeStrict } from "./encoding.ts";

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

export type BasicCredentials =
  | { kind: "none" }
  | { kind: "other-scheme" }
  | { kind: "malformed" }
  | { kind: "basic"; clientId: string; clientSecret: string };

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
