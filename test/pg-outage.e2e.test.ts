/**
 * A `leaveapi serve` whose link to Postgres is cut (by a TCP proxy the test controls)
 * answers 503 `temporarily_unavailable` rather than crashing, hanging or answering 500,
 * and serves again by itself within 5 s of the link coming back: on both client libraries
 * the store runs on (Bun.SQL and pg).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { PostgresDriver } from "../adapters/postgres.ts";
import { join } from "node:path";
import { runJson, startServer, type RunningServer } from "./cli-harness.ts";
import { pollUntil, scratchDatabases } from "./pg-scratch.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";
import { POSTGRES_DRIVERS } from "./test-stores.ts";

/** The whole story on one client library (LEAVEAPI_PG_DRIVER). */
function outageSuite(driver: PostgresDriver) {
  let server: RunningServer | undefined;
  let proxy: TcpProxy | undefined;
  let clientId: string;
  let clientSecret: string;
  let token: string;

  const newDatabase = scratchDatabases("outage", async () => {
    proxy?.restore();
    try {
      expect(await server?.stop()).toBe(0);
    } finally {
      await proxy?.close();
    }
  });

  const requestToken = () =>
    fetch(`${server!.baseUrl}/v1/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
    });

  const getEmployees = () => fetch(`${server!.baseUrl}/v1/employees`, { headers: { Authorization: `Bearer ${token}` } });
  const getHealth = () => fetch(`${server!.baseUrl}/healthz`);

  /** Times a request: an outage must be answered promptly, not after the client gives up. */
  async function timed(request: () => Promise<Response>): Promise<{ res: Response; ms: number }> {
    const started = Date.now();
    const res = await request();
    return { res, ms: Date.now() - started };
  }

  /** `withinMs`: a cut link (refused at once) is answered sooner than a silent one (time limits). */
  async function expectUnavailable(request: () => Promise<Response>, withinMs = 6000) {
    const { res, ms } = await timed(request);
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    expect(res.headers.get("Content-Type")).toStartWith("application/json");
    expect(((await res.json()) as { error: string }).error).toBe("temporarily_unavailable");
    expect(ms).toBeLessThan(withinMs);
  }

  beforeAll(async () => {
    const url = await newDatabase();
    const db = ["--database-url", url];
    const org = await runJson<{ id: string }>([...db, "org", "create", "--name", "Outage Ltd"]);
    await runJson([...db, "org", "enable-api", org.id]);
    ({ client_id: clientId, client_secret: clientSecret } = await runJson<{ client_id: string; client_secret: string }>([
      ...db,
      "credentials",
      "create",
      "--org",
      org.id,
    ]));
    await runJson([...db, "import", "--org", org.id, "--kind", "employees", join(import.meta.dir, "../examples/import/employees.jsonl")]);
    const target = new URL(url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(url);
    viaProxy.port = String(proxy.port);
    server = await startServer(["--database-url", viaProxy.toString()], { env: { LEAVEAPI_PG_STATEMENT_TIMEOUT_MS: "2000", LEAVEAPI_PG_DRIVER: driver } });
    const res = await requestToken();
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
  }, 60_000);

  test("with the database link cut, every store-backed endpoint answers 503 and the service recovers by itself", async () => {
    for (let round = 1; round <= 2; round++) {
      expect((await getEmployees()).status).toBe(200);
      proxy!.cut();
      // pg fails at once; Bun.SQL, which would retry until its 5 s connection timeout, within
      // half a second (adapters/bun/postgres-driver.ts, RECONNECT_WAIT_MS).
      await expectUnavailable(getEmployees, 2000);
      await expectUnavailable(getHealth, 2000);
      await expectUnavailable(requestToken, 2000);
      // Endpoints that need no store still answer during the outage.
      expect((await fetch(`${server!.baseUrl}/v1/openapi.json`)).status).toBe(200);

      proxy!.restore();
      const { elapsedMs } = await pollUntil("service resumed after the link came back", 5000, async () =>
        (await getHealth()).status === 200 && (await getEmployees()).status === 200 ? true : undefined,
      );
      expect(elapsedMs).toBeLessThanOrEqual(5000);
      const again = await requestToken();
      expect(again.status).toBe(200);
    }
    // The same process answered throughout: it logged its 503s and never a 500.
    const statuses = server!
      .output()
      .split("\n")
      .flatMap((line) => {
        try {
          const status = (JSON.parse(line) as { status?: unknown }).status;
          return typeof status === "number" ? [status] : [];
        } catch {
          return [];
        }
      });
    expect(statuses).toContain(503);
    expect(statuses).not.toContain(500);
  }, 30_000);

  test("a link that goes silent is answered with 503 once the time limits pass, never left hanging", async () => {
    expect((await getEmployees()).status).toBe(200);
    proxy!.stall();
    // Pooled connections wait out the query timeout (statement timeout 2 s + 1 s), new
    // ones the 5 s connection timeout: either way a prompt 503 rather than a hung request.
    await expectUnavailable(getEmployees);
    await expectUnavailable(getHealth);
    proxy!.restore();
    const { elapsedMs } = await pollUntil("service resumed after the link came back", 5000, async () =>
      (await getEmployees()).status === 200 ? true : undefined,
    );
    expect(elapsedMs).toBeLessThanOrEqual(5000);
    expect((await requestToken()).status).toBe(200);
  }, 30_000);
}

for (const driver of POSTGRES_DRIVERS) describe(`Postgres (${driver})`, () => outageSuite(driver));
