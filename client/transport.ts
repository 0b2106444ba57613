/**
 * Sending one request with the retries an idempotent read deserves: a request that got no
 * answer (a refused or reset connection, DNS, TLS), and a 429, 502, 503 or 504, is sent
 * again, at most `maxRetries` times. The wait is the answer's `Retry-After` when it names
 * one, else exponential backoff with full jitter (a random wait between 0 and
 * `baseDelayMs · 2^attempt`, capped at `maxBackoffMs`), so that many clients refused at
 * once do not come back at once. A wait longer than `maxRetryDelayMs`, or one that would
 * outlast the call's deadline, fails at once rather than hanging the caller: the error
 * carries `retryAfter`, so the caller can schedule its own retry. An abort (the caller's
 * signal, or the call's timeout) ends the call at once with the signal's reason.
 */
import { errorFromResponse, networkError } from "./errors.ts";

/** The subset of `fetch` the client uses: Node 20, Bun and Deno's global fetch all fit. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Waits `ms`; rejects with `signal.reason` as soon as the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryPolicy {
  /** Retries per call, after a network error, a 429, 502, 503 or 504. */
  maxRetries: number;
  /** The longest wait the client sits out (a `Retry-After`, or backoff). */
  maxRetryDelayMs: number;
  /** The first backoff's upper bound; each retry doubles it. */
  baseDelayMs: number;
  /** The bound doubling stops at. */
  maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxRetryDelayMs: 60_000, baseDelayMs: 500, maxBackoffMs: 20_000 };

/** The statuses worth sending a read again for: the server or a proxy asked for patience. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

/** What one call hands the transport: its signal, and when it must be done by (`now()` time). */
export interface CallScope {
  signal?: AbortSignal;
  deadline?: number;
}

export interface Transport {
  /**
   * Sends the request, retrying as the policy allows. Resolves to the final response,
   * successful or not, except a retried status that was not retried further: that throws
   * its LeaveApiError. A request that never got an answer throws `network_error`; an
   * aborted one throws the signal's reason.
   */
  send(url: string, init: RequestInit, scope?: CallScope): Promise<Response>;
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

/** Full jitter (the AWS Architecture Blog's name): uniform in [0, min(cap, base · 2^attempt)). */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  return Math.floor(random() * Math.min(policy.maxBackoffMs, policy.baseDelayMs * 2 ** attempt));
}

/** A sleep on the runtime's timers, cut short by the signal. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export function createTransport(options: {
  fetch: FetchLike;
  sleep: Sleep;
  now: () => number;
  random: () => number;
  policy: RetryPolicy;
  userAgent: string;
}): Transport {
  const { fetch, sleep, now, random, policy, userAgent } = options;
  return {
    async send(url, init, scope = {}) {
      const { signal, deadline = Number.POSITIVE_INFINITY } = scope;
      const headers = new Headers(init.headers);
      headers.set("User-Agent", userAgent);
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        let res: Response;
        try {
          res = await fetch(url, { ...init, headers, signal });
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          const delay = backoffMs(policy, attempt, random);
          if (attempt >= policy.maxRetries || now() + delay > deadline) throw networkError(url, error);
          await sleep(delay, signal);
          continue;
        }
        if (!RETRIED_STATUSES.has(res.status)) return res;
        const asked = retryAfterMs(res.headers.get("retry-after"), now());
        const delay = asked ?? backoffMs(policy, attempt, random);
        if (attempt >= policy.maxRetries || delay > policy.maxRetryDelayMs || now() + delay > deadline) {
          throw await errorFromResponse(res, asked === undefined ? undefined : Math.ceil(asked / 1000));
        }
        // Drain the body so the connection can be reused while we wait.
        await res.body?.cancel();
        await sleep(delay, signal);
      }
    },
  };
}
