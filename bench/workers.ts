/**
 * What `serve --workers N` does to throughput: the demo data set in a SQLite file, a real
 * `leaveapi serve` with 1 and then 2 (or the counts given) worker processes, and autocannon
 * (run by Node, in its own process) reading the employees page with a valid token.
 *
 *   bun bench/workers.ts [--workers 1,2] [--connections 50] [--seconds 10] [--path "/v1/employees?limit=50"]
 *
 * On a machine with as many cores as workers, the load generator competes with the server
 * for the CPU: the figures are what this machine can do, not what the server could.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dir, "..");
const CLI = [process.execPath, join(ROOT, "scripts/cli.ts")];
const AUTOCANNON = join(ROOT, "node_modules/autocannon/autocannon.js");

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "1,2" },
    connections: { type: "string", default: "50" },
    seconds: { type: "string", default: "10" },
    path: { type: "string", default: "/v1/employees?limit=50" },
  },
});

async function run(args: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([...CLI, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`leaveapi ${args.join(" ")} exited ${code}: ${err}`);
  return out;
}

/** Starts the server with its request log on (as in production) but sent nowhere. */
async function startServe(db: string, workers: number) {
  const proc = Bun.spawn([...CLI, "--db", db, "serve", "--port", "0", "--workers", String(workers), "--read-rate-limit", "0"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    text += decoder.decode(chunk, { stream: true });
    const url = /leaveapi serving (\S+)/.exec(text)?.[1];
    if (url) return { url, proc };
  }
  throw new Error(`serve did not start: ${text}`);
}

async function token(url: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** CPU seconds used so far by a process and its children (Linux /proc; clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const read = (id: number) => {
    try {
      const fields = readFileSync(`/proc/${id}/stat`, "utf8").split(") ")[1]!.split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  };
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  return read(pid) + children.reduce((sum, child) => sum + read(child), 0);
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  /** CPU the load generator itself used. */
  cpuSeconds?: number;
}

function autocannon(url: string, bearer: string, seconds = values.seconds!): AutocannonResult {
  const args = ["node", AUTOCANNON, "-j", "-c", values.connections!, "-d", seconds, "-H", `Authorization=Bearer ${bearer}`, url];
  const proc = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`autocannon failed: ${proc.stderr.toString()}`);
  const result = JSON.parse(proc.stdout.toString()) as AutocannonResult;
  return { ...result, cpuSeconds: Number(proc.resourceUsage?.cpuTime.total ?? 0) / 1e6 };
}

const dir = mkdtempSync(join(tmpdir(), "leaveapi-workers-bench-"));
try {
  const db = join(dir, "bench.sqlite");
  const demo = JSON.parse(await run(["--db", db, "demo", "--json"], {})) as { client_id: string; client_secret: string };
  console.log(`${values.connections} connections, ${values.seconds} s each, GET ${values.path}`);
  for (const workers of values.workers!.split(",").map(Number)) {
    const server = await startServe(db, workers);
    try {
      const bearer = await token(server.url, demo.client_id, demo.client_secret);
      autocannon(`${server.url}${values.path}`, bearer, "3"); // warm-up: JIT and SQLite page cache
      const cpuBefore = cpuSeconds(server.proc.pid);
      const r = autocannon(`${server.url}${values.path}`, bearer);
      const serverCpu = ((cpuSeconds(server.proc.pid) - cpuBefore) / Number(values.seconds)) * 100;
      const loadCpu = ((r.cpuSeconds ?? 0) / Number(values.seconds)) * 100;
      console.log(
        `workers=${workers}: ${r.requests.average.toFixed(0)} req/s (total ${r.requests.total}), p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ` +
          `non-2xx ${r.non2xx}, errors ${r.errors}; CPU: server ${serverCpu.toFixed(0)} %, load generator ${loadCpu.toFixed(0)} %`,
      );
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
