/**
 * What the handler does with a Host or target that makes no URL, and with credentials
 * however they are spelled in one (issue 12): an answer every time, never an exception,
 * and nothing token-shaped in the log. Handler-level, on the memory store: these checks
 * come before any store is asked. The same requests over a real socket are in
 * test/fuzz-socket.e2e.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { createHandler, type RequestLogEntry } from "../server/handler.ts";
import { isValidHost } from "../server/request-target.ts";
import { holdsSecretMarker, redactSecrets } from "../lib/url-credentials.ts";

const TOKEN = `svct_${"A".repeat(43)}`;

function handlerWithLog() {
  const entries: RequestLogEntry[] = [];
  const handler = createHandler({ store: createMemoryStore(), log: (entry) => entries.push(entry) });
  return { handler, entries };
}

/** A Request whose `url` is what Bun.serve hands over for some bad Hosts: the bare path, which no URL parser takes. */
class RelativeUrlRequest extends Request {
  readonly #target: string;
  constructor(target: string, init?: RequestInit) {
    super(`http://placeholder${target}`, init);
    this.#target = target;
  }
  override get url(): string {
    return this.#target;
  }
}

async function expectUsualBadRequest(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  expect(await res.json()).toMatchObject({ error: "invalid_request" });
}

describe("isValidHost (RFC 9110 §7.2, RFC 3986 §3.2.2)", () => {
  test("takes a host name, IPv4 address or IP literal with an optional port of 0-65535", () => {
    for (const host of [
      "x",
      "api.example.test",
      "x:80",
      "x:",
      "x:0",
      "x:65535",
      "x:00080",
      "1.2.3.4:5",
      "[::1]",
      "[::1]:8080",
      "a_b",
      "xn--bcher-kva",
      "a%41b",
      "a,b",
    ]) {
      expect({ host, valid: isValidHost(host) }).toEqual({ host, valid: true });
    }
  });

  test("refuses userinfo, spaces, paths, an empty host, a port out of range, broken brackets and a second Host", () => {
    for (const host of [
      "",
      "a b",
      "user@x",
      "a:99999",
      "x:65536",
      "x:-1",
      "x:8o",
      ":80",
      "[::1",
      "::1",
      "[::1]x",
      "%zz",
      "a/b",
      "a?b",
      "a#b",
      "a\\b",
      "a, b",
      "bücher",
      "x:80:80",
      "a%20b",
      "[::g]",
    ]) {
      expect({ host, valid: isValidHost(host) }).toEqual({ host, valid: false });
    }
  });
});

describe("a Host or target that makes no URL", () => {
  test("is answered 400 invalid_request with the usual headers, for every malformed Host the issue names", async () => {
    const { handler, entries } = handlerWithLog();
    for (const host of ["a b", "user@x", "a:99999", "[::1", "%zz", "", "a, b", "a%20b"]) {
      const res = await handler(
        new Request(`http://x/v1/employees?client_secret=svcs_${"s".repeat(43)}`, { headers: { Host: host, "X-Request-Id": "bad-host" } }),
      );
      await expectUsualBadRequest(res);
      expect(res.headers.get("x-request-id")).toBe("bad-host");
    }
    expect(entries.map((e) => [e.status, e.route])).toEqual(Array(8).fill([400, "[bad request target]"]));
  });

  test("is answered 400, never thrown, when the runtime hands over a URL that does not parse", async () => {
    const { handler, entries } = handlerWithLog();
    for (const target of [`/v1/employees?access_token=${TOKEN}`, "/", "/healthz"]) {
      await expectUsualBadRequest(await handler(new RelativeUrlRequest(target)));
    }
    expect(JSON.stringify(entries)).not.toContain("svct_");
    expect(entries.every((e) => e.route === "[bad request target]")).toBe(true);
  });

  test("a URL with user information is refused like credentials in the URL", async () => {
    const { handler } = handlerWithLog();
    await expectUsualBadRequest(await handler(new Request("http://user:pass@x/healthz")));
  });

  test("a valid Host still reaches the API", async () => {
    const { handler } = handlerWithLog();
    for (const host of ["x", "x:8080", "[::1]:8080", "127.0.0.1"]) {
      expect((await handler(new Request("http://x/healthz", { headers: { Host: host } }))).status).toBe(200);
    }
  });
});

describe("credentials in the URL, however encoded", () => {
  const hidden = [
    `/v1/%2573vct_${"A".repeat(43)}`,
    `/v1/employees/%252573vcs_${"B".repeat(43)}`,
    `/v1/SVCT_${"C".repeat(43)}`,
    `/v1/%2553%2556%2543%2554_${"D".repeat(43)}`,
    `/healthz?x=%25%37%33vct_${"E".repeat(43)}`,
    `/healthz?access%255Ftoken=abc`,
    `/healthz?ACCESS_TOKEN=abc`,
    `/v1/${"%25".repeat(12)}73vct_x`,
    `/v1/%${"25".repeat(12)}41`,
  ];

  test("are refused 400 at every depth of percent-encoding and in any case, and the log holds none of them", async () => {
    const { handler, entries } = handlerWithLog();
    for (const path of hidden) {
      const res = await handler(new Request(`http://x${path}`));
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
    }
    const logged = JSON.stringify(entries);
    expect(logged).not.toMatch(/svc[ts]|%25|%73|access/i);
    expect(entries.filter((e) => e.route === "[redacted]")).toHaveLength(6);
  });

  test("holdsSecretMarker decodes again and again, and gives up (as a secret) only past eight layers", () => {
    expect(holdsSecretMarker("/v1/employees")).toBe(false);
    expect(holdsSecretMarker("/v1/%25E0%zz")).toBe(false);
    // Eight layers: `%` then seven `25`, then the byte.
    expect(holdsSecretMarker(`/%${"25".repeat(7)}73vct_`)).toBe(true);
    expect(holdsSecretMarker(`/%${"25".repeat(7)}41`)).toBe(false);
    expect(holdsSecretMarker(`/%${"25".repeat(8)}41`)).toBe(true);
  });

  test("redactSecrets takes every token-shaped word and credential parameter out of a log message", () => {
    expect(redactSecrets(`Invalid URL input: "/x?client_secret=abc" near %2573vct_q and Svcs_r, fine words stay`)).toBe(
      `Invalid URL input: "[redacted]" near [redacted] and [redacted] fine words stay`,
    );
  });
});

describe("a method as the client spelled it (RequestInfo.method)", () => {
  test("get, Post and FOO are not GET or POST: 405 with Allow on a known path, 404 elsewhere", async () => {
    const { handler, entries } = handlerWithLog();
    for (const method of ["get", "Post", "FOO"]) {
      const res = await handler(new Request("http://x/v1/employees"), { method });
      expect({ method, status: res.status, allow: res.headers.get("allow") }).toEqual({ method, status: 405, allow: "GET, HEAD" });
      expect(await res.json()).toMatchObject({ error: "method_not_allowed" });
    }
    expect((await handler(new Request("http://x/nowhere"), { method: "FOO" })).status).toBe(404);
    expect(entries.map((e) => e.method)).toEqual(["get", "Post", "FOO", "FOO"]);
    await handler(new Request("http://x/healthz"), { method: TOKEN });
    expect(entries.at(-1)!.method).toBe("[other]");
  });
});
