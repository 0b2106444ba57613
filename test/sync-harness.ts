/**
 * What the sync end-to-end tests share (test/sync.e2e.test.ts, test/restricted-sync.e2e.test.ts):
 * the writer child (test/sync-writer.ts) driven over its pipes, a mirror kept by the
 * client's sync(), and the comparison of a mirror with a full read.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Employee, LeaveApiClient, LeaveBooking } from "../client/index.ts";
import { scratchDir, startServer } from "./cli-harness.ts";
import { scratchDatabases } from "./pg-scratch.ts";

/** Two years: each sync reads leave in two windows of the API's 400 days. */
export const RANGE = { from: "2026-01-01", to: "2027-12-31" };
/**
 * Pages small enough that a sync pages several times (it re-reads the last 5 s of changes,
 * the skew) while records move between pages under it; a full read at a pause is one read.
 */
export const SYNC_LIMIT = 40;
export const FULL_LIMIT = 500;
/**
 * Tighter than the client's default 5 s: a sync re-reads every change of the last skew,
 * which would hide, for that long, a record that became visible without its updated_at
 * moving. 2 s still covers what the skew is for here (one machine, so no clock difference;
 * the few milliseconds between an import taking its time stamp and committing).
 */
export const SKEW_MS = 2000;
const WRITER = join(import.meta.dir, "sync-writer.ts");

export interface WriterModel {
  employees: string[];
  leaveRequests: string[];
  counts: Record<string, number>;
}

/** The writer child: orders on stdin, replies and `w` (one per committed change) on stdout. */
export function spawnWriter(dbArgs: string[], org: string, extra: string[] = []) {
  const proc = Bun.spawn([process.execPath, WRITER, ...dbArgs, "--org", org, ...extra], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const lines: string[] = [];
  let writes = 0;
  let wake: () => void = () => {};
  const exited = proc.exited.then((code) => {
    wake();
    return code;
  });
  void (async () => {
    let pending = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      let at: number;
      while ((at = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        if (line === "w") writes++;
        else lines.push(line);
      }
      wake();
    }
  })();
  /** Resolves when `ready()` holds; fails if the writer dies first. */
  async function until<T>(ready: () => T | undefined): Promise<T> {
    for (;;) {
      const value = ready();
      if (value !== undefined) return value;
      if (proc.exitCode !== null) throw new Error(`the writer exited ${proc.exitCode}: ${stderr}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    send: (order: string) => {
      proc.stdin.write(`${order}\n`);
      proc.stdin.flush();
    },
    line: () => until(() => lines.shift()),
    writes: () => writes,
    writesReach: (n: number) => until(() => (writes >= n ? true : undefined)),
    stop: async () => {
      if (proc.exitCode === null) {
        proc.stdin.write("quit\n");
        proc.stdin.flush();
      }
      return exited;
    },
  };
}

export interface Mirror {
  employees: Map<string, Employee>;
  leave: Map<string, LeaveBooking>;
  since?: string;
  /** What the syncs did: changes applied, deletions applied, full reads. */
  tally: { changes: number; deletions: number; fullReads: number };
}

export async function syncInto(api: LeaveApiClient, mirror: Mirror): Promise<void> {
  const result = await api.sync({ ...RANGE, since: mirror.since, limit: SYNC_LIMIT, skewMs: SKEW_MS });
  if (result.full) {
    mirror.employees.clear();
    mirror.leave.clear();
    mirror.tally.fullReads++;
  }
  for (const e of result.employees) mirror.employees.set(e.id, e);
  for (const b of result.leaveRequests) mirror.leave.set(b.id, b);
  for (const id of result.deletedEmployees) mirror.employees.delete(id);
  for (const id of result.deletedLeaveRequests) mirror.leave.delete(id);
  mirror.tally.changes += result.employees.length + result.leaveRequests.length;
  mirror.tally.deletions += result.deletedEmployees.length + result.deletedLeaveRequests.length;
  mirror.since = result.since;
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Every difference between the mirror and a full read, nothing dropped first. */
export function compare<T extends { id: string }>(kind: string, round: number, mirror: Map<string, T>, full: T[]): string[] {
  const fullIds = new Set(full.map((r) => r.id));
  const differences: string[] = [];
  for (const id of mirror.keys()) if (!fullIds.has(id)) differences.push(`round ${round}: ${kind} ${id} is in the mirror but no longer listed`);
  for (const record of full) {
    const mine = mirror.get(record.id);
    if (!mine) differences.push(`round ${round}: ${kind} ${record.id} missing from the mirror`);
    else if (JSON.stringify(mine) !== JSON.stringify(record))
      differences.push(`round ${round}: ${kind} ${record.id} differs: mirror ${JSON.stringify(mine)} vs API ${JSON.stringify(record)}`);
  }
  return differences;
}

/** `prove` on a fresh SQLite file and on a fresh Postgres database, as one describe block of two tests. */
export function onBothStores(title: string, name: string, prove: (label: string, dbArgs: string[]) => Promise<void>, timeoutMs: number): void {
  describe(title, () => {
    test(
      "on SQLite",
      async () => {
        const scratch = scratchDir();
        try {
          await prove("SQLite", ["--db", join(scratch.dir, `${name}.sqlite`)]);
        } finally {
          scratch.dispose();
        }
      },
      timeoutMs,
    );

    const scratchDatabase = scratchDatabases(name);
    test(
      "on Postgres",
      async () => {
        await prove("Postgres", ["--database-url", await scratchDatabase()]);
      },
      timeoutMs,
    );
  });
}

/** The writer child for the organisation and a `leaveapi serve` on the same store, once the writer's first data is in; `seed` replays its choices. */
export async function startWriterAndServer(dbArgs: string[], org: string, extra: string[] = []) {
  const writer = spawnWriter(dbArgs, org, extra);
  const server = await startServer(dbArgs).catch(async (error: unknown) => {
    await writer.stop();
    throw error;
  });
  const ready = await writer.line().catch(async (error: unknown) => {
    await Promise.all([writer.stop(), server.stop()]);
    throw error;
  });
  expect(ready).toMatch(/^ready \d+$/);
  const stop = async () => {
    expect(await writer.stop()).toBe(0);
    expect(await server.stop()).toBe(0);
  };
  return { writer, server, seed: ready.slice("ready ".length), stop };
}
