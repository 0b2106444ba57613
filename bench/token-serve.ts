/**
 * Target 5 of npm run bench on its own: `leaveapi serve` on a fresh SQLite file, 1,000
 * credentials each asked 9 times (under the 10-per-minute limit), wrk with 32 connections
 * sending the requests in order, request logs on and written to a file as bench/run.ts does.
 *
 *   bun bench/token-serve.ts [--clients 1000] [--root DIR]
 *
 * `--quiet` turns the request log off, `--profile DIR` writes the server's CPU profile there. `--root` serves another checkout's code, so that two versions can be measured
 * alternately. Prints wrk's JSON line with the root and the server's CPU time per token
 * (user + system, from /proc), which a busy machine disturbs far less than the rate.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "./harness/processes.ts";
import { createTokenClients } from "./harness/token-clients.ts";
import { runWrk, writeRequests, type WrkRequest } from "./harness/wrk.ts";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "1000" },
    root: { type: "string", default: join(import.meta.dir, "..") },
    /** Request logs off (LOG_LEVEL=warn), as npm run bench ran target 5 until it turned them on. */
    quiet: { type: "boolean", default: false },
    /** Write the server's CPU profile (bun --cpu-prof) into this directory. */
    profile: { type: "string" },
  },
});
const root = resolve(values.root!);
const clientCount = Number(values.clients);
const TOKENS_PER_CLIENT = 9;

const { openSqliteStore } = await import(join(root, "entry/sqlite.ts"));

const dir = mkdtempSync(join(tmpdir(), "leaveapi-token-serve-"));
const file = join(dir, "tokens.sqlite");
const store = openSqliteStore({ filename: file });
const authorizations = await createTokenClients(root, store, clientCount);
await store.close();

const requests: WrkRequest[] = [];
for (let round = 0; round < TOKENS_PER_CLIENT; round++) {
  for (const authorization of authorizations) requests.push({ method: "POST", path: "/v1/oauth/token", authorization, body: "grant_type=client_credentials" });
}
/** CPU seconds a process has used (user + system), from /proc: unlike a rate, it hardly moves with what else the machine runs. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const server = await startServer(
  [
    process.execPath,
    ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${resolve(values.profile)}`] : []),
    join(root, "scripts/cli.ts"),
    "--db",
    file,
    "serve",
    "--port",
    "0",
  ],
  values.quiet ? { LOG_LEVEL: "warn" } : { LOG_LEVEL: "info", LOG_FORMAT: "json" },
  join(dir, "requests.log"),
);
try {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await runWrk({
    url: server.url,
    requestsFile: writeRequests(join(dir, "requests.tsv"), requests),
    seconds: 20,
    connections: 32,
    order: "sequential",
    quota: requests.length,
  });
  const serverCpuUsPerToken = Math.round(((cpuSeconds(server.pid) - cpuBefore) * 1e6) / result.requests);
  console.log(JSON.stringify({ root, logs: !values.quiet, server_cpu_us_per_token: serverCpuUsPerToken, ...result }));
} finally {
  await server.stop();
  rmSync(dir, { recursive: true });
}
