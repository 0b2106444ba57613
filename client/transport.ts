/**
 * Sending one request with the waits the API asks for: a 429 or 503 is sent again after
 * its `Retry-After`, at most `maxRetries` times, and never after a wait longer than
 * `maxRetryDelayMs` (a longer ask fails at once rather than hanging the caller: the
 * error carries `retryAfter`, so the caller can schedule its own retry).
 */
import { errorFromResponse, networkError } from "./errors.ts";

/** The subset of `fetch` the client uses: Node 20, Bun and Deno's global fetch all fit. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RetryPolicy {
  /** Retries after a 429 or 503, per call. */
  maxRetries: number;
  /** The longest `Retry-After` the client waits out. */
  maxRetryDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxRetryDelayMs: 60_000 };

/** Used when a 429 or 503 names no wait. */
const FALLBACK_DELAY_MS = 1000;

export interface Transport {
  /**
   * Sends the request, waiting out 429 and 503 as the policy allows. Resolves to the
   * final response, successful or not, except a 429 or 503 that was not retried further:
   * that throws its LeaveApiError. A request that gets no answer throws `network_error`.
   */
  send(url: string, init: RequestInit): Promise<Response>;
}

/**
 * `Retry-After` in milliseconds: delta-seconds, or an HTTP date (RFC 9110 §10.2.3);
 * `undefined` when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function createTransport(options: { fetch: FetchLike; sleep: (ms: number) => Promise<void>; now: () => number; policy: RetryPolicy }): Transport {
  const { fetch, sleep, now, policy } = options;
  return {
    async send(url, init) {
      for (let attempt = 0; ; attempt++) {
        let res: Response;
        try {
          res = await fetch(url, init);
        } catch (error) {
          throw networkError(url, error);
        }
        if (res.status !== 429 && res.status !== 503) return res;
        const asked = retryAfterMs(res.headers.get("retry-after"), now());
        const delay = asked ?? FALLBACK_DELAY_MS;
        if (attempt >= policy.maxRetries || delay > policy.maxRetryDelayMs) {
          throw await errorFromResponse(res, asked === undefined ? undefined : Math.ceil(asked / 1000));
        }
        // Drain the body so the connection can be reused while we wait.
        await res.body?.cancel();
        await sleep(delay);
      }
    },
  };
}
