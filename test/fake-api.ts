/**
 * A scripted stand-in for the API, for the client's unit tests: it counts token requests,
 * records every data request, and answers data requests with whatever the test's
 * `respond` returns. Time is a fake clock and sleeping only records the wait, so retry
 * tests never wait for real.
 */

export interface DataCall {
  url: URL;
  token: string | null;
}

export interface FakeApi {
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  advance: (ms: number) => void;
  /** Waits passed to sleep, in order. */
  slept: number[];
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
  const api: FakeApi = {
    now: () => t,
    advance: (ms) => void (t += ms),
    sleep: async (ms) => {
      api.slept.push(ms);
    },
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
      const call = { url, token: headers.get("authorization")?.replace(/^Bearer /, "") ?? null };
      api.dataCalls.push(call);
      return options.respond(call, api);
    },
  };
  return api;
}

/** A minimal employee record with the given id and updated_at. */
export function employeeRecord(id: string, updatedAt: string) {
  return {
    id,
    first_name: "Ada",
    last_name: "Lovelace",
    preferred_name: null,
    job_title: null,
    department: null,
    status: "active",
    start_date: null,
    leaving_date: null,
    holiday_calendar: null,
    updated_at: updatedAt,
  };
}

/** A minimal booking record. */
export function bookingRecord(id: string, startDate: string, endDate: string, updatedAt = "2026-05-01T08:00:00.000Z") {
  return {
    id,
    employee_id: "00000000-0000-4000-8000-000000000001",
    leave_type: { id: "00000000-0000-4000-8000-0000000000aa", name: "Annual leave", category: "annual", is_paid: true },
    start_date: startDate,
    end_date: endDate,
    start_half_day: false,
    start_half_period: null,
    end_half_day: false,
    end_half_period: null,
    days: 1,
    status: "approved" as const,
    requested_at: null,
    reviewed_at: null,
    cancelled_at: null,
    updated_at: updatedAt,
  };
}
