/**
 * What the fault tests (faults.e2e.test.ts) need to make writes really fail. The tests
 * run as root, where chmod stops nothing, so: a read-only bind mount for a read-only file
 * system, a small tmpfs for a full disk, and `setpriv` to run the command line as `nobody`
 * for a read-only file (an executable of its own, where nobody can reach it). Run as another user, file permissions already bind, and a file
 * size limit (RLIMIT_FSIZE) stands in for the full disk.
 */
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildExecutable } from "../scripts/build.ts";
import { CLI, type CliResult } from "./cli-harness.ts";

export const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

function system(cmd: string[]): void {
  const result = Bun.spawnSync(cmd, { stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${result.stderr.toString()}`);
}

/** Mounts a tmpfs of `bytes` at `dir` (root only); the returned function unmounts it. */
export function mountTmpfs(dir: string, bytes: number): () => void {
  mkdirSync(dir, { recursive: true });
  system(["mount", "-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir]);
  return () => system(["umount", "-l", dir]);
}

/**
 * `source` seen through `target` on a read-only file system: a bind mount remounted
 * read-only when root, else the same directory with its write permissions taken away.
 */
export function readOnlyView(source: string, target: string): { path: string; undo: () => void } {
  if (!IS_ROOT) {
    const files = readdirSync(source).map((name) => join(source, name));
    for (const file of files) chmodSync(file, 0o444);
    chmodSync(source, 0o555);
    return {
      path: source,
      undo: () => {
        chmodSync(source, 0o755);
        for (const file of files) chmodSync(file, 0o644);
      },
    };
  }
  mkdirSync(target, { recursive: true });
  system(["mount", "--bind", source, target]);
  system(["mount", "-o", "remount,bind,ro", target]);
  return { path: target, undo: () => system(["umount", "-l", target]) };
}

/**
 * The command line as `nobody` can run it, when root. The checkout may sit where nobody
 * cannot go (a clone under /root, or in a 0700 directory from `mktemp -d`), and so may
 * LEAVEAPI_BIN: so the executable under test is copied, or built from this checkout, into
 * `dir`, which nobody must be able to reach. Not root: the usual command line.
 */
export async function commandForNobody(dir: string): Promise<string[]> {
  if (!IS_ROOT) return CLI;
  const closed = ancestors(dir).find((d) => (statSync(d).mode & 0o001) === 0);
  if (closed) throw new Error(`nobody cannot reach ${dir}: ${closed} is closed to other users; set TMPDIR to a directory they can enter`);
  const binary = join(dir, "leaveapi");
  if (process.env.LEAVEAPI_BIN) copyFileSync(process.env.LEAVEAPI_BIN, binary);
  // Plain (no minify, no bytecode): the quickest build, and the same program.
  else await buildExecutable({ outfile: binary, minify: false, bytecode: false });
  chmodSync(binary, 0o755);
  return [binary];
}

/** `dir` and every directory above it. */
function ancestors(dir: string): string[] {
  const all = [dir];
  while (dirname(all.at(-1)!) !== all.at(-1)) all.push(dirname(all.at(-1)!));
  return all;
}

export interface Limits {
  /** Run as `nobody` when root, so that file permissions apply: `command` from commandForNobody. */
  unprivileged?: { command: string[] };
  /** RLIMIT_FSIZE in bytes: writes past it fail (SIGXFSZ ignored, so the write returns EFBIG). */
  maxFileBytes?: number;
}

/** Runs the command line under the given limits; resolves when it exits. */
export async function runLimitedCli(args: string[], limits: Limits = {}): Promise<CliResult> {
  let cmd = [...(limits.unprivileged?.command ?? CLI), ...args];
  if (limits.maxFileBytes !== undefined) cmd = ["sh", "-c", `trap '' XFSZ; exec "$@"`, "sh", "prlimit", `--fsize=${limits.maxFileBytes}`, ...cmd];
  if (limits.unprivileged && IS_ROOT) cmd = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...cmd];
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "" } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** `rows` employees as JSONL, external ids `PREFIX-000001`…: large files for the import faults. */
export function writeEmployees(file: string, prefix: string, rows: number): void {
  const lines: string[] = [];
  for (let i = 1; i <= rows; i++) {
    const n = String(i).padStart(6, "0");
    lines.push(
      `{"external_id":"${prefix}-${n}","first_name":"First ${n}","last_name":"Last ${n}","job_title":"Clerk","department":"Operations","status":"active","start_date":"2024-01-15","holiday_calendar":"GB-ENG"}`,
    );
  }
  writeFileSync(file, `${lines.join("\n")}\n`);
}

/** Every row of the tables that hold imported and administrative data, in a stable order. */
export function snapshotTables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readwrite: true, create: false, strict: true });
  try {
    const tables = ["organisations", "api_clients", "employees", "leave_types", "leave_bookings", "closure_days", "public_holidays"];
    return Object.fromEntries(tables.map((t) => [t, db.query(`select * from ${t} order by rowid`).all()]));
  } finally {
    db.close();
  }
}

/** How many employees carry external ids starting with `prefix`. */
export function countImported(file: string, prefix: string): number {
  const db = new Database(file, { readwrite: true, create: false, strict: true });
  try {
    return db.query<{ n: number }, [string]>("select count(*) as n from employees where external_id like ?").get(`${prefix}-%`)!.n;
  } finally {
    db.close();
  }
}

/** A failure a person can act on: one line on stderr, naming the database, no stack trace. */
export function isOneClearLine(stderr: string, database: string): boolean {
  const lines = stderr.trim().split("\n");
  return lines.length === 1 && lines[0]!.startsWith("leaveapi: ") && lines[0]!.includes(database) && !/\n\s+at |unexpected failure/.test(stderr);
}
