/**
 * HEAD answers with exactly the headers the same GET would (docs/api.md, "HTTP behaviour"; RFC 9110 §9.3.2
 * and §8.6: Content-Length included), and no body, on every route, coded and not, over a
 * real socket, on each host the handler runs on: `leaveapi serve` (Bun.serve), the Node
 * bridge under Node itself (leaveapi/node, from dist/lib), and Deno.serve
 * (examples/deno-serve.ts). Every host serves the same data (test/host-seed.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { writeFixture } from "../testing/contract-fixture.ts";
import { startServer } from "./cli-harness.ts";
import { client, EMPLOYEE, listeningUrl, secret, SEED } from "./host-seed.ts";
import { libraryBuilt } from "./library-build.ts";
import { exchange } from "./socket-fuzz.ts";

const ROOT = join(import.meta.dir, "..");
/** Every route, the public ones and the data endpoints with a token, and answers that are errors. */
function routes(token: string): { path: string; headers: Record<string, string> }[] {
  const auth = { Authorization: `Bearer ${token}` };
  return [
    { path: "/livez", headers: {} },
    { path: "/healthz", headers: {} },
    { path: "/v1/openapi.json", headers: {} },
    { path: "/.well-known/oauth-authorization-server", headers: {} },
    { path: "/docs", headers: {} },
    { path: "/docs/api-reference.js", headers: {} },
    { path: "/v1/employees?limit=50", headers: auth },
    { path: `/v1/employees/${EMPLOYEE}`, headers: auth },
    { path: "/v1/employees/e1000000-0000-4000-8000-999999999999", headers: auth },
    { path: "/v1/leave-requests?from=2026-03-01&to=2026-03-31", headers: auth },
    { path: "/v1/holidays?from=2026-01-01&to=2026-12-31", headers: auth },
    { path: "/v1/deletions?resource=employees&updated_since=2026-01-01T00:00:00Z", headers: auth },
    { path: "/v1/employees", headers: {} },
    { path: "/v1/employees?bogus=1", headers: auth },
    { path: "/nowhere", headers: {} },
  ];
}

interface Answer {
  status: string;
  headers: Map<string, string>;
  body: Uint8Array;
}

