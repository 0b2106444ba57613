/**
 * Sync never loses a change (issues 6 and 17), on SQLite and on Postgres. A child process
 * (test/sync-writer.ts) keeps changing the data through the importer: employee updates,
 * deletions and re-imports, new employees, booking updates, start_date edits, deletions,
 * new bookings, switches to and from a non-annual leave type, leave-type renames. Against
 * a running `leaveapi serve`, the client's sync() runs again and again, twice in each round
 * while the writer is changing things and once more after it has paused. The mirror is
 * built from incremental syncs only: each sync's records upserted by id and the ids its
 * deletions feed reports dropped (docs/api.md, "GET /v1/deletions"); no sync but the first
 * is a full read. At each pause the mirror must equal a full read of the API, field for
 * field, with nothing dropped first. 200 rounds per store, zero differences.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createClient, type Employee, type LeaveApiClient, type LeaveBooking } from "../client/index.ts";
import { runJson, scratchDir, startServer } from "./cli-harness.ts";
import { scratchDatabases } from "./pg-scratch.ts";

const ROUNDS = 200;
/** Two years: each sync reads leave in two windows of the API's 400 days. */
const RANGE = { from: "2026-01-01", to: "2027-12-31" };
/**
 * Pages small enough that a sync pages several times (it re-reads the last 5 s of changes,
 * the skew) while records move between pages under it; a full read at a pause is one read.
 */
const SYNC_LIMIT = 40;
const FULL_LIMIT = 500;
/**
 * Tighter than the client's default 5 s: a sync re-reads every change of the last skew,
 * which would hide, for that long, a record that became visible without its updated_at
 * moving. 2 s still covers what the skew is for here (one machine, so no clock difference;
 * the few milliseconds between an import taking its time stamp and committing).
 */
const SKEW_MS = 2000;
const WRITER = join(import.meta.dir, "sync-writer.ts");

interface WriterModel {
  employees: string[];
  leaveRequests: string[];
  counts: Record<string, number>;
}

/** The writer child: orders on stdin, replies and `w` (one per committed change) on stdout. */
function spawnWriter(dbArgs: string[], org: string) {
  const proc = Bun.spawn([process.execPath, WRITER, ...dbArgs, "--org", org], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
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

interface Mirror {
  employees: Map<string, Employee>;
  leave: Map<string, LeaveBooking>;
  since?: string;
  /** What the syncs did: changes applied, deletions applied, full reads. */
  tally: { changes: number; deletions: number; fullReads: number };
}

async function syncInto(api: LeaveApiClient, mirror: Mirror): Promise<void> {
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

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Every difference between the mirror and a full read, nothing dropped first. */
function compare<T extends { id: string }>(kind: string, round: number, mirror: Map<string, T>, full: T[]): string[] {
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

async function proveSyncNeverLosesAChange(label: string, dbArgs: string[]): Promise<void> {
  const org = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", "Sync Ltd"])).id;
  await runJson([...dbArgs, "org", "enable-api", org]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...dbArgs, "credentials", "create", "--org", org]);
  const writer = spawnWriter(dbArgs, org);
  const server = await startServer(dbArgs).catch(async (error: unknown) => {
    await writer.stop();
    throw error;
  });
  try {
    const ready = await writer.line();
    expect(ready).toMatch(/^ready \d+$/);
    const seed = ready.slice("ready ".length);
    const api = createClient({ baseUrl: server.baseUrl, clientId: creds.client_id, clientSecret: creds.client_secret });
    const mirror: Mirror = { employees: new Map(), leave: new Map(), tally: { changes: 0, deletions: 0, fullReads: 0 } };
    await syncInto(api, mirror);
    const differences: string[] = [];
    let model: WriterModel | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      const before = writer.writes();
      writer.send("go");
      // Syncs while changes are being made: one at once, one after at least one change.
      await syncInto(api, mirror);
      await writer.writesReach(before + 1);
      await syncInto(api, mirror);
      writer.send("pause");
      const reply = await writer.line();
      expect(reply).toStartWith("paused ");
      model = JSON.parse(reply.slice("paused ".length)) as WriterModel;
      // The data is still: one more sync, then the full read it must equal.
      await syncInto(api, mirror);
      const fullEmployees = await collect(api.employees({ limit: FULL_LIMIT }));
      const fullLeave = await collect(api.leaveRequests({ ...RANGE, limit: FULL_LIMIT }));
      // The API lists exactly what the writer made (so the comparison below is about the sync).
      expect(fullEmployees.map((e) => e.id).sort()).toEqual([...model.employees].sort());
      expect(fullLeave.map((b) => b.id).sort()).toEqual([...model.leaveRequests].sort());
      differences.push(...compare("employee", round, mirror.employees, fullEmployees), ...compare("booking", round, mirror.leave, fullLeave));
    }
    // The seed replays the writer's choices: bun test/sync-writer.ts … --seed SEED.
    expect({ seed, differences: differences.slice(0, 10) }).toEqual({ seed, differences: [] });
    // Every kind of change happened, many times over, and deletions reached the mirror.
    const kinds = [
      "employee update",
      "employee deletion",
      "employee re-import",
      "new employee",
      "booking update",
      "start_date edit",
      "booking deletion",
      "new booking",
      "leave type switch",
      "leave type rename",
    ];
    expect(kinds.filter((kind) => !(model!.counts[kind]! > 0))).toEqual([]);
    expect(writer.writes()).toBeGreaterThan(ROUNDS * 2);
    // Deletions reached the mirror through the feed alone; only the first sync read everything.
    expect(mirror.tally.deletions).toBeGreaterThan(0);
    expect(mirror.tally.fullReads).toBe(1);
    console.log(
      `sync ${label}: ${ROUNDS} rounds, ${writer.writes()} changes written, ${mirror.tally.changes} records applied, ${mirror.tally.deletions} deletions applied, ${mirror.tally.fullReads} full read`,
    );
  } finally {
    expect(await writer.stop()).toBe(0);
    expect(await server.stop()).toBe(0);
  }
}

describe("sync() never loses a change", () => {
  test("on SQLite", async () => {
    const scratch = scratchDir();
    try {
      await proveSyncNeverLosesAChange("SQLite", ["--db", join(scratch.dir, "sync.sqlite")]);
    } finally {
      scratch.dispose();
    }
  }, 180_000);

  const scratchDatabase = scratchDatabases("sync");
  test("on Postgres", async () => {
    await proveSyncNeverLosesAChange("Postgres", ["--database-url", await scratchDatabase()]);
  }, 180_000);
});
