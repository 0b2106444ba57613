/**
 * What an organisation does every night, as it does it (issue 23):
 * `leaveapi serve` answers while `leaveapi import` loads a large leave file that adds,
 * changes and deletes bookings, and a second organisation imports its employees at the
 * same time. Meanwhile a client mirrors the first organisation with the documented sync
 * recipe through `leaveapi/client` every 500 ms, and other clients ask for a token every
 * second. It fails on one change or deletion the mirror missed, one failed token request,
 * or one token slower than a second. On SQLite and on Postgres.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, type Employee, type LeaveApiClient, type LeaveBooking } from "leaveapi/client";
import { CLI, runJson, scratchDir, startServer } from "./cli-harness.ts";
import { scratchDatabases } from "./pg-scratch.ts";

const RANGE = { from: "2026-01-01", to: "2027-12-31" };
const SYNC_EVERY_MS = 500;
const TOKEN_EVERY_MS = 1000;
/** Token requests rotate over this many credentials, so that none meets the limit of 10 a minute. */
const TOKEN_CLIENTS = 8;
const EMPLOYEES = 4000;
/** Bookings there before the import: it changes a third of them and deletes a third. */
const EARLIER_BOOKINGS = 3000;

const scratch = scratchDir();
afterAll(() => scratch.dispose());

const isoDay = (dayOfRange: number) => new Date(Date.UTC(2026, 0, 1) + dayOfRange * 86_400_000).toISOString().slice(0, 10);

function bookingRow(n: number, extra: Record<string, unknown> = {}): string {
  const start = (n * 7) % 700;
  return JSON.stringify({
    external_id: `B${n}`,
    employee_external_id: `E${n % EMPLOYEES}`,
    leave_type: { name: "Annual leave", category: "annual", is_paid: true },
    start_date: isoDay(start),
    end_date: isoDay(start + (n % 3)),
    days: 1 + (n % 3),
    status: "approved",
    ...extra,
  });
}

/** The files: the first organisation's employees and earlier bookings, the night's leave file, the second organisation's employees. */
function writeFiles(newBookings: number, otherEmployees: number) {
  const employees = join(scratch.dir, "employees.jsonl");
  const lines: string[] = [];
  for (let n = 0; n < EMPLOYEES; n++)
    lines.push(JSON.stringify({ external_id: `E${n}`, first_name: `First${n}`, last_name: `Last${n}`, status: "active", holiday_calendar: "GB-ENG" }));
  writeFileSync(employees, `${lines.join("\n")}\n`);

  const earlier = join(scratch.dir, "leave-earlier.jsonl");
  lines.length = 0;
  for (let n = 0; n < EARLIER_BOOKINGS; n++) lines.push(bookingRow(n));
  writeFileSync(earlier, `${lines.join("\n")}\n`);

  const night = join(scratch.dir, `leave-night-${newBookings}.jsonl`);
  lines.length = 0;
  for (let n = 0; n < EARLIER_BOOKINGS; n++) {
    if (n % 3 === 1) lines.push(bookingRow(n, { status: "cancelled", cancelled_at: "2026-11-01T08:00:00Z" }));
    else if (n % 3 === 2) lines.push(JSON.stringify({ external_id: `B${n}`, deleted: true }));
  }
  for (let n = EARLIER_BOOKINGS; n < EARLIER_BOOKINGS + newBookings; n++) lines.push(bookingRow(n));
  writeFileSync(night, `${lines.join("\n")}\n`);

  const other = join(scratch.dir, `other-${otherEmployees}.jsonl`);
  lines.length = 0;
  for (let n = 0; n < otherEmployees; n++) lines.push(JSON.stringify({ external_id: `O${n}`, first_name: "Other", last_name: `Person${n}`, status: "active" }));
  writeFileSync(other, `${lines.join("\n")}\n`);
  return { employees, earlier, night, other };
}

interface Mirror {
  employees: Map<string, Employee>;
  leave: Map<string, LeaveBooking>;
  since?: string;
}

