/**
 * The client (`leaveapi/client`) against a fake API that fails on purpose (test/fake-api.ts):
 * which failures are retried and how often, the backoff's bounds (full jitter, on an
 * injected random), Retry-After over backoff, the timeout, an abort before, during a retry
 * wait and mid-iteration (the caller's reason, never a LeaveApiError), page(), and the
 * User-Agent. Every wait runs on the fake clock.
 */
import { describe, expect, test } from "bun:test";
import packageJson from "../package.json" with { type: "json" };
import { CLIENT_VERSION, DEFAULT_TIMEOUT_MS, LeaveApiError, createClient } from "../client/index.ts";
import { DEFAULT_RETRY_POLICY, backoffMs } from "../client/transport.ts";
import { employeeRecord, fakeApi, hang, json, refused, type DataCall, type FakeApi } from "./fake-api.ts";

const EMPLOYEE_ID = "11111111-1111-4111-8111-111111111111";
const CREDENTIALS = { baseUrl: "https://leave.example", clientId: "svcc_000000000000000000000001", clientSecret: "svcs_secret" };

function clientFor(api: FakeApi, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({ ...CREDENTIALS, fetch: api.fetch, now: api.now, sleep: api.sleep, random: () => 0.5, ...extra });
}

const oneEmployee = () => json(200, { data: employeeRecord(EMPLOYEE_ID, "2026-05-01T08:00:00.000Z") });
const failing = (status: number, headers: Record<string, string> = {}) =>
  json(status, { error: "temporarily_unavailable", error_description: "Later." }, headers);

/** Answers with each of `answers` in turn, then with `then` for ever. */
function inTurn(answers: ((call: DataCall) => Response | Promise<Response>)[], then: (call: DataCall) => Response | Promise<Response> = oneEmployee) {
  let n = 0;
  return (call: DataCall) => (answers[n++] ?? then)(call);
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );

