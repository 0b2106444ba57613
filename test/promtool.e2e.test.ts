/**
 * A live `leaveapi serve`, as an operator meets it (issue 16, "Operations"): Prometheus's
 * own linter, `promtool check metrics`, passes over its `/metrics` (one process, and the
 * sum `--workers 2` answers with), and the routes the log names are the routes the
 * metrics label; `/livez` and `/healthz` answer; the start line is JSON like every other
 * line. promtool comes from Debian's `prometheus` package, which .ci/run installs: without
 * it this file fails, never skips.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runJson, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";

const PROMTOOL = Bun.which("promtool");
let scratch: ReturnType<typeof scratchDir>;
let db: string[];

beforeAll(async () => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "promtool.sqlite")];
  await runJson([...db, "org", "create", "--name", "Metrics Ltd"]);
}, 30_000);

afterAll(() => scratch.dispose());

/** promtool's verdict on an exposition: its exit code and whatever it printed. */
async function promtoolCheck(exposition: string): Promise<{ code: number; output: string }> {
  if (!PROMTOOL) throw new Error("promtool is not installed: apt-get install -y --no-install-recommends prometheus (.ci/run does)");
  const proc = Bun.spawn([PROMTOOL, "check", "metrics"], { stdin: new Blob([exposition]), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: (out + err).trim() };
}

async function exercise(server: RunningServer): Promise<void> {
  for (const path of ["/docs", "/livez", "/healthz", "/v1/openapi.json", "/v1/employees", "/no-such-path", "/metrics"]) {
    await (await fetch(server.baseUrl + path)).arrayBuffer();
  }
}

describe("one process", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(db, { serveArgs: ["--log-format", "json"] });
    await exercise(server);
  }, 30_000);
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  test("promtool check metrics passes over /metrics", async () => {
    const exposition = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(exposition).toContain("leaveapi_http_requests_total");
    expect(await promtoolCheck(exposition)).toEqual({ code: 0, output: "" });
  });

  test("promtool fails loudly on what it must refuse (the check is real)", async () => {
    const bad = "# HELP x_total A gauge named like a counter.\n# TYPE x_total gauge\nx_total 1\n";
    const verdict = await promtoolCheck(bad);
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toContain('non-counter metrics should not have "_total" suffix');
  });

  test("every route the log names is the metrics' label; an unknown path is `unmatched`", async () => {
    const exposition = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const labelled = new Set([...exposition.matchAll(/^leaveapi_http_requests_total\{route="([^"]*)"/gm)].map((m) => m[1]));
    const logged = server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{") && line.includes('"request_id"'))
      .map((line) => (JSON.parse(line) as { route: string }).route);
    for (const route of ["/docs", "/livez", "/healthz", "/v1/openapi.json", "/v1/employees", "/metrics"]) {
      expect(logged).toContain(route);
      expect(labelled.has(route)).toBe(true);
    }
    expect(logged).toContain("/no-such-path");
    expect(labelled.has("unmatched")).toBe(true);
    expect(labelled.has("/no-such-path")).toBe(false);
  });

  test("/livez and /healthz answer 200", async () => {
    for (const path of ["/livez", "/healthz"]) {
      const res = await fetch(server.baseUrl + path);
      expect([path, res.status, await res.json()]).toEqual([path, 200, { status: "ok" }]);
    }
  });

  test("with JSON logs every line the server wrote is JSON, the start line included", () => {
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line !== "");
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const start = entries.find((e) => e.event === "listening");
    expect(start).toMatchObject({ level: "info", url: server.baseUrl, store: "sqlite", processes: 1 });
    expect(start?.message).toStartWith(`leaveapi serving ${server.baseUrl} on sqlite `);
  });
});

test("promtool check metrics passes over the sum that --workers 2 answers with", async () => {
  const server = await startServer(db, { serveArgs: ["--workers", "2"] });
  try {
    await exercise(server);
    await exercise(server);
    const exposition = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(exposition).toContain('route="/docs"');
    expect(await promtoolCheck(exposition)).toEqual({ code: 0, output: "" });
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
