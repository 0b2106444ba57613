/**
 * Restricted credentials stay exact under sync (docs/api.md, "Restricted credentials"), on
 * SQLite and on Postgres. Three credentials made with the real command line: the whole
 * organisation; `--departments Sales`; `--calendars GB-ENG,DE --fields
 * first_name,last_name`. The writer child (test/sync-writer.ts --moves) keeps importing
 * changes that move people between departments and calendars, delete some and add some,
 * while a `leaveapi/client` per credential syncs against a running `leaveapi serve`. At
 * each pause every client's mirror, built from incremental syncs only, must equal a full
 * read through its own credential; and every byte each restricted client ever received
 * (bodies, feed entries, errors) is searched for the ids and names of the people who were
 * never inside its selection, and for field values it may not read. Then probes from
 * outside the selection: an employee id in the path and in `employee_id`, another
 * credential's cursor.
 */
import { expect } from "bun:test";
import { createClient, type LeaveApiClient } from "../client/index.ts";
import { runJson } from "./cli-harness.ts";
import { collect, compare, FULL_LIMIT, onBothStores, RANGE, startWriterAndServer, syncInto, type Mirror, type WriterModel } from "./sync-harness.ts";

const ROUNDS = 60;

type People = Record<string, { names: string[]; departments: string[]; calendars: string[] }>;

interface Credential {
  label: string;
  flags: string[];
  /** Whether someone with these departments and calendars, at some time, was inside the selection (each selection names one list). */
  inside: (p: People[string]) => boolean;
  /** Employee fields the credential reads, beside id and updated_at; null: all. */
  fields: string[] | null;
}

const CREDENTIALS: Credential[] = [
  { label: "whole organisation", flags: [], inside: () => true, fields: null },
  { label: "Sales", flags: ["--departments", "Sales"], inside: (p) => p.departments.includes("Sales"), fields: null },
  {
    label: "GB-ENG and DE, names only",
    flags: ["--calendars", "GB-ENG,DE", "--fields", "first_name,last_name"],
    inside: (p) => p.calendars.some((c) => c === "GB-ENG" || c === "DE"),
    fields: ["first_name", "last_name"],
  },
];

/** A client whose every answer's bytes are kept, as received. */
function recordingClient(baseUrl: string, clientId: string, clientSecret: string) {
  const received: string[] = [];
  const api = createClient({
    baseUrl,
    clientId,
    clientSecret,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      const text = await res.text();
      received.push(text);
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  });
  return { api, received };
}

interface Reader {
  credential: Credential;
  api: LeaveApiClient;
  received: string[];
  mirror: Mirror;
  differences: string[];
}

