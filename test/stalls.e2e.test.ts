/**
 * No request stalls `leaveapi serve`, and a stalled one is ended (issue 12): over a real
 * socket, the year-1 holidays request that once spun for ever answers, lunar calendars are
 * worked out without holding /healthz, and a loop stuck by an injected stall is ended by
 * the watchdog with a logged reason, whether or not SIGTERM was sent first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startServer, type RunningServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, type Provisioned } from "./serve-fixture.ts";

const ROOT = join(import.meta.dir, "..");
/** The source CLI with a preload that stalls the loop on SIGUSR2. */
const STALLABLE = [process.execPath, "--preload", join(import.meta.dir, "fixtures/stall-on-signal.ts"), join(ROOT, "scripts/cli.ts")];

let p: Provisioned;
beforeAll(async () => {
  p = await provisionDatabase("stalls.sqlite");
}, 30_000);
afterAll(() => p.dispose());

async function getJson(server: RunningServer, path: string, token?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${server.baseUrl}${path}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: await res.json() };
}

describe("holidays over a real socket", () => {
  test("year 1 of CN, KR, VN and TW answers at once; lunar years answer while /healthz keeps answering", async () => {
    const server = await startServer(p.db);
    try {
      const token = await fetchToken(server.baseUrl, p);
      for (const calendar of ["CN", "KR", "VN", "TW"]) {
        expect(await getJson(server, `/v1/holidays?from=0001-01-01&to=0001-12-31&calendar=${calendar}`, token)).toEqual({ status: 200, body: { data: [] } });
      }
      // Eight first-time lunar calendar-years (the slowest there are, in the holiday thread) while
      // /healthz is asked one request after another: it is answered many times over
      // before they finish, which a blocked event loop could not do.
      let computing = true;
      let healthy = 0;
      const probe = (async () => {
        while (computing) {
          expect((await getJson(server, "/healthz")).status).toBe(200);
          healthy++;
        }
      })();
      const years = await Promise.all(
        ["TW", "HK", "VN", "CN"].flatMap((calendar) =>
          [2040, 2041].map((year) => getJson(server, `/v1/holidays?from=${year}-01-01&to=${year}-12-31&calendar=${calendar}`, token)),
        ),
      );
      computing = false;
      await probe;
      for (const { status, body } of years) {
        expect(status).toBe(200);
        expect((body as { data: unknown[] }).data.length).toBeGreaterThan(3);
      }
      expect(healthy).toBeGreaterThan(8);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});

describe("the watchdog", () => {
  const stuckServer = () => startServer(p.db, { command: STALLABLE, serveArgs: ["--watchdog", "2", "--log-format", "json"] });

  function expectWatchdogEnded(server: RunningServer, ended: { code: number | null; signal: string | null }): void {
    expect(ended.signal).toBe("SIGKILL");
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes('"event":"watchdog"'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line!) as { level: string; message: string; stalled_ms: number };
    expect(entry.level).toBe("error");
    expect(entry.message).toContain("the event loop has not turned for");
    expect(entry.stalled_ms).toBeGreaterThan(2000);
  }

  test("ends a server whose event loop is stuck, with a logged reason, so its supervisor restarts it", async () => {
    const server = await stuckServer();
    expect((await getJson(server, "/healthz")).status).toBe(200);
    server.kill("SIGUSR2");
    expectWatchdogEnded(server, await server.ended);
  }, 30_000);

  test("a stuck server that was sent SIGTERM still stops", async () => {
    const server = await stuckServer();
    server.kill("SIGUSR2");
    server.kill("SIGTERM");
    expectWatchdogEnded(server, await server.ended);
  }, 30_000);

  test("a server stopped as a whole (SIGSTOP, as docker pause or a frozen cgroup do) for twice the limit is left alone", async () => {
    const server = await startServer(p.db, { serveArgs: ["--watchdog", "2", "--log-format", "json"] });
    expect((await getJson(server, "/livez")).status).toBe(200);
    server.kill("SIGSTOP");
    // The pause itself is what is tested: the process is stopped for 4 s of real time.
    await Bun.sleep(4000);
    server.kill("SIGCONT");
    expect((await getJson(server, "/livez")).status).toBe(200);
    expect((await getJson(server, "/healthz")).status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toContain('"event":"watchdog"');
  }, 30_000);

  test("a server that is only busy, for longer than the limit, is left alone and stops on SIGTERM with exit 0", async () => {
    // One client keeps it busy: without a per-client budget, or it would be answering 429s.
    const server = await startServer(p.db, { serveArgs: ["--watchdog", "2", "--log-format", "json", "--read-rate-limit", "0"] });
    const token = await fetchToken(server.baseUrl, p);
    const started = performance.now();
    for (let i = 0; i < 20_000 && performance.now() - started < 3000; i++) {
      expect((await getJson(server, "/v1/employees?limit=5", token)).status).toBe(200);
    }
    expect(await server.stop()).toBe(0);
    expect(server.output()).not.toContain('"event":"watchdog"');
  }, 30_000);
});
