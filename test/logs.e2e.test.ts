/**
 * The request log of a real `leaveapi serve` (issue 4; docs/cli.md, "serve": never a secret
 * in a log): after a full session, with every endpoint, query strings, both client
 * authentication methods, bad tokens, a token in the URL and failed authentications,
 * everything the process wrote to stdout and stderr is searched for what must never be
 * there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli, startServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
let output = "";
let exitCode: number;
const tokens: string[] = [];
let requestsMade = 0;
const FORBIDDEN_TOKEN = `svct_${"A".repeat(43)}`;

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  requestsMade++;
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res;
}

/** One session touching every endpoint and every way a secret could leak into a log. */
async function driveSession(baseUrl: string): Promise<void> {
  tokens.push(await fetchToken(baseUrl, p, "basic"), await fetchToken(baseUrl, p, "post"));
  requestsMade += 2;
  const bearer = { headers: { Authorization: `Bearer ${tokens[0]}`, "X-Request-Id": "log-test-1" } };
  const list = (await (await fetch(`${baseUrl}/v1/employees?limit=2&status=active`, bearer)).json()) as { data: { id: string }[] };
  requestsMade++;
  const reads = [
    `/v1/employees/${list.data[0]!.id}`,
    "/v1/leave-requests?from=2026-01-01&to=2026-12-31&limit=5",
    "/v1/holidays?from=2026-12-01&to=2026-12-31&calendar=GB-ENG",
    "/healthz?probe=1",
    "/v1/openapi.json?v=1",
    "/.well-known/oauth-authorization-server?x=y",
    "/metrics?from=2026-01-01",
    "/no/such/path?from=2026-01-01",
    `/v1/employees/${FORBIDDEN_TOKEN}`,
  ];
  for (const path of reads) expect((await send(`${baseUrl}${path}`, bearer)).status).toBeLessThan(500);
  expect((await send(`${baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${FORBIDDEN_TOKEN}` } })).status).toBe(401);
  expect((await send(`${baseUrl}/v1/employees?access_token=${tokens[1]}`)).status).toBe(400);
  expect((await send(`${baseUrl}/v1/oauth/token?client_secret=${p.clientSecret}`, { method: "POST" })).status).toBe(400);
  const wrongSecret = { Authorization: `Basic ${btoa(`${p.clientId}:svcs_${"x".repeat(43)}`)}`, "Content-Type": "application/x-www-form-urlencoded" };
  expect((await send(`${baseUrl}/v1/oauth/token`, { method: "POST", headers: wrongSecret, body: "grant_type=client_credentials" })).status).toBe(401);
  const formSecret = new URLSearchParams({ grant_type: "client_credentials", client_id: p.clientId, client_secret: `${p.clientSecret}x` });
  expect((await send(`${baseUrl}/v1/oauth/token`, { method: "POST", body: formSecret })).status).toBe(401);
}

beforeAll(async () => {
  p = await provisionDatabase("logs.sqlite");
  const server = await startServer(p.db, { env: { LOG_LEVEL: "info", LOG_FORMAT: "" } });
  try {
    await driveSession(server.baseUrl);
  } finally {
    exitCode = await server.stop();
    output = server.output();
  }
}, 60_000);

afterAll(() => p.dispose());

test("the server stopped cleanly", () => {
  expect(exitCode).toBe(0);
});

test("no secret, token, Authorization header or query string anywhere in stdout or stderr", () => {
  for (const secret of [p.clientSecret, ...tokens, FORBIDDEN_TOKEN]) expect(output).not.toContain(secret);
  for (const forbidden of ["svcs_", "svct_", "Authorization", "Basic ", "Bearer", "?", "from=", "limit=", "access_token", "client_secret"]) {
    expect(output).not.toContain(forbidden);
  }
});

test("stdout holds one JSON line per request with the request fields, the caller where known", () => {
  const lines = output.split("\n").filter((line) => line !== "" && !line.startsWith("leaveapi serving"));
  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const requests = entries.filter((e) => "request_id" in e);
  expect(requests).toHaveLength(requestsMade);
  for (const entry of requests) {
    expect(Object.keys(entry).sort()).toEqual(
      ["client_id", "duration_ms", "level", "method", "organisation_id", "records", "request_id", "route", "status", "time"].sort(),
    );
    expect(entry.level).toBe("info");
    expect(typeof entry.duration_ms).toBe("number");
    expect(new Date(entry.time as string).toISOString()).toBe(entry.time as string);
  }
  const read = requests.find((e) => e.request_id === "log-test-1" && e.route === "/v1/employees/{id}");
  // Who read how much: one employee by id is one record; a token request reads none.
  expect(read).toMatchObject({ method: "GET", status: 200, organisation_id: p.organisationId, client_id: p.clientId, records: 1 });
  expect(requests.filter((e) => e.route === "/v1/oauth/token").every((e) => e.records === null)).toBe(true);
  expect(requests.find((e) => e.route === "/v1/employees" && e.status === 200)?.records).toBe(2);
  expect(requests.filter((e) => e.route === "/v1/oauth/token" && e.status === 200 && e.client_id === p.clientId)).toHaveLength(2);
  expect(requests.some((e) => e.route === "[redacted]" || e.route === "/v1/employees/{id}")).toBe(true);
});

test("an invalid LOG_LEVEL is bad usage: exit 2 with one line naming it", async () => {
  const result = await runCli([...p.db, "serve", "--port", "0"], { env: { LOG_LEVEL: "verbose" } });
  expect(result.code).toBe(2);
  expect(result.stderr.split("\n")[0]).toContain("LOG_LEVEL");
});
