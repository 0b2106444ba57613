/**
 * The soak (issue 8): a real `leaveapi serve` on a seeded SQLite file, driven at
 * saturation by bench/soak-driver.ts (its own process) with a mix of every endpoint and
 * token requests for `--seconds` (default 60). Reports requests, rate, unexpected
 * statuses, socket errors, the server's RSS (VmRSS) at the middle and at the end of the
 * load, and whether the end is within 10% of the middle; it also searches the server's
 * whole log for secrets, tokens and Authorization headers.
 *
 *   npm run soak                       # 60 s, the long form
 *   bun bench/soak.ts --seconds 8      # the short form CI runs (test/soak.e2e.test.ts)
 *
 * Prints a summary on stderr and one JSON report on stdout. Exits 1 when any request got
 * an unexpected status or a socket error, a secret reached the log, the server did not
 * stop cleanly, or (for runs of 60 s and more) the RSS grew by more than 10%.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { mintClient } from "../lib/credentials.ts";
import { ALL_SCOPES } from "../lib/scopes.ts";
import { seedDemo } from "../scripts/demo/seed-demo.ts";
import { rssKib } from "./harness/processes.ts";
import type { SoakJob, SoakLoad } from "./soak-driver.ts";

const ROOT = join(import.meta.dir, "..");
const CLI = process.env.LEAVEAPI_BIN ? [process.env.LEAVEAPI_BIN] : [process.execPath, join(ROOT, "scripts/cli.ts")];
/** What must never appear in a log line (docs/cli.md, "serve"). */
const FORBIDDEN_IN_LOGS = ["svcs_", "svct_", "Authorization", "Bearer ", "Basic "];
const RSS_TOLERANCE = 0.1;

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    concurrency: { type: "string", default: "32" },
    clients: { type: "string", default: "400" },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
if (!(seconds > 0) || !(concurrency > 0) || !(Number(values.clients) > 0)) throw new Error("--seconds, --concurrency and --clients must be numbers above 0");

/** The demo organisation and `count` more sets of credentials for it, written straight to the file. */
async function seed(file: string, count: number): Promise<Omit<SoakJob, "baseUrl" | "seconds" | "concurrency">> {
  const store = openSqliteStore({ filename: file });
  try {
    await store.migrate();
    const demo = await seedDemo(store, new Date("2026-03-01T09:00:00Z"));
    const clients = [{ id: demo.client_id, secret: demo.client_secret }];
    for (let i = 1; i <= count; i++) {
      const { client, secret } = mintClient(demo.organisation.id, [...ALL_SCOPES], `soak-${i}`, Date.now());
      await store.createClient(client);
      clients.push({ id: client.client_id, secret });
    }
    const employeeIds = (await store.listEmployees({ organisationId: demo.organisation.id, filters: {}, limit: 500 })).map((e) => e.id);
    return { clients: clients.slice(1), hot: clients[0]!, employeeIds };
  } finally {
    await store.close();
  }
}

/** Reads a stream to its end, counting lines and occurrences of the forbidden strings (across chunk edges too). */
async function scanLog(stream: ReadableStream<Uint8Array>, seen: { lines: number; forbidden: number; head: string }): Promise<void> {
  const decoder = new TextDecoder();
  let carry = "";
  for await (const chunk of stream) {
    const text = carry + decoder.decode(chunk, { stream: true });
    if (seen.head.length < 2000) seen.head += text.slice(0, 2000);
    for (const word of FORBIDDEN_IN_LOGS) seen.forbidden += text.split(word).length - 1;
    seen.lines += (text.slice(carry.length).match(/\n/g) ?? []).length;
    // The last few characters are searched again with the next chunk, for a word cut in two;
    // what lies wholly inside them was counted just now, so it is taken off here.
    carry = text.slice(-16);
    for (const word of FORBIDDEN_IN_LOGS) seen.forbidden -= carry.split(word).length - 1;
  }
}

