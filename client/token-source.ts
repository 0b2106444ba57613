/**
 * Access tokens, obtained once and shared: one token serves every call until shortly before
 * it expires (docs/api.md, "Using a token": reuse, don't request one per call; the API
 * allows 10 token requests a minute), and however many calls need a new one at the same
 * moment, one token request is in flight (single-flight), and they all get its answer.
 * A caller that aborts stops waiting for it; the request goes on for the others, within
 * the client's own timeout, never one caller's.
 */
import { untilAborted } from "./call-scope.ts";
import { errorFromResponse } from "./errors.ts";
import type { CallScope, Transport } from "./transport.ts";

/** Renew this long before `expires_in` runs out, so a token never expires in flight. */
export const EXPIRY_MARGIN_MS = 60_000;

export interface TokenSource {
  /** A live token: the current one, or a new one when it is near expiry. */
  token(signal?: AbortSignal): Promise<string>;
  /**
   * A token other than `rejected`, which the API answered with 401: a new one, unless
   * another call already replaced it (then that one, with no second request).
   */
  renew(rejected: string, signal?: AbortSignal): Promise<string>;
}

/**
 * The client credentials as an HTTP Basic header, RFC 6749 §2.3.1: each of id and secret
 * form-url-encoded first (application/x-www-form-urlencoded), then joined with `:` and
 * base64-encoded. The encoded text is ASCII, so btoa is safe on every runtime.
 */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams([["", value]]).toString().slice(1);
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

interface Held {
  value: string;
  renewAt: number;
}

export function createTokenSource(options: {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  transport: Transport;
  now: () => number;
  /** Runs the token request within its own scope (the client's timeout); none by default. */
  within?: <T>(work: (call: CallScope) => Promise<T>) => Promise<T>;
}): TokenSource {
  const { transport, now } = options;
  const within = options.within ?? ((work) => work({}));
  let held: Held | null = null;
  let inFlight: Promise<Held> | null = null;

  const request = () => within((call) => requestWithin(call));

  async function requestWithin(call: CallScope): Promise<Held> {
    // Counted from before the request: the server's hour started no later than this.
    const askedAt = now();
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (options.scope !== undefined && options.scope !== "") form.set("scope", options.scope);
    const res = await transport.send(
      options.tokenUrl,
      {
        method: "POST",
        headers: {
          Authorization: basicAuthorization(options.clientId, options.clientSecret),
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
        body: form.toString(),
      },
      call,
    );
    if (!res.ok) throw await errorFromResponse(res);
    const body = (await res.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== "string" || body.access_token === "") {
      throw new Error("The token endpoint answered 200 without an access_token.");
    }
    const lifetimeMs = (typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    // A short-lived token is renewed half-way through rather than at once.
    return { value: body.access_token, renewAt: askedAt + lifetimeMs - Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 2) };
  }

  function refresh(): Promise<string> {
    inFlight ??= request()
      .then((fresh) => (held = fresh))
      .finally(() => {
        inFlight = null;
      });
    return inFlight.then((h) => h.value);
  }

  return {
    token(signal) {
      if (held !== null && now() < held.renewAt) return Promise.resolve(held.value);
      return untilAborted(refresh(), signal);
    },
    renew(rejected, signal) {
      if (held !== null && held.value !== rejected && now() < held.renewAt) return Promise.resolve(held.value);
      if (held?.value === rejected) held = null;
      return untilAborted(refresh(), signal);
    },
  };
}
