/**
 * readTokenRequest (lib/token-request.ts) on its own: what a token request's form fields
 * and Authorization header mean, before any client is looked at (docs/api.md, "POST
 * /v1/oauth/token" and "Order of checks").
 */
import { describe, expect, test } from "bun:test";
import { ApiError } from "../lib/errors.ts";
import { parseBasicAuthorization, parseForm, readTokenRequest } from "../lib/token-request.ts";

const ID = "svcc_0123456789abcdef01234567";
const basicOf = (id: string, secret: string) => parseBasicAuthorization(`Basic ${btoa(`${id}:${secret}`)}`);
const read = (body: string, authorization: string | null = null) => readTokenRequest(parseForm(body)!, parseBasicAuthorization(authorization));

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("readTokenRequest", () => {
  test("credentials from the form body", () => {
    expect(read(`grant_type=client_credentials&client_id=${ID}&client_secret=s&scope=leave%3Aread`)).toEqual({
      grantType: "client_credentials",
      scope: "leave:read",
      clientId: ID,
      clientSecret: "s",
      badAuthorization: false,
    });
  });

  test("credentials from HTTP Basic, with the same client_id in the body allowed", () => {
    const form = parseForm(`grant_type=client_credentials&client_id=${ID}`)!;
    expect(readTokenRequest(form, basicOf(ID, "secret"))).toMatchObject({ clientId: ID, clientSecret: "secret", badAuthorization: false });
  });

  test("an empty value counts as omitted (RFC 6749 §3.2)", () => {
    expect(read("grant_type=client_credentials&scope=&client_id=")).toMatchObject({ scope: undefined, clientId: undefined });
  });

  test.each(["grant_type", "scope", "client_id", "client_secret"])("%s given twice is a 400 naming it", (name) => {
    const error = refusal(() => read(`grant_type=client_credentials&${name}=a&${name}=b`));
    expect([error.status, error.code, error.param]).toEqual([400, "invalid_request", name]);
  });

  test("credentials in both places are a 400, whichever scheme the header names", () => {
    expect(refusal(() => readTokenRequest(parseForm("grant_type=client_credentials&client_secret=s")!, basicOf(ID, "s"))).status).toBe(400);
    expect(refusal(() => read("grant_type=client_credentials&client_secret=s", "Bearer abc")).status).toBe(400);
    expect(refusal(() => readTokenRequest(parseForm(`grant_type=client_credentials&client_id=svcc_other`)!, basicOf(ID, "s"))).status).toBe(400);
  });

  test("a header of another scheme or a malformed Basic one is marked, not trusted", () => {
    expect(read(`grant_type=client_credentials&client_id=${ID}`, "Bearer abc")).toMatchObject({ clientId: ID, badAuthorization: true });
    expect(read("grant_type=client_credentials", "Basic %%%")).toMatchObject({ clientId: undefined, badAuthorization: true });
  });

  test("grant_type is required, after the other checks", () => {
    expect(refusal(() => read(`client_id=${ID}`)).param).toBe("grant_type");
    expect(refusal(() => read("scope=a&scope=b")).param).toBe("scope");
  });
});