async function readLine(reader: ReadableStreamDefaultReader<Uint8Array>, buffered: { text: string }): Promise<string> {
  const decoder = new TextDecoder();
  for (;;) {
    const newline = buffered.text.indexOf("\n");
    if (newline !== -1) {
      const line = buffered.text.slice(0, newline);
      buffered.text = buffered.text.slice(newline + 1);
      return line;
    }
    const { done, value } = await reader.read();
    if (done) throw new Error(`the load driver stopped early: ${buffered.text}`);
    buffered.text += decoder.decode(value, { stream: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), "leaveapi-soak-"));
let exitCode = 0;
try {
  const file = join(dir, "soak.sqlite");
  const seeded = await seed(file, Number(values.clients));
  const server = Bun.spawn([...CLI, "--db", file, "serve", "--port", "0", "--read-rate-limit", "0"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, LOG_FORMAT: "json", LOG_LEVEL: "info" },
  });
  const log = { lines: 0, forbidden: 0, head: "" };
  const errLog = { lines: 0, forbidden: 0, head: "" };
  const logsRead = Promise.all([scanLog(server.stdout, log), scanLog(server.stderr, errLog)]);
  let baseUrl: string | undefined;
  for (const deadline = Date.now() + 20_000; !baseUrl && Date.now() < deadline; await Bun.sleep(20)) baseUrl = /leaveapi serving (\S+)/.exec(errLog.head)?.[1];
  if (!baseUrl) throw new Error(`leaveapi serve did not start: ${errLog.head}`);

  const job: SoakJob = { baseUrl, seconds, concurrency, ...seeded };
  const driver = Bun.spawn([process.execPath, join(import.meta.dir, "soak-driver.ts")], {
    stdin: new TextEncoder().encode(JSON.stringify(job)),
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = driver.stdout.getReader();
  const buffered = { text: "" };
  if ((await readLine(reader, buffered)) !== "started") throw new Error("the load driver did not start");
  const loadStarted = performance.now();
  const at = (fraction: number) => Bun.sleep(Math.max(0, loadStarted + seconds * 1000 * fraction - performance.now()));
  await at(0.5);
  const rssMiddle = rssKib(server.pid);
  await at(1 - Math.min(0.25, 0.5 / seconds));
  const rssEnd = rssKib(server.pid);
  const load = JSON.parse(await readLine(reader, buffered)) as SoakLoad;
  await driver.exited;

  server.kill("SIGTERM");
  const serverExit = await server.exited;
  await logsRead;
  const growth = (rssEnd - rssMiddle) / rssMiddle;
  const unexpected = Object.values(load.unexpected).reduce((sum, n) => sum + n, 0);
  const report = {
    seconds: load.seconds,
    concurrency,
    requests: load.requests,
    rate_per_second: Math.round(load.requests / load.seconds),
    unexpected_statuses: unexpected,
    unexpected: load.unexpected,
    socket_errors: load.socketErrors,
    socket_error_samples: load.errorSamples,
    by_kind: load.byKind,
    rss_middle_kib: rssMiddle,
    rss_end_kib: rssEnd,
    rss_growth_percent: Number((growth * 100).toFixed(1)),
    rss_end_within_10_percent: Math.abs(growth) <= RSS_TOLERANCE,
    log_lines: log.lines,
    secrets_in_logs: log.forbidden + errLog.forbidden,
    server_exit_code: serverExit,
  };
  console.log(JSON.stringify(report));
  console.error(
    `soak: ${report.requests} requests in ${report.seconds} s (${report.rate_per_second}/s, ${concurrency} concurrent); ` +
      `unexpected statuses ${unexpected}, socket errors ${report.socket_errors}; RSS middle ${rssMiddle} KiB, end ${rssEnd} KiB ` +
      `(${report.rss_growth_percent}%: ${report.rss_end_within_10_percent ? "within" : "NOT within"} 10%); log lines ${log.lines}, secrets in logs ${report.secrets_in_logs}; server exit ${serverExit}`,
  );
  const rssFailed = seconds >= 60 && !report.rss_end_within_10_percent;
  if (unexpected > 0 || report.socket_errors > 0 || report.secrets_in_logs > 0 || serverExit !== 0 || rssFailed) exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
