/**
 * TLS and proxies (issue 4 item 7): HTTPS from PEM files given on the command line, and
 * X-Forwarded-For honoured for the per-address failure limit only with --trust-proxy (then
 * only its last entry, the one the trusted proxy appended).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, scratchDir, startServer, type RunningServer } from "./cli-harness.ts";
import { fetchToken, provisionDatabase, selfSignedCertificate, type Provisioned } from "./serve-fixture.ts";

let p: Provisioned;
let scratch: ReturnType<typeof scratchDir>;
let cert: string;
let key: string;

beforeAll(async () => {
  p = await provisionDatabase("tls.sqlite");
  scratch = scratchDir();
  cert = join(scratch.dir, "cert.pem");
  key = join(scratch.dir, "key.pem");
  selfSignedCertificate(cert, key);
}, 30_000);

afterAll(() => {
  p.dispose();
  scratch.dispose();
});

describe("TLS", () => {
  test("--tls-cert and --tls-key serve HTTPS: a token and a page over it", async () => {
    const server = await startServer(p.db, { serveArgs: ["--tls-cert", cert, "--tls-key", key] });
    try {
      expect(server.baseUrl).toStartWith("https://");
      const insecure = { tls: { rejectUnauthorized: false } };
      const token = await fetchToken(server.baseUrl, p, "basic", insecure);
      const res = await fetch(`${server.baseUrl}/v1/employees?limit=1`, { headers: { Authorization: `Bearer ${token}` }, ...insecure });
      expect(res.status).toBe(200);
      await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 30_000);

  test("the environment works as the flags do", async () => {
    const server = await startServer(p.db, { env: { LEAVEAPI_TLS_CERT: cert, LEAVEAPI_TLS_KEY: key } });
    expect(server.baseUrl).toStartWith("https://");
    expect(await server.stop()).toBe(0);
  }, 30_000);

  test("only one of the two is bad usage (exit 2); an unreadable file is a failure (exit 1)", async () => {
    const half = await runCli([...p.db, "serve", "--port", "0", "--tls-cert", cert]);
    expect(half.code).toBe(2);
    expect(half.stderr).toContain("--tls-key");
    const missing = await runCli([...p.db, "serve", "--port", "0", "--tls-cert", cert, "--tls-key", join(scratch.dir, "nope.pem")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nope.pem");
  }, 30_000);
});

/** A failed client authentication (an unknown client) as if forwarded for `forwardedFor`. */
async function failAuth(server: RunningServer, forwardedFor: string): Promise<number> {
  const res = await fetch(`${server.baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${btoa(`svcc_${"0".repeat(24)}:svcs_${"x".repeat(43)}`)}`,
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Forwarded-For": forwardedFor,
    },
    body: "grant_type=client_credentials",
  });
  await res.arrayBuffer();
  return res.status;
}

describe("--trust-proxy and the per-address failure limit (60 per minute)", () => {
  test("without it, X-Forwarded-For is ignored: 61 failures from varied forwarded addresses still get 429", async () => {
    const fresh = scratchDir();
    const server = await startServer(["--db", join(fresh.dir, "no-proxy.sqlite")]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) statuses.push(await failAuth(server, `10.1.0.${i}`));
      expect(statuses.slice(0, 60)).toEqual(Array(60).fill(401));
      expect(statuses[60]).toBe(429);
    } finally {
      expect(await server.stop()).toBe(0);
      fresh.dispose();
    }
  }, 30_000);

  test("with it, the last X-Forwarded-For entry is the address: each is limited separately", async () => {
    const fresh = scratchDir();
    const server = await startServer(["--db", join(fresh.dir, "proxy.sqlite")], { serveArgs: ["--trust-proxy"] });
    try {
      for (let i = 0; i < 60; i++) expect(await failAuth(server, `203.0.113.${i}, 10.2.0.1`)).toBe(401);
      expect(await failAuth(server, "10.2.0.1")).toBe(429);
      expect(await failAuth(server, "198.51.100.7, 10.2.0.1")).toBe(429);
      expect(await failAuth(server, "10.2.0.2")).toBe(401);
      expect(await failAuth(server, "10.2.0.1, 10.2.0.3")).toBe(401);
    } finally {
      expect(await server.stop()).toBe(0);
      fresh.dispose();
    }
  }, 30_000);
});
