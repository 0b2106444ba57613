/**
 * The processes a benchmark drives: the `leaveapi` command line (or the binary named by
 * LEAVEAPI_BIN), servers that say where they listen on a line of output, and their RSS.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
export const CLI = process.env.LEAVEAPI_BIN ? [process.env.LEAVEAPI_BIN] : [process.execPath, join(ROOT, "scripts/cli.ts")];

/** Resident set size of a process in KiB, from /proc (Linux). */
export function rssKib(pid: number): number {
  return statusKib(pid, "VmRSS");
}

/** The anonymous part of a process's resident memory (heaps, caches), without mapped files such as the executable. */
export function anonymousRssKib(pid: number): number {
  return statusKib(pid, "RssAnon");
}

function statusKib(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no ${field} for process ${pid}`);
  return Number(match[1]);
}

export interface CliRun {
  stdout: string;
  seconds: number;
  /** Peak resident set size of the command, in KiB. */
  maxRssKib: number;
}

/** Runs `leaveapi ARGS` (`command`: another checkout's); a non-zero exit is an error that carries the command's stderr. */
export async function runCli(args: string[], env: Record<string, string> = {}, command: string[] = CLI): Promise<CliRun> {
  const started = performance.now();
  const proc = Bun.spawn([...command, ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`leaveapi ${args.join(" ")} exited ${code}: ${stderr.trim()}`);
  // Bun reports the peak resident set in bytes.
  return { stdout, seconds, maxRssKib: Math.round(Number(proc.resourceUsage()?.maxRSS ?? 0) / 1024) };
}

export interface RunningServer {
  url: string;
  pid: number;
  stop: () => Promise<number>;
}

/**
 * Starts a server process and waits for the line that names its URL
 * (`leaveapi serving http://…` from leaveapi, on stderr; `reference serving http://…` from the
 * references). With `stdoutFile`, the server's stdout (leaveapi's request log) goes there.
 */
export async function startServer(command: string[], env: Record<string, string> = {}, stdoutFile?: string): Promise<RunningServer> {
  // A log to a file costs the server what a log to journald or a file does, and this process nothing.
  const stdout = stdoutFile ? Bun.file(stdoutFile) : "pipe";
  const proc = Bun.spawn(command, { stdout, stderr: "pipe", env: { ...process.env, ...env } });
  const seen = { text: "" };
  const watch = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) if (seen.text.length < 10_000) seen.text += decoder.decode(chunk, { stream: true });
  };
  if (proc.stdout instanceof ReadableStream) void watch(proc.stdout);
  void watch(proc.stderr);
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(20)) {
    const url = /serving (http:\/\/[^\s/]+)/.exec(seen.text)?.[1];
    if (url) {
      return {
        url,
        pid: proc.pid,
        stop: async () => {
          proc.kill("SIGTERM");
          return proc.exited;
        },
      };
    }
    if (proc.exitCode !== null) break;
  }
  proc.kill("SIGKILL");
  throw new Error(`${command.join(" ")} did not start: ${seen.text.slice(0, 2000)}`);
}
