/**
 * One call's lifetime: the caller's `signal` and the call's `timeout` joined into the one
 * signal every request, retry wait and body read of the call listens to. An abort ends the
 * call with the caller's reason (an `AbortError` unless they gave another); a timeout with
 * a `TimeoutError` DOMException, as `AbortSignal.timeout` gives. The timer is the
 * client's `sleep`, so tests run it on a fake clock.
 */
import type { CallScope, Sleep } from "./transport.ts";

export interface CallOptions {
  /** Ends the call (or the iteration) at once, with this signal's reason. */
  signal?: AbortSignal;
  /**
   * Milliseconds the call may take, retries and their waits included; on an iterator,
   * each page's request. `0` or `Infinity`: no limit. The client's `timeout` by default.
   */
  timeout?: number;
}

export function timeoutError(ms: number): DOMException {
  return new DOMException(`The call took longer than its timeout of ${ms} ms.`, "TimeoutError");
}

/** Runs `work` within the call's signal and deadline; an aborted call rejects with the abort's reason, whatever `work` threw. */
export async function withinCall<T>(
  options: CallOptions,
  clock: { sleep: Sleep; now: () => number; timeout: number },
  work: (scope: CallScope) => Promise<T>,
): Promise<T> {
  const caller = options.signal;
  caller?.throwIfAborted();
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller?.reason);
  caller?.addEventListener("abort", onAbort, { once: true });
  const timeout = options.timeout ?? clock.timeout;
  const limited = timeout > 0 && Number.isFinite(timeout);
  const timer = new AbortController();
  if (limited) {
    clock.sleep(timeout, timer.signal).then(
      () => controller.abort(timeoutError(timeout)),
      () => {},
    );
  }
  try {
    return await work({ signal: controller.signal, deadline: limited ? clock.now() + timeout : undefined });
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    timer.abort();
    caller?.removeEventListener("abort", onAbort);
  }
}

/** `promise`, or the signal's reason as soon as it aborts (the work behind `promise` goes on: others may share it). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