async function proveRestrictedSyncIsExact(label: string, dbArgs: string[]): Promise<void> {
  const org = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", "Restricted Ltd"])).id;
  await runJson([...dbArgs, "org", "enable-api", org]);
  const made: { client_id: string; client_secret: string }[] = [];
  for (const c of CREDENTIALS)
    made.push(await runJson<{ client_id: string; client_secret: string }>([...dbArgs, "credentials", "create", "--org", org, ...c.flags]));
  const { writer, server, seed, stop } = await startWriterAndServer(dbArgs, org, ["--moves"]);
  try {
    const readers: Reader[] = CREDENTIALS.map((credential, i) => ({
      credential,
      ...recordingClient(server.baseUrl, made[i]!.client_id, made[i]!.client_secret),
      mirror: { employees: new Map(), leave: new Map(), tally: { changes: 0, deletions: 0, fullReads: 0 } },
      differences: [],
    }));
    const syncAll = () => Promise.all(readers.map((r) => syncInto(r.api, r.mirror)));
    await syncAll();
    let model: (WriterModel & { people: People }) | undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      const before = writer.writes();
      writer.send("go");
      await syncAll();
      await writer.writesReach(before + 1);
      await syncAll();
      writer.send("pause");
      const reply = await writer.line();
      expect(reply).toStartWith("paused ");
      model = JSON.parse(reply.slice("paused ".length)) as WriterModel & { people: People };
      await syncAll();
      for (const r of readers) {
        const fullEmployees = await collect(r.api.employees({ limit: FULL_LIMIT }));
        const fullLeave = await collect(r.api.leaveRequests({ ...RANGE, limit: FULL_LIMIT }));
        r.differences.push(...compare("employee", round, r.mirror.employees, fullEmployees), ...compare("booking", round, r.mirror.leave, fullLeave));
        // What each reads is exactly who is inside its selection now.
        const insideNow = fullEmployees.filter((e) => r.credential.inside({ names: [], departments: [e.department!], calendars: [e.holiday_calendar!] }));
        if (r.credential.fields === null)
          expect({ round, label: r.credential.label, outside: fullEmployees.length - insideNow.length }).toEqual({
            round,
            label: r.credential.label,
            outside: 0,
          });
      }
    }
    const people = model!.people;
    // Every credential reads every endpoint once more: one employee, holidays.
    for (const r of readers) {
      const someone = [...r.mirror.employees.keys()][0]!;
      expect((await r.api.getEmployee(someone)).id).toBe(someone);
      await r.api.holidays({ from: "2026-01-01", to: "2026-12-31" });
    }
    // Probes from outside each restricted selection: none reveals anyone.
    const whole = readers[0]!;
    const wholeCursorPage = await fetch(`${server.baseUrl}/v1/employees?limit=1`, {
      headers: { authorization: `Bearer ${await tokenOf(server.baseUrl, made[0]!)}` },
    });
    const wholeCursor = ((await wholeCursorPage.json()) as { next_cursor: string }).next_cursor;
    for (const [i, r] of readers.entries()) {
      if (i === 0) continue;
      const outsiders = Object.entries(people).filter(([, p]) => !r.credential.inside(p));
      expect(outsiders.length).toBeGreaterThan(0);
      const token = await tokenOf(server.baseUrl, made[i]!);
      const probe = async (path: string) => {
        const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const text = await res.text();
        r.received.push(text);
        return { status: res.status, text };
      };
      for (const [id] of outsiders.slice(0, 5)) {
        const alone = await probe(`/v1/employees/${id}`);
        expect({ id, status: alone.status }).toEqual({ id, status: 404 });
        const unknown = await probe(`/v1/employees/${crypto.randomUUID()}`);
        // Outside is answered exactly as unknown.
        expect(alone.text.replace(/"error_description":"[^"]*"/, "")).toBe(unknown.text.replace(/"error_description":"[^"]*"/, ""));
        const leave = await probe(`/v1/leave-requests?from=${RANGE.from}&to=2026-12-31&employee_id=${id}`);
        expect({ id, body: JSON.parse(leave.text) }).toEqual({ id, body: { has_more: false, next_cursor: null, data: [] } });
      }
      const borrowed = await probe(`/v1/employees?limit=1&cursor=${wholeCursor}`);
      expect(borrowed.status).toBe(400);
      // Every byte this client received: no id and no name of anyone never inside its selection.
      const everything = r.received.join("\n");
      const leaked = outsiders.flatMap(([id, p]) => [id, ...p.names]).filter((needle) => everything.includes(needle));
      expect({ label: r.credential.label, leaked }).toEqual({ label: r.credential.label, leaked: [] });
      if (r.credential.fields !== null) {
        // Every employee record it received: the fields it may not read are null.
        const readable = new Set(["id", "updated_at", ...r.credential.fields]);
        let records = 0;
        for (const body of r.received) {
          // A 304 (a conditional poll the client answered from its copy) has no body.
          if (body === "") continue;
          const data = (JSON.parse(body) as { data?: unknown }).data;
          for (const record of (Array.isArray(data) ? data : [data]) as Record<string, unknown>[]) {
            if (record === null || typeof record !== "object" || !("first_name" in record)) continue;
            records++;
            const read = Object.keys(record).filter((k) => !readable.has(k) && record[k] !== null);
            expect({ id: record.id, read }).toEqual({ id: record.id, read: [] });
          }
        }
        expect(records).toBeGreaterThan(0);
      }
    }
    expect(whole.received.length).toBeGreaterThan(0);
    for (const r of readers)
      expect({ seed, label: r.credential.label, differences: r.differences.slice(0, 10) }).toEqual({ seed, label: r.credential.label, differences: [] });
    const moved = (model!.counts["employee update"] ?? 0) + (model!.counts["calendar move"] ?? 0);
    expect(model!.counts["calendar move"]).toBeGreaterThan(0);
    expect(model!.counts["employee deletion"]).toBeGreaterThan(0);
    expect(model!.counts["new employee"]).toBeGreaterThan(0);
    // The restricted clients learnt of people leaving them through the feed, not by reading everything again.
    for (const r of readers.slice(1)) {
      expect(r.mirror.tally.deletions).toBeGreaterThan(0);
      expect(r.mirror.tally.fullReads).toBe(1);
    }
    console.log(
      `restricted sync ${label}: ${ROUNDS} rounds, ${ROUNDS * 3 + 1} syncs per client, ${writer.writes()} changes written (${moved} department or calendar changes), ` +
        readers
          .map(
            (r) =>
              `${r.credential.label}: ${r.mirror.tally.changes} records and ${r.mirror.tally.deletions} deletions applied, ${r.differences.length} differences`,
          )
          .join("; "),
    );
  } finally {
    await stop();
  }
}

/** A token for the credentials, asked directly: the probes are plain requests. */
async function tokenOf(baseUrl: string, creds: { client_id: string; client_secret: string }): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${creds.client_id}:${creds.client_secret}`)}` },
    body: "grant_type=client_credentials",
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

onBothStores("restricted credentials stay exact under sync", "restricted_sync", proveRestrictedSyncIsExact, 240_000);
