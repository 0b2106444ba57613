/**
 * The visibility lag of at most 2 s (docs/api.md, "Incremental sync"), on every store
 * this run tests and on the memory store: a record or tombstone written by an import that
 * took a minute is shown with an `updated_at` (`deleted_at`) at most 2 s before the import
 * committed, so a client that synced while it ran, and asks next for `updated_since` =
 * that sync's start − 5 s, gets every change. The stores' clock is one the test moves: the
 * import "takes" a minute without the test waiting for one.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { emptyTables, publishLate } from "../adapters/memory/memory-tables.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import type { AdminStore } from "../lib/admin-store.ts";
import type { Store } from "../lib/store.ts";
import { ANNUAL, booking, employee, fakeClock } from "./support.ts";
import { closeTestStores, openTestStore, testStoreKind } from "./test-stores.ts";

afterAll(closeTestStores);

type Clock = ReturnType<typeof fakeClock>;
type AnyStore = Store & AdminStore;

const STORES: [string, (clock: Clock) => Promise<AnyStore>][] = [
  [testStoreKind === "postgres" ? "Postgres" : "SQLite", (clock) => openTestStore({ now: clock.now })],
  ["memory", async (clock) => createMemoryStore(undefined, { now: clock.now })],
];

const MINUTE = 60_000;
/** The recipe's skew (docs/api.md, "Incremental sync"). */
const SKEW = 5_000;

async function organisation(store: AnyStore, clock: Clock): Promise<string> {
  const id = crypto.randomUUID();
  await store.createOrganisation({ id, name: "Lag Ltd", api_enabled: true, created_at: clock.now() });
  return id;
}

async function allEmployees(store: Store, organisationId: string, updatedSince?: number) {
  const out = [];
  let after: { updatedAt: number; id: string } | undefined;
  for (;;) {
    const page = await store.listEmployees({ organisationId, filters: { updated_since: updatedSince }, limit: 7, ...(after ? { after } : {}) });
    out.push(...page);
    if (page.length < 7) return out;
    const last = page[page.length - 1]!;
    after = { updatedAt: last.updated_at, id: last.id };
  }
}

