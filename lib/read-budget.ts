/**
 * The data endpoints' budget per client (docs/api.md, "Rate limits"): a token
 * bucket of `burst` requests that refills at `perSecond`, so one client cannot monopolise
 * a server. Kept in the process, not the store: a store round trip (a write, on Postgres a
 * locked one) on every read would cost the read path as much as the read itself, so with
 * several instances each keeps its own budget and a client may spend it on each.
 *
 * Beyond it: 429 `too_many_requests` with `Retry-After` and the RateLimit headers of the
 * IETF draft (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Limit` (the burst),
 * `RateLimit-Remaining` (0), `RateLimit-Reset` (seconds until a request is allowed) and
 * `RateLimit-Policy` (`PER_SECOND;w=1;burst=BURST`).
 */
import { ApiError } from "./errors.ts";

export interface ReadBudgetOptions {
  /** Requests a second a client may sustain; 0 turns the budget off. */
  perSecond: number;
  /** Requests a client may make at once after a quiet while; by default twice `perSecond`. */
  burst?: number;
}

export const DEFAULT_READ_BUDGET: Required<ReadBudgetOptions> = { perSecond: 100, burst: 200 };

/** Clients remembered; past this many, those whose bucket is full again are forgotten. */
const REMEMBERED_CLIENTS = 10_000;

export interface ReadBudget {
  /** Spends one request of the client's budget at `now`, or throws the 429 to answer. */
  spend(clientId: string, now: number): void;
}

export function createReadBudget(options: ReadBudgetOptions = DEFAULT_READ_BUDGET): ReadBudget {
  const perSecond = options.perSecond;
  if (!(perSecond > 0)) return { spend: () => {} };
  const burst = Math.max(1, options.burst ?? 2 * perSecond);
  const perMs = perSecond / 1000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  const forgetFull = (now: number) => {
    for (const [id, b] of buckets) if (b.tokens + (now - b.at) * perMs >= burst) buckets.delete(id);
  };
  return {
    spend(clientId, now) {
      let bucket = buckets.get(clientId);
      if (!bucket) {
        if (buckets.size >= REMEMBERED_CLIENTS) forgetFull(now);
        bucket = { tokens: burst, at: now };
        buckets.set(clientId, bucket);
      }
      bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
      bucket.at = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new ApiError(
        429,
        "too_many_requests",
        `At most ${perSecond} requests a second per client (bursts of ${burst}); wait ${waitSeconds} s, and spread your requests out.`,
        {
          headers: {
            "Retry-After": String(waitSeconds),
            "RateLimit-Limit": String(burst),
            "RateLimit-Remaining": "0",
            "RateLimit-Reset": String(waitSeconds),
            "RateLimit-Policy": `${perSecond};w=1;burst=${burst}`,
          },
        },
      );
    },
  };
}
