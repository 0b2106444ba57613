/**
 * One POST of a signed event to a receiver (docs/api.md, "Change notifications"): 10 s for
 * the whole exchange, redirects not followed, at most 4 KiB of the answer read (kept for
 * `webhooks list`'s last error), whatever the receiver does. Never throws.
 */
import { ANSWER_READ_BYTES, DELIVERY_TIMEOUT_MS } from "../../lib/webhooks.ts";

export interface DeliveryResult {
  ok: boolean;
  /** The receiver's status; null when none came (refused, timed out, unreachable). */
  status: number | null;
  /** What went wrong, for `webhooks list` and the log: never the secret or the signature. */
  error: string | null;
  ms: number;
}

/** The first `max` bytes of a body, then the stream is cancelled: a huge answer costs no more. */
async function readSome(body: ReadableStream<Uint8Array> | null, max: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.subarray(0, max - size));
      size += Math.min(value.length, max - size);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(all);
}

/** A short, printable excerpt of an answer for the last error. */
const excerpt = (text: string) =>
  [...text]
    .map((c) => (c < " " || c === "\x7f" ? " " : c))
    .join("")
    .replace(/ {2,}/g, " ")
    .trim()
    .slice(0, 200);

export async function postEvent(url: string, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<DeliveryResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const done = (ok: boolean, status: number | null, error: string | null): DeliveryResult => ({
    ok,
    status,
    error,
    ms: Math.round(performance.now() - started),
  });
  try {
    const response = await fetch(url, { method: "POST", headers: { ...headers, "user-agent": "leaveapi-webhooks" }, body, redirect: "manual", signal });
    const answer = await readSome(response.body, ANSWER_READ_BYTES).catch(() => "");
    if (response.status >= 200 && response.status < 300) return done(true, response.status, null);
    if (response.status >= 300 && response.status < 400)
      return done(false, response.status, `HTTP ${response.status}: a redirect, which is not followed; give the endpoint's final URL`);
    return done(false, response.status, `HTTP ${response.status}${answer ? `: ${excerpt(answer)}` : ""}`);
  } catch (error) {
    if (signal.aborted) return done(false, null, `no answer within ${timeoutMs / 1000} s`);
    const message = error instanceof Error ? error.message : String(error);
    return done(false, null, `could not deliver: ${excerpt(message)}`);
  }
}