describe.each(STORES)("%s", (_name, open) => {
  test("an import that takes a minute shows its changes as of its commit: a sync during it misses none", async () => {
    const clock = fakeClock();
    const store = await open(clock);
    const org = await organisation(store, clock);
    const people = Array.from({ length: 30 }, (_, i) => employee({ first_name: `P${i}` }));
    const gone = people[29]!;
    await store.runImport(async (w) => {
      await w.upsertEmployees(org, people, clock.now());
      await w.upsertLeaveTypes(org, [ANNUAL], clock.now());
      await w.upsertLeaveBookings(org, [booking(people[0]!.id, { id: "0b000000-0000-4000-8000-000000000001" })], clock.now());
    });
    expect((await allEmployees(store, org)).map((e) => e.updated_at)).toEqual(people.map(() => clock.now()));

    clock.advance(MINUTE);
    const started = clock.now();
    let syncedDuring = 0;
    await store.runImport(async (w) => {
      await w.upsertEmployees(
        org,
        people.slice(0, 29).map((p) => ({ ...p, first_name: `${p.first_name}!` })),
        started,
      );
      await w.upsertLeaveBookings(org, [booking(people[0]!.id, { id: "0b000000-0000-4000-8000-000000000001", days: 4 })], started);
      await w.deleteEmployees(org, [gone.id], started);
      // Half-way, a client syncs (on SQLite and Postgres it sees nothing of this import).
      clock.advance(MINUTE / 2);
      syncedDuring = clock.now();
      clock.advance(MINUTE / 2);
    });
    const committed = clock.now();

    // The next sync asks from the one during the import, less the skew.
    const since = syncedDuring - SKEW;
    const changed = await allEmployees(store, org, since);
    expect(changed.map((e) => e.id).sort()).toEqual(
      people
        .slice(0, 29)
        .map((p) => p.id)
        .sort(),
    );
    for (const e of changed) {
      expect(e.first_name).toEndWith("!");
      expect(e.updated_at).toBeGreaterThanOrEqual(committed - 2_000);
      expect(e.updated_at).toBeGreaterThanOrEqual(since);
    }
    // The whole list, in (updated_at, id) order, paged by the shown instants.
    const all = await allEmployees(store, org);
    const order = [...all].sort((a, b) => a.updated_at - b.updated_at || (a.id < b.id ? -1 : 1));
    expect(all.map((e) => e.id)).toEqual(order.map((e) => e.id));
    expect(await store.findEmployee(org, people[0]!.id)).toMatchObject({ updated_at: changed[0]!.updated_at });

    const leave = await store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2026-12-31", updated_since: since }, limit: 10 });
    expect(leave.map((b) => [b.days, b.updated_at >= committed - 2_000])).toEqual([[4, true]]);

    const tombstones = await store.listDeletions({ organisationId: org, resource: "employees", deletedSince: since, limit: 10 });
    expect(tombstones.map((t) => t.id)).toEqual([gone.id]);
    expect(tombstones[0]!.deleted_at).toBeGreaterThanOrEqual(committed - 2_000);
    await store.close();
  });

  test("an import that commits within a second shows the instant it was given", async () => {
    const clock = fakeClock();
    const store = await open(clock);
    const org = await organisation(store, clock);
    const asked = clock.now() - 3_600_000;
    await store.runImport((w) => w.upsertEmployees(org, [employee()], asked));
    expect((await allEmployees(store, org)).map((e) => e.updated_at)).toEqual([asked]);
    await store.close();
  });

  test("imports one after another keep their order however long each took, and a cursor pages across them", async () => {
    const clock = fakeClock();
    const store = await open(clock);
    const org = await organisation(store, clock);
    const batches = [0, 1, 2, 3].map((n) => Array.from({ length: 5 }, (_, i) => employee({ first_name: `B${n}-${i}` })));
    for (const [n, batch] of batches.entries()) {
      const started = clock.now();
      await store.runImport(async (w) => {
        await w.upsertEmployees(org, batch, started);
        // Imports 0 and 2 take ten seconds; 1 and 3 are quick.
        if (n % 2 === 0) clock.advance(10_000);
      });
      clock.advance(1);
    }
    const all = await allEmployees(store, org);
    expect(all).toHaveLength(20);
    const importOf = (name: string) => Number(name.slice(1, 2));
    const imports = all.map((e) => importOf(e.first_name ?? ""));
    expect(imports).toEqual([...imports].sort());
    const instants = all.map((e) => e.updated_at);
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    // From any shown instant, exactly the records shown at or after it.
    for (const at of new Set(instants)) {
      expect((await allEmployees(store, org, at)).length).toBe(instants.filter((i) => i >= at).length);
    }
    await store.close();
  });
});

describe("SQL store only", () => {
  test("two imports of one organisation at the same time both land, the later one stamped after the earlier one published", async () => {
    const clock = fakeClock();
    const store: SqlAdminStore = await openTestStore({ now: clock.now });
    const org = await organisation(store, clock);
    const first = Array.from({ length: 3 }, () => employee());
    const second = Array.from({ length: 3 }, () => employee());
    const asked = clock.now();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let wrote!: () => void;
    const firstWrote = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const a = store.runImport(async (w) => {
      await w.upsertEmployees(org, first, asked);
      wrote();
      await gate;
      clock.advance(5_000);
    });
    // An import takes its lock at its first write: the second starts once the first holds it.
    await firstWrote;
    const b = store.runImport((w) => w.upsertEmployees(org, second, asked));
    release();
    await Promise.all([a, b]);
    const all = await allEmployees(store, org);
    expect(all).toHaveLength(6);
    const shown = (ids: string[]) => all.filter((e) => ids.includes(e.id)).map((e) => e.updated_at);
    // The first publishes at its commit; the second, stamped with the same `now`, comes after it.
    expect(Math.min(...shown(second.map((e) => e.id)))).toBeGreaterThan(Math.max(...shown(first.map((e) => e.id))));
  });
});

test("the memory store shifts every record of a long import of 150,000 at its swap", () => {
  const before = emptyTables();
  const after = emptyTables();
  for (let i = 0; i < 150_000; i++) {
    const id = `e${i}`;
    after.employees.set(id, { ...employee({ id }), organisation_id: "o", updated_at: 1_000, deleted: false } as never);
  }
  publishLate(before, after, 60_000, 61_000);
  expect((after.employees.get("e149999") as unknown as { updated_at: number }).updated_at).toBe(61_000);
});
