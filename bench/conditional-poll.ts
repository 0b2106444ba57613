/**
 * Conditional polling (issue 41; docs/api.md, "Conditional reads"): what a client that
 * syncs every minute costs the server while nothing changes. One sync poll is four
 * requests, the first pages leaveapi/client asks (employees and leave `updated_since` a
 * recent instant, the two deletions feeds from it), all empty on an unchanged organisation.
 *
 * Measured on `leaveapi serve` (request logs on), as bench/run.ts's row 12: the top rate of
 * those requests asked with the ETags their 200s carried (every answer a 304), against R0
 * in interleaved rounds (R0, then the 304s, several times over: a ratio of two runs minutes
 * apart on a shared machine says more about the machine than the server); and the
 * server's CPU time per poll (its four requests) at a fixed rate, asked without If-None-Match (the full, if
 * empty, page: before) and with it (after), read from /proc/PID/stat.
 */
import { readFileSync } from "node:fs";
import type { Target } from "./harness/report.ts";
import type { RunningServer } from "./harness/processes.ts";
import type { WrkRequest, WrkResult } from "./harness/wrk.ts";

type Load = (name: string, url: string, requests: WrkRequest[], options?: { seconds?: number; connections?: number; delayMs?: number }) => Promise<WrkResult>;

/** One contender of interleaved rounds, and bench/run.ts's `interleave`, which loads each in turn, round after round. */
interface Contender {
  name: string;
  url: string;
  requests: WrkRequest[];
}

export interface ConditionalPollOptions {
  server: RunningServer;
  token: string;
  /** R0 (Bun.serve answering constant bytes), listening, and the request it is loaded with. */
  r0: Contender;
  interleave: (contenders: Contender[]) => Promise<WrkResult[][]>;
  /** The leave range a sync asks (inside the bench data's years). */
  range: { from: string; to: string };
  /** The fixed rate's requests a second, and each run's seconds. */
  rate: number;
  seconds: number;
  load: Load;
  log: (text: string) => void;
}

/** The target a 304 poll must reach: half of R0. */
const OF_R0 = 0.5;
/** Each connection's pause at the fixed rate. */
const DELAY_MS = 20;

/** The middle value, or the mean of the two middle ones. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** User and system CPU time of a process so far, in milliseconds (fields 14 and 15 of /proc/PID/stat, in clock ticks of 1/100 s). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name, in parentheses, may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The four first pages of one sync poll, each with the ETag its 200 carries now. */
async function pollRequests(url: string, token: string, range: { from: string; to: string }): Promise<{ plain: WrkRequest[]; tagged: WrkRequest[] }> {
  const since = encodeURIComponent(new Date().toISOString());
  const paths = [
    `/v1/employees?updated_since=${since}`,
    `/v1/deletions?resource=employees&updated_since=${since}`,
    `/v1/leave-requests?from=${range.from}&to=${range.to}&updated_since=${since}`,
    `/v1/deletions?resource=leave-requests&updated_since=${since}`,
  ];
  const authorization = `Bearer ${token}`;
  const plain = paths.map((path) => ({ path, authorization }));
  const tagged: WrkRequest[] = [];
  for (const path of paths) {
    const res = await fetch(url + path, { headers: { Authorization: authorization } });
    const page = (await res.json()) as { data: unknown[] };
    const tag = res.headers.get("etag");
    if (res.status !== 200 || tag === null || page.data.length !== 0)
      throw new Error(`${path} answered ${res.status}, ETag ${tag}, ${page.data.length} records`);
    tagged.push({ path, authorization, ifNoneMatch: tag });
  }
  return { plain, tagged };
}

export async function conditionalPollTarget(options: ConditionalPollOptions): Promise<Target> {
  const { server, load, log } = options;
  const { plain, tagged } = await pollRequests(server.url, options.token, options.range);
  const [r0Runs, topRuns] = await options.interleave([
    options.r0,
    { name: "leaveapi: sync poll pages with If-None-Match (304), top rate", url: server.url, requests: tagged },
  ]);
  const ratios = topRuns!.map((run, i) => run.rps / Math.max(1, r0Runs![i]!.rps)).sort((a, b) => a - b);
  const ofR0 = median(ratios);
  const topRps = Math.round(median(topRuns!.map((r) => r.rps)));
  const r0Rps = Math.round(median(r0Runs!.map((r) => r.rps)));
  const topPlain = await load("leaveapi: the same pages without If-None-Match, top rate", server.url, plain);
  // The floor of any answer through the same server (routing, request log, metrics): what a 304 adds its own work to.
  const floor = await load("leaveapi: GET /livez, top rate", server.url, [{ path: "/livez" }]);
  const connections = Math.max(1, Math.round((options.rate * DELAY_MS) / 1000));
  const perRequest = async (name: string, requests: WrkRequest[]) => {
    const before = cpuMs(server.pid);
    const run = await load(name, server.url, requests, { connections, delayMs: DELAY_MS, seconds: options.seconds });
    return { run, us: ((cpuMs(server.pid) - before) * 1000) / Math.max(1, run.requests) };
  };
  const full = await perRequest(`leaveapi: sync poll pages without If-None-Match at ${options.rate}/s`, plain);
  const conditional = await perRequest(`leaveapi: sync poll pages with If-None-Match at ${options.rate}/s`, tagged);
  const allNotModified = topRuns!.every((r) => r.not_modified === r.requests) && conditional.run.not_modified === conditional.run.requests;
  log(
    `conditional polls: ${topRps} req/s of 304 = ${ofR0.toFixed(2)} × R0; CPU per poll ${(full.us * tagged.length).toFixed(0)} µs without If-None-Match, ${(conditional.us * tagged.length).toFixed(0)} µs with`,
  );
  return {
    id: "12",
    measure: "conditional polling: a sync poll's four first pages (`updated_since`, unchanged organisation) asked with their ETags",
    target: `a 304 poll ≥ ${OF_R0} × R0`,
    measured:
      `${topRps} req/s, every answer 304 = ${ofR0.toFixed(2)} (${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)}) × R0 (${r0Rps}), median of ${ratios.length} interleaved rounds; ` +
      `without If-None-Match ${topPlain.rps} req/s; GET /livez (no store, no token) ${floor.rps} req/s = ${(floor.rps / Math.max(1, r0Rps)).toFixed(2)} × R0; ` +
      `server CPU per poll (${tagged.length} requests) at ${options.rate} req/s: before (full reads, ${full.run.rps} req/s) ${(full.us * tagged.length).toFixed(0)} µs, ` +
      `after (304s, ${conditional.run.rps} req/s) ${(conditional.us * tagged.length).toFixed(0)} µs = ${(conditional.us / Math.max(1e-9, full.us)).toFixed(2)} × before`,
    met: ofR0 >= OF_R0 && allNotModified,
    round: 4,
  };
}
