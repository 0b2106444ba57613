/**
 * Runs the real `leaveapi` command line in a child process, as an operator would:
 * for command-line tests and end-to-end tests against `leaveapi serve`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
/**
 * The command under test: the source through Bun, or a built binary when LEAVEAPI_BIN
 * names one (`LEAVEAPI_BIN=dist/leaveapi bun test` runs the command-line and end-to-end
 * suites against the single executable).
 */
export const CLI = process.env.LEAVEAPI_BIN ? [process.env.LEAVEAPI_BIN] : [process.execPath, join(ROOT, "scripts/cli.ts")];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch directory removed by `dispose()`. */
export function scratchDir(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-test-"));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function runCli(args: string[], options: { cwd?: string; stdin?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const proc = Bun.spawn([...CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", ...options.env },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs one of the repository's scripts through Bun (`bench/run.ts`, `scripts/image.ts`), as a person would. */
export async function runScript(path: string, args: string[]): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, join(ROOT, path), ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs a command that must succeed with --json and returns its parsed output. */
export async function runJson<T = Record<string, unknown>>(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<T> {
  const result = await runCli([...args, "--json"], options);
  if (result.code !== 0) throw new Error(`leaveapi ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface RunningServer {
  baseUrl: string;
  /** Everything the server wrote to stdout and stderr so far. */
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number>;
  /** Sends a signal and returns at once. */
  kill: (signal: NodeJS.Signals) => void;
  /** How the process ended: its exit code, or the signal that ended it. */
  ended: Promise<{ code: number | null; signal: string | null }>;
}

/** Starts `leaveapi serve --port 0` (then `serveArgs`) and resolves once it says where it listens. */
export async function startServer(
  args: string[],
  options: { env?: Record<string, string>; serveArgs?: string[]; command?: string[]; cwd?: string } = {},
): Promise<RunningServer> {
  const proc = Bun.spawn([...(options.command ?? CLI), ...args, "serve", "--port", "0", ...(options.serveArgs ?? [])], {
    cwd: options.cwd ?? ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "", ...options.env },
  });
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const done = Promise.all([collect(proc.stdout), collect(proc.stderr)]);
  const deadline = Date.now() + 20_000;
  let baseUrl: string | undefined;
  while (!baseUrl) {
    baseUrl = /leaveapi serving (https?:\/\/\S+)/.exec(text)?.[1];
    if (baseUrl) break;
    if (proc.exitCode !== null) throw new Error(`leaveapi serve exited ${proc.exitCode}: ${text}`);
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error(`leaveapi serve did not start: ${text}`);
    }
    await Bun.sleep(20);
  }
  return {
    baseUrl,
    output: () => text,
    kill: (signal) => proc.kill(signal),
    ended: proc.exited.then(async () => {
      await done;
      return { code: proc.exitCode, signal: proc.signalCode === null ? null : String(proc.signalCode) };
    }),
    stop: async (signal = "SIGTERM") => {
      proc.kill(signal);
      const code = await proc.exited;
      await done;
      return code;
    },
  };
}

/** A token for these credentials from a running server (client_secret_basic); the request must succeed. */
export async function fetchAccessToken(baseUrl: string, client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
