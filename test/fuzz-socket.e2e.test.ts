/**
 * Raw bytes over TCP to a real `leaveapi serve` child process (issue 12), started with
 * NODE_ENV=development, the environment in which Bun.serve would otherwise show its
 * development error page. First the requests the issue found, as fixed cases; then the
 * seeded fuzzer of test/socket-fuzz.ts; last, everything the process wrote to stdout and
 * stderr is searched for secrets, token-shaped strings and anything but log lines.
 *
 *   FUZZ_SOCKET_SEED=7 FUZZ_SOCKET_CASES=20000 bun test test/fuzz-socket.e2e.test.ts
 *
 * replays or widens a run: FUZZ_SOCKET_SEED takes one seed or a comma-separated list,
 * FUZZ_SOCKET_CASES the cases per seed (default 3,000 with seed 20261125: a few seconds).
 * The compiled binary gets the same fuzzer in test/binary.e2e.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type RunningServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";
import { exchange, generateCases, runSocketFuzz, serverOutputProblems, type FuzzFixtures } from "./socket-fuzz.ts";

const SEEDS = (process.env.FUZZ_SOCKET_SEED ?? "20261125").split(",").map(Number);
const CASES = Number(process.env.FUZZ_SOCKET_CASES ?? 3000);
const CASE_TIMEOUT_MS = 10_000;

let p: Provisioned;
let server: RunningServer;
let port: number;
let fixtures: FuzzFixtures;

beforeAll(async () => {
  p = await provisionDatabase("socket-fuzz.sqlite");
  server = await startServer(p.db, { env: { NODE_ENV: "development", LOG_FORMAT: "json", LOG_LEVEL: "info" } });
  port = Number(new URL(server.baseUrl).port);
  const token = await fetchToken(server.baseUrl, p);
  const employees = (await (await fetch(`${server.baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
    data: { id: string }[];
  };
  fixtures = { clientId: p.clientId, clientSecret: p.clientSecret, token, employeeId: employees.data[0]!.id };
}, 60_000);
afterAll(() => p.dispose());

/** One request on its own connection, closed after the answer: status line, lower-cased head and body text. */
async function send(text: string): Promise<{ status: number; head: string; body: string }> {
  const lineEnd = text.indexOf("\r\n") + 2;
  const closing = `${text.slice(0, lineEnd)}Connection: close\r\n${text.slice(lineEnd)}`;
  const raw = new TextDecoder().decode(await exchange(port, new TextEncoder().encode(closing), CASE_TIMEOUT_MS));
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head: head.toLowerCase(), body };
}

test("a malformed Host, with a secret in the URL, gets the JSON 400 and the usual headers, not Bun's development error page", async () => {
  const hosts = ["a b", "user@x", "a:99999", "[::1", "%zz", ""];
  for (const host of hosts) {
    for (const path of [`/v1/employees?client_secret=${p.clientSecret}`, `/v1/employees?access_token=${fixtures.token}`, "/metrics", "/healthz"]) {
      const answer = await send(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: host-${hosts.indexOf(host)}\r\n\r\n`);
      expect({ host, path, status: answer.status }).toEqual({ host, path, status: 400 });
      for (const header of [
        "content-type: application/json",
        "cache-control: no-store",
        "x-content-type-options: nosniff",
        `x-request-id: host-${hosts.indexOf(host)}`,
      ])
        expect(answer.head).toContain(header);
      expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_request" });
    }
  }
});

test("HTTP/1.0 without Host, and a CONNECT-style target, get the JSON 400; a path hiding a token under two encodings, the JSON 400", async () => {
  expect((await send("GET /healthz HTTP/1.0\r\n\r\n")).status).toBe(400);
  expect((await send("CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n")).status).toBe(400);
  const hidden = await send(`GET /v1/%2573vct_${"A".repeat(43)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect({ status: hidden.status, body: JSON.parse(hidden.body) }).toMatchObject({ status: 400, body: { error: "invalid_request" } });
});

test("what Bun refuses or drops before our code runs, exactly as SECURITY.md lists it", async () => {
  const bare = (status: number) => ({
    status,
    head: `http/1.1 ${status} ${status === 400 ? "bad request" : status === 431 ? "request header fields too large" : "http version not supported"}\r\nconnection: close`,
    body: "",
  });
  expect(await send("FOO /v1/employees HTTP/1.1\r\nHost: x\r\n\r\n")).toEqual({ status: 0, head: "", body: "" });
  expect(await send("get /v1/employees HTTP/1.1\r\nHost: x\r\n\r\n")).toEqual({ status: 0, head: "", body: "" });
  expect(await send("CONNECT ?x HTTP/1.1\r\nHost: x\r\n\r\n")).toEqual({ status: 0, head: "", body: "" });
  expect(await send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")).toEqual(bare(400));
  expect(await send("GET /healthz HTTP/1.1\r\n\r\n")).toEqual(bare(400));
  expect(await send("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n")).toEqual(bare(505));
  expect(await send("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n")).toEqual(bare(505));
  expect(await send(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${"p".repeat(17 * 1024)}\r\n\r\n`)).toEqual(bare(431));
});

test(`seeded raw-socket fuzz: our JSON or a listed Bun refusal, never a 5xx or a hang (${SEEDS.length} × ${CASES} cases)`, async () => {
  let ran = 0;
  for (const seed of SEEDS) {
    const replay = `FUZZ_SOCKET_SEED=${seed} FUZZ_SOCKET_CASES=${CASES} bun test test/fuzz-socket.e2e.test.ts`;
    const report = await runSocketFuzz(port, generateCases(seed, CASES, fixtures, port), { concurrency: 4, timeoutMs: CASE_TIMEOUT_MS, replay });
    ran += report.cases;
    const statuses = [...report.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s || "closed"}×${n}`)
      .join(" ");
    console.log(
      `socket fuzz, seed ${seed}: ${report.cases} cases: ${report.outcomes.json} JSON answers, ${report.outcomes["bun-refusal"]} Bun refusals, ${report.outcomes.closed} connections closed by Bun; statuses ${statuses}`,
    );
    expect(report.failures).toEqual([]);
    // The generator still reaches every kind of outcome and the main rows of docs/api.md, "Statuses and codes".
    expect(report.outcomes.json).toBeGreaterThan(report.cases / 2);
    if (report.cases >= 1000) for (const status of [200, 400, 401, 404, 405, 414, 431, 505]) expect(report.statuses.get(status) ?? 0).toBeGreaterThan(0);
  }
  expect(ran).toBe(SEEDS.length * CASES);
  console.log(`socket fuzz: ${ran} cases in all`);
}, 300_000);

test("afterwards the server still answers, stops cleanly, and wrote nothing but log lines: no secret, no token-shaped string, no error page", async () => {
  expect((await send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).status).toBe(200);
  expect(await server.stop()).toBe(0);
  const output = server.output();
  expect(output).toContain('"route":"[bad request target]"');
  expect(serverOutputProblems(output, [p.clientSecret, fixtures.token])).toEqual([]);
}, 30_000);
