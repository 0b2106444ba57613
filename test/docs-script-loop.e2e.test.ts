/**
 * The first `GET /docs/api-reference.js` (3.5 MB of Scalar) does not hold `leaveapi serve`'s
 * event loop (DECISIONS §9; SECURITY.md: no request holds the loop over 50 ms): /livez,
 * asked one request after another while it is fetched coded and not, answers each time
 * within 50 ms. Before, the first load parsed the bundle on the loop for about 100 ms.
 */
import { afterAll, expect, test } from "bun:test";
import { startServer } from "./cli-harness.ts";
import { provisionDatabase, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned | undefined;
afterAll(() => p?.dispose());

test("/livez keeps answering within 50 ms while the docs script is first fetched", async () => {
  p = await provisionDatabase("docs-loop.sqlite");
  const server = await startServer(p.db);
  try {
    expect((await fetch(`${server.baseUrl}/livez`)).status).toBe(200);
    let fetching = true;
    const latencies: number[] = [];
    const probe = (async () => {
      while (fetching) {
        const started = performance.now();
        const res = await fetch(`${server.baseUrl}/livez`);
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
      }
    })();
    const plain = fetch(`${server.baseUrl}/docs/api-reference.js`, { headers: { "Accept-Encoding": "identity" } });
    const coded = fetch(`${server.baseUrl}/docs/api-reference.js`, { headers: { "Accept-Encoding": "gzip, br" } });
    const [a, b] = await Promise.all([plain, coded]);
    const sizes = [(await a.arrayBuffer()).byteLength, Number(b.headers.get("content-length"))];
    fetching = false;
    await probe;
    expect(a.status).toBe(200);
    expect(sizes[0]).toBeGreaterThan(3_000_000);
    expect(latencies.length).toBeGreaterThan(3);
    console.info(`/livez during the first docs script: ${latencies.length} answers, slowest ${Math.max(...latencies).toFixed(1)} ms`);
    expect(Math.max(...latencies)).toBeLessThan(50);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
