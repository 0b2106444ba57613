/**
 * `leaveapi serve --read-rate-limit PER_SECOND` (and LEAVEAPI_READ_RATE_LIMIT): the data
 * endpoints' budget per client, bursts of twice the rate (docs/api.md, "Rate limits").
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
beforeAll(async () => {
  p = await provisionDatabase("read-rate.sqlite");
}, 30_000);
afterAll(() => p.dispose());

async function statusesOf(settings: { serveArgs?: string[]; env?: Record<string, string> }, requests: number): Promise<number[]> {
  const server = await startServer(p.db, settings);
  try {
    const token = await fetchToken(server.baseUrl, p);
    const answers = await Promise.all(
      Array.from({ length: requests }, () => fetch(`${server.baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${token}` } })),
    );
    for (const a of answers) await a.arrayBuffer();
    return answers.map((a) => a.status);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

test("--read-rate-limit 3: six requests at once are served, the rest of a burst of twelve refused with 429", async () => {
  const statuses = await statusesOf({ serveArgs: ["--read-rate-limit", "3"] }, 12);
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(6);
  expect(statuses.filter((s) => s === 200).length).toBeLessThan(9);
  expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
}, 30_000);

test("LEAVEAPI_READ_RATE_LIMIT=0 is no limit", async () => {
  const statuses = await statusesOf({ env: { LEAVEAPI_READ_RATE_LIMIT: "0" } }, 300);
  expect(new Set(statuses)).toEqual(new Set([200]));
}, 30_000);
