/**
 * `serve --workers N`: the parent process serves too and starts N-1 copies of itself on
 * the same port (SO_REUSEPORT: the kernel spreads new connections over the processes).
 * The copies re-run the same command line with an internal marker in their environment
 * that gives them the port and tells them not to seed demo data. SQLite in WAL mode lets
 * them all read at once; writes (tokens, rate-limit slots) queue on the busy timeout.
 * Parent and workers talk over Bun's IPC channel (ipc.ts).
 */
import type { Subprocess } from "bun";
import { createIpcPeer, type IpcPeer } from "./ipc.ts";
import { delay, type StopSignal } from "./shutdown.ts";

/** Internal: set by the parent on its workers as `INDEX:PORT`. Not for operators. */
export const WORKER_MARKER = "LEAVEAPI_INTERNAL_WORKER";
const READY = "leaveapi-worker-ready";

export interface WorkerRole {
  index: number;
  port: number;
}

export function workerRole(env: Record<string, string | undefined>): WorkerRole | undefined {
  const match = /^(\d+):(\d+)$/.exec(env[WORKER_MARKER] ?? "");
  return match ? { index: Number(match[1]), port: Number(match[2]) } : undefined;
}

/** In a worker: the channel to the parent, answering its questions with `answer`; the worker stops when the parent is gone. */
export function connectToParent(answer: (method: string) => Promise<unknown>): IpcPeer | undefined {
  if (!process.send) return undefined;
  const peer = createIpcPeer((message) => process.send!(message), answer);
  process.on("message", (message) => peer.receive(message));
  // The parent died without stopping us (SIGKILL, a crash): stop gracefully rather than serve on as an orphan.
  process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));
  return peer;
}

/** Tells the parent this worker listens. */
export function reportReady(): void {
  process.send?.(READY);
}

/** The command that started this process: the compiled binary runs alone, the source needs its script. */
function selfCommand(): string[] {
  const script = Bun.main.startsWith("/$bunfs/") ? [] : [Bun.main];
  return [process.execPath, ...script, ...process.argv.slice(2)];
}

export interface WorkerPool {
  /** Resolves once every worker listens; rejects if one exits first. */
  ready: Promise<void>;
  /** Resolves with a worker's exit code when one exits before `stop` was called. */
  failed: Promise<number>;
  /** Asks every worker; the answers that came within `timeoutMs`. */
  askAll: (method: string, timeoutMs: number) => Promise<unknown[]>;
  /** Passes a signal to every worker still running (SIGHUP: read the TLS files again). */
  signal: (signal: NodeJS.Signals) => void;
  /** Forwards the signal and waits for every worker; kills those still running after `timeoutMs`. True when all exited 0. */
  stop: (signal: StopSignal, timeoutMs: number) => Promise<boolean>;
}

interface Worker {
  proc: Subprocess;
  peer: IpcPeer;
  ready: Promise<void>;
}

function spawnWorker(index: number, port: number, answer: (method: string) => Promise<unknown>): Worker {
  let markReady: () => void = () => {};
  const listening = new Promise<void>((resolve) => (markReady = resolve));
  let peer: IpcPeer | undefined;
  const proc = Bun.spawn(selfCommand(), {
    env: { ...process.env, [WORKER_MARKER]: `${index}:${port}` },
    stdio: ["ignore", "inherit", "inherit"],
    ipc: (message) => (message === READY ? markReady() : peer?.receive(message)),
  });
  peer = createIpcPeer((message) => proc.send(message), answer);
  const exitedFirst = proc.exited.then((code) => Promise.reject(new Error(`worker ${index} exited with code ${code} before it listened`)));
  return { proc, peer, ready: Promise.race([listening, exitedFirst]) };
}

/** Starts `count` workers on `port`; `answer` replies to their questions. */
export function startWorkers(count: number, port: number, answer: (method: string) => Promise<unknown>): WorkerPool {
  let stopping = false;
  let reportFailure: (code: number) => void = () => {};
  const failed = new Promise<number>((resolve) => (reportFailure = resolve));
  const workers = Array.from({ length: count }, (_, i) => spawnWorker(i + 1, port, answer));
  for (const { proc } of workers) void proc.exited.then((code) => stopping || reportFailure(code));
  return {
    ready: Promise.all(workers.map((w) => w.ready)).then(() => {}),
    failed,
    async askAll(method, timeoutMs) {
      const answers = await Promise.all(workers.map((w) => (w.proc.exitCode === null ? w.peer.ask(method, timeoutMs) : undefined)));
      return answers.filter((a) => a !== undefined);
    },
    signal(signal) {
      for (const { proc } of workers) if (proc.exitCode === null) proc.kill(signal);
    },
    async stop(signal, timeoutMs) {
      stopping = true;
      for (const { proc } of workers) if (proc.exitCode === null) proc.kill(signal);
      const all = Promise.all(workers.map((w) => w.proc.exited));
      const codes = await Promise.race([all, delay(timeoutMs).then(() => null)]);
      if (codes) return codes.every((code) => code === 0);
      for (const { proc } of workers) if (proc.exitCode === null) proc.kill("SIGKILL");
      await all;
      return false;
    },
  };
}