/** One request over its own connection, the answer as the bytes came (chunked bodies joined). */
async function ask(port: number, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Connection: close",
    "X-Request-Id: head-test",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const raw = await exchange(port, new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`), 10_000);
  let end = 0;
  while (end + 3 < raw.length && !(raw[end] === 13 && raw[end + 1] === 10 && raw[end + 2] === 13 && raw[end + 3] === 10)) end++;
  const head = new TextDecoder().decode(raw.subarray(0, end)).split("\r\n");
  const fields = new Map<string, string>();
  for (const line of head.slice(1)) {
    const at = line.indexOf(":");
    fields.set(line.slice(0, at).toLowerCase(), line.slice(at + 1).trim());
  }
  let body = raw.subarray(end + 4);
  if (fields.get("transfer-encoding") === "chunked") {
    const parts: number[] = [];
    let at = 0;
    const text = (from: number, to: number) => new TextDecoder().decode(body.subarray(from, to));
    for (;;) {
      const lineEnd = body.indexOf(10, at);
      const size = Number.parseInt(text(at, lineEnd), 16);
      if (!size) break;
      parts.push(...body.subarray(lineEnd + 1, lineEnd + 1 + size));
      at = lineEnd + 1 + size + 2;
    }
    body = new Uint8Array(parts);
  }
  return { status: head[0] ?? "", headers: fields, body };
}

/** Every difference between HEAD and GET on `port`, for every route and coding. */
async function differences(port: number, token: string): Promise<string[]> {
  const found: string[] = [];
  for (const route of routes(token)) {
    for (const coding of [{}, { "Accept-Encoding": "gzip" }] as Record<string, string>[]) {
      const headers = { ...route.headers, ...coding };
      const get = await ask(port, "GET", route.path, headers);
      const head = await ask(port, "HEAD", route.path, headers);
      const label = `${route.path}${"Accept-Encoding" in coding ? " (gzip)" : ""}`;
      if (head.status !== get.status) found.push(`${label}: HEAD ${head.status}, GET ${get.status}`);
      if (head.body.length > 0) found.push(`${label}: HEAD has a body of ${head.body.length} bytes`);
      const length = get.headers.get("content-length");
      if (length !== undefined && Number(length) !== get.body.length) found.push(`${label}: GET says ${length} bytes and sends ${get.body.length}`);
      const headLength = head.headers.get("content-length");
      // RFC 9110 §8.6: the length GET would send, or none at all.
      if (headLength !== undefined && Number(headLength) !== get.body.length)
        found.push(`${label}: HEAD Content-Length ${headLength}, GET sends ${get.body.length}`);
      for (const name of new Set([...get.headers.keys(), ...head.headers.keys()])) {
        if (name === "date" || name === "content-length" || name === "transfer-encoding" || name === "connection" || name === "keep-alive") continue;
        if (get.headers.get(name) !== head.headers.get(name)) found.push(`${label}: ${name}: GET ${get.headers.get(name)}, HEAD ${head.headers.get(name)}`);
      }
    }
  }
  return found;
}

async function tokenFrom(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

const scratch = mkdtempSync(join(tmpdir(), "leaveapi-head-"));
const database = join(scratch, "head.sqlite");
const stops: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  rmSync(scratch, { recursive: true, force: true });
});

beforeAll(async () => {
  const store = openSqliteStore({ filename: database });
  await store.migrate();
  await writeFixture(store, SEED);
  await store.close();
  writeFileSync(join(scratch, "seed.json"), JSON.stringify(SEED));
  await libraryBuilt();
}, 120_000);

/** A host started as a child process that prints `listening on URL`: what its HEAD and GET answers differ in. */
async function hostDifferences(proc: { stdout: ReadableStream<Uint8Array>; exited: Promise<number>; kill: () => void }): Promise<string[]> {
  stops.push(() => {
    proc.kill();
    return proc.exited;
  });
  const baseUrl = await listeningUrl(proc.stdout, proc.exited);
  return differences(Number(new URL(baseUrl).port), await tokenFrom(baseUrl));
}

describe("HEAD answers with GET's headers, Content-Length included, and no body", () => {
  test("leaveapi serve (Bun.serve)", async () => {
    const server = await startServer(["--db", database]);
    stops.push(() => server.stop());
    const port = Number(new URL(server.baseUrl).port);
    expect(await differences(port, await tokenFrom(server.baseUrl))).toEqual([]);
  }, 60_000);

  test("the Node bridge under Node (leaveapi/node)", async () => {
    const script = join(scratch, "node-host.mjs");
    writeFileSync(
      script,
      `import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { createHandler } from ${JSON.stringify(join(ROOT, "dist/lib/entry/index.js"))};
import { createMemoryStore } from ${JSON.stringify(join(ROOT, "dist/lib/entry/memory.js"))};
import { toNodeListener } from ${JSON.stringify(join(ROOT, "dist/lib/entry/node.js"))};
const store = createMemoryStore(JSON.parse(readFileSync(process.argv[2], "utf8")));
const server = createServer(toNodeListener(createHandler({ store })));
server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`,
    );
    expect(await hostDifferences(Bun.spawn(["node", script, join(scratch, "seed.json")], { stdout: "pipe", stderr: "inherit" }))).toEqual([]);
  }, 60_000);

  test("Deno.serve (examples/deno-serve.ts)", async () => {
    const deno = [join(ROOT, "node_modules/.bin/deno"), "run", "--allow-net", "--allow-read", "--allow-write", "--allow-env"];
    const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" };
    const proc = Bun.spawn([...deno, "examples/deno-serve.ts", "--port", "0", "--sqlite", database], { cwd: ROOT, stdout: "pipe", stderr: "inherit", env });
    expect(await hostDifferences(proc)).toEqual([]);
  }, 60_000);
});