describe("what is retried", () => {
  test("network errors, 429, 502, 503 and 504 are retried; the call then succeeds", async () => {
    const api = fakeApi({ respond: inTurn([refused, () => failing(502), () => failing(504)]) });
    expect((await clientFor(api).getEmployee(EMPLOYEE_ID)).id).toBe(EMPLOYEE_ID);
    expect(api.dataCalls).toHaveLength(4);
    const api2 = fakeApi({ respond: inTurn([() => failing(429), () => failing(503)]) });
    expect((await clientFor(api2).getEmployee(EMPLOYEE_ID)).id).toBe(EMPLOYEE_ID);
    expect(api2.dataCalls).toHaveLength(3);
  });

  test("a 500, a 400 or a 404 is not retried", async () => {
    for (const status of [500, 400, 404]) {
      const api = fakeApi({ respond: () => json(status, { error: "x", error_description: "No." }) });
      expect(await failure(clientFor(api).getEmployee(EMPLOYEE_ID))).toMatchObject({ status });
      expect(api.dataCalls).toHaveLength(1);
      expect(api.slept).toEqual([]);
    }
  });

  test("at most maxRetries times, then the last failure as a LeaveApiError", async () => {
    const api = fakeApi({ respond: refused });
    const error = await failure(clientFor(api).getEmployee(EMPLOYEE_ID));
    expect(error).toBeInstanceOf(LeaveApiError);
    expect(error).toMatchObject({ status: 0, error: "network_error" });
    expect(api.dataCalls).toHaveLength(1 + DEFAULT_RETRY_POLICY.maxRetries);
    const bounded = fakeApi({ respond: () => failing(502) });
    expect(await failure(clientFor(bounded, { retry: { maxRetries: 1 } }).getEmployee(EMPLOYEE_ID))).toMatchObject({ status: 502 });
    expect(bounded.dataCalls).toHaveLength(2);
  });

  test("the token request is retried the same way", async () => {
    const api = fakeApi({
      respond: oneEmployee,
      tokenResponse: (n) => (n === 1 ? failing(502) : n === 2 ? failing(503, { "Retry-After": "4" }) : undefined),
    });
    await clientFor(api).getEmployee(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(3);
    expect(api.slept).toEqual([250, 4000]);
  });
});

describe("how long it waits", () => {
  test("without Retry-After: exponential backoff with full jitter, random × min(cap, base · 2^attempt)", async () => {
    for (const [random, expected] of [
      [0, [0, 0, 0]],
      [0.5, [250, 500, 1000]],
      [0.999, [499, 999, 1998]],
    ] as const) {
      const api = fakeApi({ respond: inTurn([() => failing(503), refused, () => failing(429)]) });
      await clientFor(api, { random: () => random }).getEmployee(EMPLOYEE_ID);
      expect(api.slept).toEqual([...expected]);
    }
  });

  test("the backoff's bound stops doubling at maxBackoffMs", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxBackoffMs: 5000 };
    expect([0, 1, 2, 3, 4, 10].map((attempt) => backoffMs(policy, attempt, () => 0.9999))).toEqual([999, 1999, 3999, 4999, 4999, 4999]);
  });

  test("Retry-After wins over backoff, in seconds or as an HTTP date", async () => {
    const api = fakeApi({
      respond: inTurn([
        () => failing(503, { "Retry-After": "7" }),
        () => failing(429, { "Retry-After": new Date(api.now() + 3000).toUTCString() }),
        () => failing(502),
      ]),
    });
    await clientFor(api).getEmployee(EMPLOYEE_ID);
    expect(api.slept[0]).toBe(7000);
    expect(api.slept[1]).toBeGreaterThan(2000);
    expect(api.slept[1]).toBeLessThanOrEqual(3000);
    expect(api.slept[2]).toBe(1000); // backoff again: attempt 2, random 0.5
  });

  test("a wait that would outlast the call's timeout fails at once, naming the wait", async () => {
    const api = fakeApi({ respond: () => failing(503, { "Retry-After": "30" }) });
    const error = await failure(clientFor(api).getEmployee(EMPLOYEE_ID, { timeout: 20_000 }));
    expect(error).toBeInstanceOf(LeaveApiError);
    expect(error).toMatchObject({ status: 503, retryAfter: 30 });
    expect(api.slept).toEqual([]);
    expect(api.pendingTimers()).toBe(0);
  });
});

describe("timeout", () => {
  test("a request that never answers ends with a TimeoutError after exactly the timeout, on the fake clock", async () => {
    const api = fakeApi({ respond: hang });
    const started = api.now();
    const error = (await failure(clientFor(api).getEmployee(EMPLOYEE_ID, { timeout: 5000 }))) as DOMException;
    expect(error).not.toBeInstanceOf(LeaveApiError);
    expect([error.name, error.message]).toEqual(["TimeoutError", "The call took longer than its timeout of 5000 ms."]);
    expect(api.now() - started).toBe(5000);
    expect(api.dataCalls[0]!.signal?.aborted).toBe(true);
    expect(api.dataCalls).toHaveLength(1);
  });

  test("the client's timeout applies when the call names none; retries and their waits count", async () => {
    const api = fakeApi({ respond: inTurn([() => failing(503, { "Retry-After": "2" })], hang) });
    const error = await failure(clientFor(api, { timeout: 10_000 }).getEmployee(EMPLOYEE_ID));
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(api.slept).toEqual([2000, 10_000]);
    expect(DEFAULT_TIMEOUT_MS).toBe(120_000);
  });

  test("timeout 0 means none; a call that finishes leaves no timer behind", async () => {
    const api = fakeApi({ respond: oneEmployee });
    await clientFor(api, { timeout: 0 }).getEmployee(EMPLOYEE_ID);
    await clientFor(api).getEmployee(EMPLOYEE_ID, { timeout: 1000 });
    expect(api.pendingTimers()).toBe(0);
    expect(api.slept).toEqual([]);
  });

  test("on an iterator, each page's request has the timeout", async () => {
    let n = 0;
    const api = fakeApi({
      respond: (call) => {
        n++;
        if (n === 1) return json(200, { has_more: true, next_cursor: "c1", data: [employeeRecord(EMPLOYEE_ID, "2026-05-01T08:00:00.000Z")] });
        return hang(call);
      },
    });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const e of clientFor(api).employees({}, { timeout: 3000 })) seen.push(e.id);
      })(),
    );
    expect(seen).toEqual([EMPLOYEE_ID]);
    expect((error as DOMException).name).toBe("TimeoutError");
  });
});

