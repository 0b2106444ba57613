/**
 * Helpers shared by the token-endpoint, bearer and rate-limit tests: raw token requests
 * (any body, content type, header or address), the credential encoding real clients use,
 * and the one assertion every error answer must pass.
 */
import { expect } from "bun:test";
import type { TestClient, TestWorld } from "./support.ts";

export const FORM = "application/x-www-form-urlencoded";
export const BASIC_CHALLENGE = 'Basic realm="leaveapi"';
export const BEARER_CHALLENGE = 'Bearer realm="leaveapi"';

/**
 * application/x-www-form-urlencoded as oauth4webapi and openid-client write it for
 * client_secret_basic: encodeURIComponent, then `-_.!~*'()` escaped too and space as `+`.
 */
export function clientFormEncode(text: string): string {
  return encodeURIComponent(text).replace(/[-_.!~*'()]|%20/g, (s) => (s === "%20" ? "+" : `%${s.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`));
}

/** `Basic base64(id:secret)` with both halves sent exactly as given (no encoding). */
export function rawBasic(userPass: string, scheme = "Basic"): string {
  return `${scheme} ${btoa(userPass)}`;
}

/** A Basic header encoded as openid-client's `ClientSecretBasic` sends it. */
export function clientBasic(client: TestClient): string {
  return rawBasic(`${clientFormEncode(client.clientId)}:${clientFormEncode(client.clientSecret)}`);
}

export interface TokenPost {
  /** The raw body, or fields to form-encode; `grant_type=client_credentials` is not added. */
  body?: string | Record<string, string> | Uint8Array<ArrayBuffer> | FormData;
  /** `null` sends no Authorization header. */
  authorization?: string | null;
  /** `null` sends no Content-Type (a Uint8Array body then carries none). */
  contentType?: string | null;
  method?: string;
  query?: string;
  remoteAddress?: string;
  headers?: Record<string, string>;
}

/** Any request to the token endpoint, built exactly as described (nothing added behind the test's back). */
export function postToken(world: TestWorld, request: TokenPost = {}): Promise<Response> {
  const headers = new Headers(request.headers);
  if (request.contentType !== null && !(request.body instanceof FormData)) headers.set("Content-Type", request.contentType ?? FORM);
  if (request.authorization) headers.set("Authorization", request.authorization);
  const body =
    request.body === undefined || typeof request.body === "string" || request.body instanceof Uint8Array || request.body instanceof FormData
      ? request.body
      : new URLSearchParams(request.body).toString();
  return world.call(`/v1/oauth/token${request.query ?? ""}`, {
    method: request.method ?? "POST",
    headers,
    body,
    remoteAddress: request.remoteAddress,
  });
}

/** A well-formed client-credentials request with Basic credentials, plus any extra fields. */
export function grantWithBasic(world: TestWorld, client: TestClient, fields: Record<string, string> = {}, remoteAddress?: string) {
  return postToken(world, {
    authorization: clientBasic(client),
    body: { grant_type: "client_credentials", ...fields },
    remoteAddress,
  });
}

export interface ErrorExpectation {
  param?: string;
  /** The exact WWW-Authenticate value, or `null` for none (the default). */
  challenge?: string | null;
}

/**
 * Asserts an error answer: status, JSON body of exactly {error, error_description[, param]},
 * a description of RFC 6749 §5.2's characters (no `"`, `\`, newline, so no stack trace),
 * no-store caching and the expected challenge (or none). Returns the body.
 */
export async function expectError(res: Response, status: number, code: string, expected: ErrorExpectation = {}) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("www-authenticate")).toBe(expected.challenge ?? null);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.error).toBe(code);
  expect(body.error_description).toMatch(/^[\x20\x21\x23-\x5B\x5D-\x7E]+$/);
  const keys = expected.param === undefined ? ["error", "error_description"] : ["error", "error_description", "param"];
  expect(Object.keys(body).sort()).toEqual(keys);
  if (expected.param !== undefined) expect(body.param).toBe(expected.param);
  return body;
}

/** Asserts a successful token answer and returns its body. */
export async function expectToken(res: Response, scope: string) {
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
  expect(body.access_token).toMatch(/^svct_[A-Za-z0-9_-]{43}$/);
  expect(body.token_type).toBe("Bearer");
  expect(body.expires_in).toBe(3600);
  expect(body.scope).toBe(scope);
  return body as { access_token: string; token_type: string; expires_in: number; scope: string };
}

export const ALL = "employees:read holidays:read leave:read";
