/**
 * A scripted stand-in for the API, for the client's unit tests: it counts token requests,
 * records every data request (and the fetch's signal and User-Agent), and answers data
 * requests with whatever the test's `respond` returns, which may fail on purpose: a
 * rejected fetch for a network error, a 502, or a request that hangs until it is aborted
 * (`hang`). Time is a fake clock with fake timers: `sleep` registers a timer, and once
 * nothing else can run (a macrotask later), the earliest timer fires and the clock jumps
 * to it. So retry waits and timeouts run in order, on the fake clock, and no test ever
 * waits in real time.
 */
import { aLeaveBookingJson, anEmployeeJson } from "../testing/record-builders.ts";

export interface DataCall {
  url: URL;
  token: string | null;
  userAgent: string | null;
  signal: AbortSignal | undefined;
}

export interface FakeApi {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  advance: (ms: number) => void;
  /** Waits that ran to their end, in order (a wait cut short by its signal is not here). */
  slept: number[];
  /** Waits begun and not over yet. */
  pendingTimers: () => number;
  tokenRequests: { authorization: string | null; body: string }[];
  dataCalls: DataCall[];
  /** Tokens issued so far, in order (`tok1`, `tok2`, …). */
  issued: string[];
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

export function fakeApi(options: {
  respond: (call: DataCall, api: FakeApi) => Response | Promise<Response>;
  /** Answers a token request instead of issuing one (return undefined to issue). */
  tokenResponse?: (n: number) => Response | undefined;
  /** Resolves before each token is issued: lets a test hold token requests open. */
  tokenGate?: () => Promise<void>;
  start?: number;
}): FakeApi {
  let t = options.start ?? Date.parse("2026-05-01T08:00:00.000Z");
  const timers: { at: number; ms: number; fire: () => void }[] = [];
  let ticking = false;
  // Fires the earliest timer once every promise that could run has run.
  const tick = () => {
    if (ticking) return;
    ticking = true;
    setImmediate(() => {
      ticking = false;
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      if (!next) return;
      t = Math.max(t, next.at);
      next.fire();
      if (timers.length > 0) tick();
    });
  };
  const api: FakeApi = {
    now: () => t,
    advance: (ms) => void (t += ms),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = {
          at: t + ms,
          ms,
          fire: () => {
            signal?.removeEventListener("abort", onAbort);
            api.slept.push(ms);
            resolve();
          },
        };
        const onAbort = () => {
          timers.splice(timers.indexOf(timer), 1);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        timers.push(timer);
        tick();
      }),
    pendingTimers: () => timers.length,
    slept: [],
    tokenRequests: [],
    dataCalls: [],
    issued: [],
    async fetch(input, init = {}) {
      const url = new URL(input);
      const headers = new Headers(init.headers);
      if (url.pathname === "/v1/oauth/token") {
        api.tokenRequests.push({ authorization: headers.get("authorization"), body: String(init.body) });
        const scripted = options.tokenResponse?.(api.tokenRequests.length);
        if (scripted) return scripted;
        await options.tokenGate?.();
        const token = `tok${api.issued.length + 1}`;
        api.issued.push(token);
        return json(200, { access_token: token, token_type: "Bearer", expires_in: 3600, scope: "employees:read holidays:read leave:read" });
      }
      const call: DataCall = {
        url,
        token: headers.get("authorization")?.replace(/^Bearer /, "") ?? null,
        userAgent: headers.get("user-agent"),
        signal: init.signal ?? undefined,
      };
      api.dataCalls.push(call);
      return options.respond(call, api);
    },
  };
  return api;
}

/** A request that never answers: it rejects with the signal's reason once the fetch is aborted, as fetch does. */
export function hang(call: DataCall): Promise<Response> {
  return new Promise((_resolve, reject) => {
    if (call.signal?.aborted) return reject(call.signal.reason);
    call.signal?.addEventListener("abort", () => reject(call.signal?.reason), { once: true });
  });
}

/** What fetch throws when no answer came (Node and Bun throw a TypeError). */
export const refused = (): Promise<Response> => Promise.reject(new TypeError("fetch failed: connection refused"));

/** A minimal employee record with the given id and updated_at. */
export function employeeRecord(id: string, updatedAt: string) {
  return anEmployeeJson({ id, job_title: null, department: null, start_date: null, holiday_calendar: null, updated_at: updatedAt });
}

/** A minimal booking record. */
export function bookingRecord(id: string, startDate: string, endDate: string, updatedAt = "2026-05-01T08:00:00.000Z") {
  return aLeaveBookingJson({
    id,
    employee_id: "00000000-0000-4000-8000-000000000001",
    leave_type: { id: "00000000-0000-4000-8000-0000000000aa", name: "Annual leave", category: "annual", is_paid: true },
    start_date: startDate,
    end_date: endDate,
    days: 1,
    requested_at: null,
    updated_at: updatedAt,
  });
}
