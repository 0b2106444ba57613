/**
 * Runs the `leaveapi` command line (this checkout's, or another's `scripts/cli.ts`) and
 * measures its peak RSS from inside (peak-rss-report.ts) and its time; a run past
 * `maxSeconds`, or whose RSS passes `maxRssMb`, is stopped (`stopped` says which), its
 * RSS watched from /proc as it runs. Linux only (/proc).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const REPORT = join(import.meta.dir, "peak-rss-report.ts");

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  peakMb: number;
  /** Why the run was stopped, when a limit stopped it. */
  stopped?: string;
}

export async function runMeasured(args: string[], options: { checkout?: string; maxSeconds?: number; maxRssMb?: number } = {}): Promise<MeasuredRun> {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-peak-rss-"));
  const report = join(dir, "peak");
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, "--preload", REPORT, join(options.checkout ?? ROOT, "scripts/cli.ts"), ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", LEAVEAPI_PEAK_RSS_FILE: report },
  });
  let watchedKib = 0;
  let stopped: string | undefined;
  const watch = setInterval(() => {
    try {
      watchedKib = Math.max(watchedKib, Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0));
    } catch {
      return;
    }
    const seconds = (performance.now() - started) / 1000;
    if (options.maxRssMb !== undefined && watchedKib > options.maxRssMb * 1000) stopped = `stopped past ${options.maxRssMb} MB`;
    else if (options.maxSeconds !== undefined && seconds > options.maxSeconds) stopped = `stopped past ${options.maxSeconds} s`;
    if (stopped) proc.kill("SIGKILL");
  }, 50);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const seconds = (performance.now() - started) / 1000;
    const reported = existsSync(report) ? Number(readFileSync(report, "utf8")) : 0;
    return { code, stdout, stderr, seconds, peakMb: Math.max(reported, watchedKib) / 1000, ...(stopped ? { stopped } : {}) };
  } finally {
    clearInterval(watch);
    rmSync(dir, { recursive: true, force: true });
  }
}
