/**
 * Two `leaveapi serve` processes on one SQLite file (as `serve --workers 2` runs) share
 * the per-client token limit exactly: each takes its slots in a BEGIN IMMEDIATE
 * transaction that groups the requests it received together, and the other process
 * sees all of such a batch or none of it (adapters/sql/direct-transactions.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

interface Credentials {
  client_id: string;
  client_secret: string;
}

const scratch = scratchDir();
const db = ["--db", join(scratch.dir, "shared.sqlite")];
let servers: RunningServer[] = [];
let orgId: string;

beforeAll(async () => {
  await runJson([...db, "migrate"]);
  orgId = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Two Processes Ltd"])).id;
  await runJson([...db, "org", "enable-api", orgId]);
  const started = await Promise.allSettled([startServer(db), startServer(db)]);
  servers = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  for (const r of started) if (r.status === "rejected") throw r.reason;
}, 60_000);

afterAll(async () => {
  expect(await Promise.all(servers.map((s) => s.stop()))).toEqual(servers.map(() => 0));
  scratch.dispose();
});

function requestToken(server: RunningServer, c: Credentials): Promise<Response> {
  return fetch(`${server.baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Basic ${btoa(`${c.client_id}:${c.client_secret}`)}` },
    body: "grant_type=client_credentials",
  });
}

test("40 concurrent token requests for one client across both processes yield exactly 10 tokens, each working on either", async () => {
  const creds = await runJson<Credentials>([...db, "credentials", "create", "--org", orgId]);
  const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => requestToken(servers[i % 2]!, creds)));
  expect(responses.map((r) => r.status).sort()).toEqual([...Array(10).fill(200), ...Array(30).fill(429)]);
  const tokens = await Promise.all(responses.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as { access_token: string }).access_token));
  expect(new Set(tokens).size).toBe(10);
  const statuses = await Promise.all(
    tokens.map((t, i) => fetch(`${servers[i % 2]!.baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${t}` } }).then((r) => r.status)),
  );
  expect(statuses).toEqual(Array(10).fill(200));
});