describe("abort", () => {
  test("an already aborted signal sends nothing and rejects with its reason", async () => {
    const api = fakeApi({ respond: oneEmployee });
    const controller = new AbortController();
    controller.abort();
    const error = await failure(clientFor(api).getEmployee(EMPLOYEE_ID, { signal: controller.signal }));
    expect(error).toBe(controller.signal.reason);
    expect((error as DOMException).name).toBe("AbortError");
    expect([api.tokenRequests.length, api.dataCalls.length]).toEqual([0, 0]);
  });

  test("mid-request: the fetch is aborted and the caller's own reason comes back, not network_error", async () => {
    const api = fakeApi({ respond: hang });
    const controller = new AbortController();
    const reason = new Error("the user closed the page");
    const pending = failure(clientFor(api).getEmployee(EMPLOYEE_ID, { signal: controller.signal }));
    void api.sleep(1000).then(() => controller.abort(reason));
    expect(await pending).toBe(reason);
    expect(api.dataCalls[0]!.signal?.aborted).toBe(true);
  });

  test("mid-retry: a wait for Retry-After is cut short, nothing more is sent, no timer is left", async () => {
    const api = fakeApi({ respond: () => failing(503, { "Retry-After": "10" }) });
    const controller = new AbortController();
    const pending = failure(clientFor(api).getEmployee(EMPLOYEE_ID, { signal: controller.signal }));
    // On the fake clock, 5 s into the 10 s wait.
    void api.sleep(5000).then(() => controller.abort());
    const error = (await pending) as DOMException;
    expect(error).toBe(controller.signal.reason);
    expect(error.name).toBe("AbortError");
    expect(api.dataCalls).toHaveLength(1);
    expect(api.slept).toEqual([5000]);
    expect(api.pendingTimers()).toBe(0);
  });

  test("mid-iteration: the next record is the abort, and no further page is asked for", async () => {
    const records = Array.from({ length: 4 }, (_, i) => employeeRecord(`00000000-0000-4000-8000-00000000000${i}`, "2026-05-01T08:00:00.000Z"));
    const api = fakeApi({
      respond: ({ url }) => {
        const at = Number(url.searchParams.get("cursor") ?? "0");
        return json(200, { has_more: at + 2 < records.length, next_cursor: at + 2 < records.length ? String(at + 2) : null, data: records.slice(at, at + 2) });
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const e of clientFor(api).employees({ limit: 2 }, { signal: controller.signal })) {
          seen.push(e.id);
          controller.abort();
        }
      })(),
    );
    expect((error as DOMException).name).toBe("AbortError");
    expect(seen).toEqual([records[0]!.id]);
    expect(api.dataCalls).toHaveLength(1);
  });

  test("sync(): the call's signal reaches every request, and an abort mid-sync is the caller's reason", async () => {
    const api = fakeApi({ respond: hang });
    const controller = new AbortController();
    const reason = new Error("the job was cancelled");
    const pending = failure(clientFor(api).sync({ resources: ["employees"] }, { signal: controller.signal }));
    void api.sleep(1000).then(() => controller.abort(reason));
    expect(await pending).toBe(reason);
    expect(api.dataCalls).toHaveLength(1);
    expect(api.dataCalls[0]!.signal?.aborted).toBe(true);
  });

  test("sync() and deletions(): the call's timeout bounds each page's request", async () => {
    const api = fakeApi({ respond: hang });
    const started = api.now();
    const error = await failure(clientFor(api).sync({ resources: ["employees"] }, { timeout: 2000 }));
    expect((error as DOMException).name).toBe("TimeoutError");
    expect(api.now() - started).toBe(2000);
    const error2 = await failure(
      (async () => {
        for await (const _ of clientFor(api).deletions({ resource: "employees", updatedSince: "2026-01-01T00:00:00Z" }, { timeout: 1000 })) break;
      })(),
    );
    expect((error2 as DOMException).name).toBe("TimeoutError");
  });

  test("a caller that gives up on the shared token request leaves it to the others", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const api = fakeApi({ respond: oneEmployee, tokenGate: () => gate });
    const client = clientFor(api);
    const controller = new AbortController();
    const quitter = failure(client.getEmployee(EMPLOYEE_ID, { signal: controller.signal }));
    const stayer = client.getEmployee(EMPLOYEE_ID);
    controller.abort();
    expect(((await quitter) as DOMException).name).toBe("AbortError");
    open();
    expect((await stayer).id).toBe(EMPLOYEE_ID);
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.dataCalls).toHaveLength(1);
  });
});

