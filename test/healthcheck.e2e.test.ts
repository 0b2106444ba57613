/**
 * `leaveapi healthcheck` (the container image's HEALTHCHECK; docs/cli.md): exit 0 when the
 * server answers /livez with 200, 1 with the reason when it does not answer or answers
 * otherwise, 2 on bad usage; by default this machine's server at PORT.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, startServer, type RunningServer } from "./cli-harness.ts";

let server: RunningServer;
beforeAll(async () => {
  server = await startServer(["--db", ":memory:"]);
}, 30_000);
afterAll(async () => {
  await server.stop();
});

describe("leaveapi healthcheck", () => {
  test("a live server: exit 0, by default at 127.0.0.1:PORT/livez", async () => {
    const port = new URL(server.baseUrl).port;
    const local = await runCli(["healthcheck"], { env: { PORT: port } });
    expect(local.stderr).toBe("");
    expect(local.stdout.trim()).toBe(`ok: http://127.0.0.1:${port}/livez answered 200`);
    expect(local.code).toBe(0);
    const json = await runCli(["healthcheck", `${server.baseUrl}/livez`, "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ url: `${server.baseUrl}/livez`, status: 200 });
  }, 30_000);

  test("an answer other than 200, or none, is exit 1 with the reason", async () => {
    const refused = await runCli(["healthcheck", `${server.baseUrl}/v1/employees`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("answered 401");
    const nobody = await runCli(["healthcheck", "http://127.0.0.1:1/livez"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain("http://127.0.0.1:1/livez: ");
  }, 30_000);

  test("bad usage is exit 2", async () => {
    expect((await runCli(["healthcheck", "--timeout", "soon"])).code).toBe(2);
    expect((await runCli(["healthcheck", "ftp://example.com"])).code).toBe(2);
  }, 30_000);
});