async function syncInto(api: LeaveApiClient, mirror: Mirror): Promise<boolean> {
  const result = await api.sync({ ...RANGE, since: mirror.since, limit: 500 });
  if (result.full) {
    mirror.employees.clear();
    mirror.leave.clear();
  }
  for (const e of result.employees) mirror.employees.set(e.id, e);
  for (const b of result.leaveRequests) mirror.leave.set(b.id, b);
  for (const id of result.deletedEmployees) mirror.employees.delete(id);
  for (const id of result.deletedLeaveRequests) mirror.leave.delete(id);
  mirror.since = result.since;
  return result.full;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function differences<T extends { id: string }>(kind: string, mirror: Map<string, T>, full: T[]): string[] {
  const out: string[] = [];
  const listed = new Set(full.map((r) => r.id));
  for (const id of mirror.keys()) if (!listed.has(id)) out.push(`${kind} ${id} is in the mirror but no longer listed`);
  for (const record of full) {
    const mine = mirror.get(record.id);
    if (!mine) out.push(`${kind} ${record.id} missing from the mirror`);
    else if (JSON.stringify(mine) !== JSON.stringify(record)) out.push(`${kind} ${record.id} differs: ${JSON.stringify(mine)} vs ${JSON.stringify(record)}`);
  }
  return out;
}

/** `leaveapi import …`, started now; resolves with its exit, output and when it ended. */
function startImport(dbArgs: string[], org: string, kind: string, file: string) {
  const proc = Bun.spawn([...CLI, ...dbArgs, "import", "--org", org, "--kind", kind, file], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, DATABASE_URL: "", LEAVEAPI_DB: "" },
  });
  const started = Date.now();
  return (async () => {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, output: `${stdout}${stderr}`, started, ended: Date.now() };
  })();
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function importWhileServing(label: string, dbArgs: string[], newBookings: number, otherEmployees: number): Promise<void> {
  const files = writeFiles(newBookings, otherEmployees);
  const org = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", "Night Ltd"])).id;
  const other = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", "Other Ltd"])).id;
  await runJson([...dbArgs, "org", "enable-api", org]);
  const creds: { client_id: string; client_secret: string }[] = [];
  for (let i = 0; i <= TOKEN_CLIENTS; i++) creds.push(await runJson([...dbArgs, "credentials", "create", "--org", org]));
  await runJson([...dbArgs, "import", "--org", org, "--kind", "employees", files.employees]);
  await runJson([...dbArgs, "import", "--org", org, "--kind", "leave", files.earlier]);

  const server = await startServer(dbArgs);
  try {
    const api = createClient({ baseUrl: server.baseUrl, clientId: creds[0]!.client_id, clientSecret: creds[0]!.client_secret });
    const mirror: Mirror = { employees: new Map(), leave: new Map() };
    expect(await syncInto(api, mirror)).toBe(true);
    expect(mirror.leave.size).toBe(EARLIER_BOOKINGS);

    const night = startImport(dbArgs, org, "leave", files.night);
    const second = startImport(dbArgs, other, "employees", files.other);
    let importing = true;
    void night.finally(() => {
      importing = false;
    });

    // The mirror: a sync every 500 ms, the recipe's own way, for as long as the import runs.
    const syncs: { started: number; ended: number }[] = [];
    const mirroring = (async () => {
      while (importing) {
        const started = Date.now();
        expect(await syncInto(api, mirror)).toBe(false);
        syncs.push({ started, ended: Date.now() });
        await pause(started + SYNC_EVERY_MS - Date.now());
      }
    })();
    // Token requests, one a second, each from the next set of credentials.
    const tokens: { status: number; ms: number }[] = [];
    const asking = (async () => {
      for (let i = 0; importing; i++) {
        const { client_id, client_secret } = creds[1 + (i % TOKEN_CLIENTS)]!;
        const started = performance.now();
        const response = await fetch(`${server.baseUrl}/v1/oauth/token`, {
          method: "POST",
          headers: { Authorization: `Basic ${btoa(`${client_id}:${client_secret}`)}`, "Content-Type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials",
        });
        await response.arrayBuffer();
        tokens.push({ status: response.status, ms: performance.now() - started });
        await pause(TOKEN_EVERY_MS - (performance.now() - started));
      }
    })();

    const [nightResult, secondResult] = await Promise.all([night, second]);
    await Promise.all([mirroring, asking]);
    expect({ night: nightResult.code, output: nightResult.output }).toEqual({ night: 0, output: expect.stringContaining("imported") });
    expect({ second: secondResult.code, output: secondResult.output }).toEqual({ second: 0, output: expect.stringContaining("imported") });

    // The syncs that ran wholly while the import had not yet committed: what the test is about.
    const during = syncs.filter((s) => s.started > nightResult.started && s.ended < nightResult.ended).length;
    // One more sync after it, then the mirror must equal a full read.
    await syncInto(api, mirror);
    const fullEmployees = await collect(api.employees({ limit: 500 }));
    const fullLeave = await collect(api.leaveRequests({ ...RANGE, limit: 500 }));
    const missed = [...differences("employee", mirror.employees, fullEmployees), ...differences("booking", mirror.leave, fullLeave)];
    const slowest = Math.max(...tokens.map((t) => t.ms));
    console.log(
      `import while serving, ${label}: night import ${((nightResult.ended - nightResult.started) / 1000).toFixed(1)} s, ${during} syncs during it, ` +
        `${tokens.length} token requests (slowest ${slowest.toFixed(0)} ms), ${missed.length} differences`,
    );
    expect(missed.slice(0, 5)).toEqual([]);
    expect(fullLeave.length).toBe(EARLIER_BOOKINGS / 3 + EARLIER_BOOKINGS / 3 + newBookings);
    expect(during).toBeGreaterThanOrEqual(10);
    expect(tokens.filter((t) => t.status !== 200)).toEqual([]);
    expect(slowest).toBeLessThan(1000);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe("an import while the server answers: the mirror misses nothing, tokens keep coming", () => {
  test("on SQLite", async () => {
    await importWhileServing("SQLite", ["--db", join(scratch.dir, "night.sqlite")], 400_000, 150_000);
  }, 600_000);

  const scratchDatabase = scratchDatabases("night");
  test("on Postgres", async () => {
    await importWhileServing("Postgres", ["--database-url", await scratchDatabase()], 150_000, 60_000);
  }, 600_000);
});