describe("page()", () => {
  test("reads one page of employees at a time; the caller passes next_cursor back", async () => {
    const api = fakeApi({
      respond: ({ url }) =>
        url.searchParams.get("cursor") === "c1"
          ? json(200, { has_more: false, next_cursor: null, data: [employeeRecord("e2", "2026-05-01T08:00:01.000Z")] })
          : json(200, { has_more: true, next_cursor: "c1", data: [employeeRecord("e1", "2026-05-01T08:00:00.000Z")] }),
    });
    const client = clientFor(api);
    const first = await client.page("employees", { status: "active", limit: 1 });
    expect([first.has_more, first.next_cursor, first.data.map((e) => e.id)]).toEqual([true, "c1", ["e1"]]);
    const second = await client.page("employees", { status: "active", limit: 1, cursor: first.next_cursor! });
    expect([second.has_more, second.next_cursor, second.data.map((e) => e.id)]).toEqual([false, null, ["e2"]]);
    expect(api.dataCalls.map((c) => c.url.search)).toEqual(["?status=active&limit=1", "?status=active&limit=1&cursor=c1"]);
  });

  test("reads one page of leave with the range as given, and takes signal and timeout", async () => {
    const api = fakeApi({ respond: () => json(200, { has_more: false, next_cursor: null, data: [] }) });
    const page = await clientFor(api).page("leave-requests", { from: "2026-01-01", to: "2026-12-31", employeeId: EMPLOYEE_ID }, { timeout: 1000 });
    expect(page).toEqual({ has_more: false, next_cursor: null, data: [] });
    expect(api.dataCalls[0]!.url.pathname + api.dataCalls[0]!.url.search).toBe(`/v1/leave-requests?from=2026-01-01&to=2026-12-31&employee_id=${EMPLOYEE_ID}`);
    const controller = new AbortController();
    controller.abort();
    expect(((await failure(clientFor(api).page("employees", {}, { signal: controller.signal }))) as DOMException).name).toBe("AbortError");
    expect(() => clientFor(api).page("holidays" as "employees")).toThrow(TypeError);
  });
});

describe("User-Agent", () => {
  test("names the client and its version on token and data requests, after the application's own token", async () => {
    expect(CLIENT_VERSION).toBe(packageJson.version);
    const api = fakeApi({ respond: oneEmployee });
    const seen: (string | null)[] = [];
    const fetch: typeof api.fetch = (input, init) => {
      seen.push(new Headers(init?.headers).get("user-agent"));
      return api.fetch(input, init);
    };
    await clientFor(api, { fetch }).getEmployee(EMPLOYEE_ID);
    await clientFor(api, { fetch, userAgent: "hr-sync/2.1" }).getEmployee(EMPLOYEE_ID);
    expect(seen).toEqual([
      `leaveapi-client/${CLIENT_VERSION}`,
      `leaveapi-client/${CLIENT_VERSION}`,
      `hr-sync/2.1 leaveapi-client/${CLIENT_VERSION}`,
      `hr-sync/2.1 leaveapi-client/${CLIENT_VERSION}`,
    ]);
  });
});
