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
import { expect } from "bun:test";
import { createClient } from "../client/index.ts";
import { runJson } from "./cli-harness.ts";
import { collect, compare, FULL_LIMIT, onBothStores, RANGE, startWriterAndServer, syncInto, type Mirror, type WriterModel } from "./sync-harness.ts";

const ROUNDS = 200;

async function proveSyncNeverLosesAChange(label: string, dbArgs: string[]): Promise<void> {
  const org = (await runJson<{ id: string }>([...dbArgs, "org", "create", "--name", "Sync Ltd"])).id;
  await runJson([...dbArgs, "org", "enable-api", org]);
  const creds = await runJson<{ client_id: string; client_secret: string }>([...dbArgs, "credentials", "create", "--org", org]);
  const { writer, server, seed, stop } = await startWriterAndServer(dbArgs, org);
  try {
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
    await stop();
  }
}

onBothStores("sync() never loses a change", "sync", proveSyncNeverLosesAChange, 180_000);
