/**
 * Running `leaveapi serve` in production (issue 4 items 6 and 8): a SIGTERM in the middle
 * of a steady stream of requests loses none of the requests in flight, and `--workers 2`
 * serves on one port, sums its metrics over the processes and stops cleanly, with demo
 * seeding done once by the parent.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runJson, scratchDir, startServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
beforeAll(async () => {
  p = await provisionDatabase("ops.sqlite");
}, 30_000);
afterAll(() => p.dispose());

const LOOPS = 4;
/** A safety bound: the loops stop at their first refusal long before this. */
const MAX_REQUESTS = 3000;
const SIGNAL_AFTER = 120;

interface Outcome {
  requestId: string;
  startedAt: number;
  status?: number;
  error?: string;
}

let sequence = 0;

/** One request that counts as answered only if the whole JSON page arrived. */
async function readPage(url: string, token: string): Promise<Outcome> {
  const requestId = `ops-${++sequence}`;
  const startedAt = performance.now();
  try {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}`, "X-Request-Id": requestId } });
    const body = (await res.json()) as { data?: unknown[] };
    return { requestId, startedAt, status: res.status === 200 && Array.isArray(body.data) ? 200 : res.status };
  } catch (error) {
    return { requestId, startedAt, error: (error as { code?: string }).code ?? String(error) };
  }
}

/** The request ids the server logged, and how many of them it finished after it began shutting down. */
function serverLog(output: string): { logged: Set<string>; finishedDuringShutdown: number } {
  const entries = output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, string>);
  const shutdownAt = entries.find((e) => e.event === "shutdown")?.time ?? "9";
  const requests = entries.filter((e) => e.request_id?.startsWith("ops-"));
  return { logged: new Set(requests.map((e) => e.request_id!)), finishedDuringShutdown: requests.filter((e) => e.time! >= shutdownAt).length };
}

test("SIGTERM during a stream of requests: every request the server took is answered, later ones are refused, exit 0", async () => {
  const server = await startServer(p.db);
  const token = await fetchToken(server.baseUrl, p);
  const url = `${server.baseUrl}/v1/employees?limit=3`;
  const outcomes: Outcome[] = [];
  let signalledAt = Infinity;
  let exited: Promise<number> | undefined;
  const loop = async () => {
    while (outcomes.length < MAX_REQUESTS) {
      const outcome = await readPage(url, token);
      outcomes.push(outcome);
      if (outcome.error) return;
      if (outcomes.length >= SIGNAL_AFTER && !exited) {
        signalledAt = performance.now();
        exited = server.stop("SIGTERM");
      }
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, loop));
  expect(await exited).toBe(0);

  const { logged, finishedDuringShutdown } = serverLog(server.output());
  const answered = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.error === "ConnectionRefused" || o.error === "ECONNREFUSED");
  // Each loop goes on until its first refusal, so the stream straddles the shutdown.
  expect(refused).toHaveLength(LOOPS);
  expect(answered.length + refused.length).toBe(outcomes.length);
  expect(outcomes.length).toBeLessThan(MAX_REQUESTS);
  // A request the server received was answered in full; a refused one never reached it.
  expect(answered.map((o) => o.requestId).sort()).toEqual([...logged].sort());
  expect(outcomes.filter((o) => o.startedAt < signalledAt && o.status === 200).length).toBeGreaterThanOrEqual(SIGNAL_AFTER - 1);
  console.info(`shutdown: ${answered.length} answered (${finishedDuringShutdown} finished after SIGTERM), ${refused.length} refused`);
  expect(server.output()).toContain("finishing in-flight requests");
}, 60_000);

/** A raw HTTP/1.1 token request whose body is sent in two parts, so it can be held in flight. */
async function heldTokenRequest(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  const body = "grant_type=client_credentials";
  let received = "";
  let closed: () => void = () => {};
  const done = new Promise<void>((resolve) => (closed = resolve));
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: { data: (_s, chunk) => void (received += new TextDecoder().decode(chunk)), close: () => closed(), error: () => closed() },
  });
  const head = [
    "POST /v1/oauth/token HTTP/1.1",
    `Host: ${hostname}:${port}`,
    `Authorization: Basic ${btoa(`${p.clientId}:${p.clientSecret}`)}`,
    "Content-Type: application/x-www-form-urlencoded",
    `Content-Length: ${body.length}`,
    "Connection: close",
  ].join("\r\n");
  socket.write(`${head}\r\n\r\n${body.slice(0, 10)}`);
  return {
    finish: async () => {
      socket.write(body.slice(10));
      await done;
      return received;
    },
    abandon: () => socket.end(),
    done,
  };
}

/** Resolves once the server refuses new connections (it has begun shutting down). */
async function untilRefused(baseUrl: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    try {
      await (await fetch(`${baseUrl}/healthz`)).arrayBuffer();
    } catch {
      return;
    }
  }
  throw new Error("the server still accepts connections 10 s after SIGTERM");
}

test("a request in flight when SIGTERM arrives is answered in full after the server stopped accepting", async () => {
  const server = await startServer(p.db);
  const held = await heldTokenRequest(server.baseUrl);
  expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  const exited = server.stop("SIGTERM");
  await untilRefused(server.baseUrl);
  const answer = await held.finish();
  expect(answer).toStartWith("HTTP/1.1 200");
  expect(answer).toContain('"access_token":"svct_');
  expect(await exited).toBe(0);
}, 30_000);

test("--shutdown-timeout bounds the wait for a request that never finishes; the exit is still 0", async () => {
  const server = await startServer(p.db, { serveArgs: ["--shutdown-timeout", "0.5"] });
  const held = await heldTokenRequest(server.baseUrl);
  expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  expect(await server.stop("SIGTERM")).toBe(0);
  await held.done;
  expect(server.output()).toContain('"event":"shutdown_timeout"');
}, 30_000);

test("--workers 2 seeds the demo once, answers on one port and stops with exit 0", async () => {
  const scratch = scratchDir();
  const db = ["--db", join(scratch.dir, "workers.sqlite")];
  const server = await startServer(db, { serveArgs: ["--workers", "2", "--demo"], env: { LOG_LEVEL: "debug" } });
  try {
    const output = server.output();
    expect(output.match(/seeding the demo organisation/g)).toHaveLength(1);
    expect(output).toContain("with 2 process(es)");
    expect(output).toContain('"event":"worker_listening"');
    const clientId = /client_id:\s+(\S+)/.exec(output)![1]!;
    const clientSecret = /client_secret:\s+(\S+)/.exec(output)![1]!;
    const token = await fetchToken(server.baseUrl, { db, organisationId: "", clientId, clientSecret, dispose: () => {} });
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => fetch(`${server.baseUrl}/v1/employees?limit=5`, { headers: { Authorization: `Bearer ${token}` }, keepalive: false })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
    // Whichever process answers a scrape, it reports the sum over both.
    for (let i = 0; i < 6; i++) {
      const scrape = await (await fetch(`${server.baseUrl}/metrics`, { keepalive: false })).text();
      expect(scrape).toContain('leaveapi_http_requests_total{route="/v1/employees",status="200"} 40\n');
      expect(scrape).toContain("leaveapi_tokens_issued_total 1\n");
    }
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
  expect(server.output().match(/"event":"shutdown"/g)).toHaveLength(2);
  const orgs = await runJson<unknown[]>([...db, "org", "list"]);
  expect(orgs).toHaveLength(1);
  scratch.dispose();
}, 60_000);
