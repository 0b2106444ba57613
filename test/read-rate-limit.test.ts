/**
 * The data endpoints' budget per client (docs/api.md, "Rate limits"; lib/read-budget.ts): bursts of 200,
 * then 100 a second; beyond it 429 `too_many_requests` with `Retry-After` and the IETF
 * draft's RateLimit headers; each client its own budget; 0 turns it off. On the handler
 * with a clock the test moves.
 */
import { describe, expect, test } from "bun:test";
import { createReadBudget } from "../lib/read-budget.ts";
import { authorisedOrganisation, createWorld } from "./support.ts";

describe("the budget", () => {
  test("a burst, then the rate; a refusal says how long to wait", () => {
    const budget = createReadBudget({ perSecond: 100, burst: 200 });
    for (let i = 0; i < 200; i++) budget.spend("a", 0);
    let refused: unknown;
    try {
      budget.spend("a", 0);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({
      status: 429,
      code: "too_many_requests",
      headers: { "Retry-After": "1", "RateLimit-Limit": "200", "RateLimit-Remaining": "0", "RateLimit-Reset": "1", "RateLimit-Policy": "100;w=1;burst=200" },
    });
    // 10 ms later, one more request; 1 s later, a hundred.
    budget.spend("a", 10);
    expect(() => budget.spend("a", 10)).toThrow();
    for (let i = 0; i < 100; i++) budget.spend("a", 1010);
    expect(() => budget.spend("a", 1010)).toThrow();
    // Another client has its own.
    for (let i = 0; i < 200; i++) budget.spend("b", 1010);
  });

  test("0 a second is no limit", () => {
    const budget = createReadBudget({ perSecond: 0 });
    for (let i = 0; i < 10_000; i++) budget.spend("a", 0);
  });
});

describe("over HTTP", () => {
  test("the 201st data request at one instant is 429 with Retry-After and the RateLimit headers; HEAD counts; another client is served", async () => {
    const world = await createWorld({ readRateLimit: { perSecond: 100, burst: 200 } });
    const a = await authorisedOrganisation(world);
    const b = await authorisedOrganisation(world);
    for (let i = 0; i < 199; i++) expect((await a.get("/v1/employees?limit=1")).status).toBe(200);
    expect((await world.call("/v1/employees?limit=1", { method: "HEAD", headers: { Authorization: `Bearer ${a.token}` } })).status).toBe(200);
    const refused = await a.get("/v1/employees?limit=1");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: "too_many_requests" });
    expect(
      Object.fromEntries(
        ["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"].map((h) => [h, refused.headers.get(h)]),
      ),
    ).toEqual({
      "retry-after": "1",
      "ratelimit-limit": "200",
      "ratelimit-remaining": "0",
      "ratelimit-reset": "1",
      "ratelimit-policy": "100;w=1;burst=200",
    });
    expect((await b.get("/v1/employees?limit=1")).status).toBe(200);
    world.clock.advance(1000);
    expect((await a.get("/v1/employees?limit=1")).status).toBe(200);
  });

  test("an unauthenticated request is refused for that, not counted against anyone", async () => {
    const world = await createWorld({ readRateLimit: { perSecond: 1, burst: 1 } });
    const a = await authorisedOrganisation(world);
    for (let i = 0; i < 5; i++) expect((await world.call("/v1/employees")).status).toBe(401);
    expect((await a.get("/v1/employees")).status).toBe(200);
    expect((await a.get("/v1/employees")).status).toBe(429);
  });

  test("without the option, the handler sets no budget (an embedding app decides)", async () => {
    const world = await createWorld();
    const a = await authorisedOrganisation(world);
    for (let i = 0; i < 250; i++) expect((await a.get("/v1/employees?limit=1")).status).toBe(200);
  });
});
