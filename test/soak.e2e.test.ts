/**
 * The short form of the soak (bench/soak.ts, issue 8): 8 s of a real `leaveapi serve` at
 * saturation with every endpoint and token requests. Zero unexpected statuses, zero
 * socket errors, nothing secret in the server's log, a clean stop. The long form (60 s,
 * where RSS at the end must be within 10% of the middle) is `npm run soak`.
 *
 * RSS over 8 s says little about growth (the middle sample falls while the JIT and the
 * SQLite page cache are still warming up), so here it is only a tripwire for a gross leak:
 * the end may not exceed the middle by half.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const SECONDS = 8;

test(`${SECONDS} s at saturation: no unexpected status, no socket error, no secret in the log`, async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../bench/soak.ts"), "--seconds", String(SECONDS)], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const report = JSON.parse(stdout) as Record<string, unknown> & {
    by_kind: Record<string, Record<string, number>>;
    rss_middle_kib: number;
    rss_end_kib: number;
    requests: number;
  };
  console.log(stderr.trim());
  expect(report).toMatchObject({ unexpected_statuses: 0, socket_errors: 0, secrets_in_logs: 0, server_exit_code: 0 });
  expect(code).toBe(0);
  // Every kind of request in the mix was made, and the deliberate 429s did come.
  expect(Object.keys(report.by_kind).sort()).toEqual([
    "bad-param",
    "bad-token",
    "employee",
    "employee-missing",
    "employees",
    "healthz",
    "holidays",
    "leave",
    "token",
    "token-hot",
  ]);
  expect(report.by_kind["token-hot"]!["429"]).toBeGreaterThan(0);
  expect(report.by_kind.token!["200"]).toBeGreaterThan(0);
  expect(report.log_lines).toBeGreaterThanOrEqual(report.requests);
  expect(report.rss_end_kib).toBeLessThan(report.rss_middle_kib * 1.5);
}, 60_000);
