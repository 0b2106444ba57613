/**
 * Tombstones are swept once older than the deletions feed answers for (docs/api.md, "GET
 * /v1/deletions"), and the sweep never takes one that a request the feed accepts could ask
 * for: not at the 410 boundary, not for a request whose check ran just before the sweep or
 * on an instance whose clock runs behind. The store's sweep runs on the store this run
 * tests (LEAVEAPI_TEST_STORE) and on the memory store; the timer `leaveapi serve` runs it
 * on (scripts/serve/housekeeping.ts) is driven by hand, with no real time passing.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { formatInstant } from "../lib/dates.ts";
import { deletionSweepBefore } from "../lib/deletion-pages.ts";
import { StoreUnavailableError } from "../lib/errors.ts";
import type { Store } from "../lib/store.ts";
import { DELETION_SWEEP_EVERY_MS, sweepDeletionsRegularly } from "../scripts/serve/housekeeping.ts";
import { handTimer, recordingLogger, settle } from "./sweep-timer.ts";
import { ok, softDelete, type Page } from "./data-fixtures.ts";
import { authorisedOrganisation, createWorld, employee, requestToken, seed } from "./support.ts";
import { standardFixture, STANDARD_IDS, U, writeFixture } from "../testing/contract-fixture.ts";
import { testStoreKind } from "./test-stores.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const RETENTION_DAYS = 7;

interface DeletionJson {
  id: string;
  deleted_at: string;
}

describe(`the sweep and the 410 boundary agree (${testStoreKind})`, () => {
  /**
   * An employee deleted at `deletedAt`, on a server that keeps tombstones RETENTION_DAYS,
   * and `feedAt(now, updatedSince)`: the feed as a request at `now` answers it (a new token
   * each time, as the clock moves days).
   */
  async function world() {
    const w = await createWorld({ deletionRetentionDays: RETENTION_DAYS });
    const org = await authorisedOrganisation(w);
    const e = employee();
    await seed(w, org.organisationId, { employees: [e] });
    w.clock.advance(1000);
    const deletedAt = w.clock.now();
    await softDelete(w, org.organisationId, { employees: [e.id] });
    const feedAt = async (now: number, updatedSince: number): Promise<{ status: number; ids: string[] }> => {
      w.clock.set(now);
      const token = (await requestToken(w, org.client)).body.access_token as string;
      const res = await w.call(`/v1/deletions?resource=employees&updated_since=${encodeURIComponent(formatInstant(updatedSince))}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (res.status !== 200) return { status: res.status, ids: [] };
      return { status: 200, ids: (await ok<Page<DeletionJson>>(res)).data.map((d) => d.id) };
    };
    const sweepAt = async (now: number) => {
      const logger = recordingLogger();
      const sweeps = sweepDeletionsRegularly({ store: w.store, logger, retentionDays: RETENTION_DAYS, now: () => now, ...handTimer() });
      await sweeps.sweep();
      sweeps.stop();
      expect(logger.events.filter((e) => e.level === "warn")).toEqual([]);
    };
    return { w, e, organisationId: org.organisationId, deletedAt, feedAt, sweepAt };
  }

  test("at every instant, a request the feed accepts finds the tombstone: the sweep takes it only once every such request is 410", async () => {
    const { e, deletedAt, feedAt, sweepAt } = await world();
    const horizonAt = (now: number) => now - RETENTION_DAYS * DAY;
    // From well inside the retention to the day after the grace, an hour at a time around both edges.
    const instants = [deletedAt + DAY, deletedAt + RETENTION_DAYS * DAY, deletedAt + RETENTION_DAYS * DAY + 1];
    for (let h = 1; h <= 26; h++) instants.push(deletedAt + RETENTION_DAYS * DAY + h * HOUR);
    for (const now of instants) {
      await sweepAt(now);
      // Asked from the oldest instant accepted now, and by a request whose check ran half a
      // day earlier (a slow request, or an instance whose clock is behind).
      for (const askedAt of [now, now - 12 * HOUR]) {
        const answer = await feedAt(askedAt, horizonAt(askedAt));
        if (horizonAt(askedAt) <= deletedAt) expect({ askedAt, ...answer }).toEqual({ askedAt, status: 200, ids: [e.id] });
        else expect({ askedAt, ...answer }).toEqual({ askedAt, status: 200, ids: [] });
      }
      // From the deletion itself: the tombstone, or 410 once no longer accepted.
      const fromDeletion = await feedAt(now, deletedAt);
      if (fromDeletion.status === 200) expect(fromDeletion.ids).toEqual([e.id]);
      else expect(fromDeletion.status).toBe(410);
    }
    // The last sweeps were past the grace: the store no longer holds it.
    expect(deletionSweepBefore(instants[instants.length - 1]!, RETENTION_DAYS)).toBeGreaterThan(deletedAt);
  });

  test("the store's own listing loses the tombstone exactly when the sweep's `before` passes it", async () => {
    const { w, organisationId, deletedAt, sweepAt } = await world();
    const listed = async () => (await w.store.listDeletions({ organisationId, resource: "employees", deletedSince: 0, limit: 10 })).length;
    const keptUntil = deletedAt + (RETENTION_DAYS + 1) * DAY;
    await sweepAt(keptUntil);
    expect(await listed()).toBe(1);
    await sweepAt(keptUntil + 1);
    expect(await listed()).toBe(0);
  });
});

describe("the stores sweep (beyond the contract, which lets a host keep its tombstones)", () => {
  const sweptBy = async (store: Store) => {
    expect(await store.sweepDeletions(U[6])).toBe(1);
    expect(await store.listDeletions({ organisationId: STANDARD_IDS.orgA, resource: "leave-requests", deletedSince: 0, limit: 10 })).toEqual([
      { id: STANDARD_IDS.bookings.ofDeletedEmployee, deleted_at: U[6] },
    ]);
    expect(await store.sweepDeletions(U[6] + 1)).toBe(2);
  };
  test("memory", async () => {
    await sweptBy(createMemoryStore(standardFixture()));
  });
  test(testStoreKind, async () => {
    const w = await createWorld();
    await writeFixture(w.store, standardFixture());
    await sweptBy(w.store);
  });
});

describe("the sweep on a timer (leaveapi serve)", () => {
  test("sweeps at the start and then hourly, a day past the retention, on a timer that does not keep the process alive", async () => {
    const befores: number[] = [];
    const store = {
      sweepDeletions: async (before: number) => {
        befores.push(before);
        return befores.length === 1 ? 3 : 0;
      },
    };
    const timer = handTimer();
    const logger = recordingLogger();
    const T = Date.parse("2026-06-01T00:00:00.000Z");
    sweepDeletionsRegularly({ store, logger, now: () => T, ...timer });
    await settle();
    expect(timer.state.everyMs).toBe(DELETION_SWEEP_EVERY_MS);
    expect(DELETION_SWEEP_EVERY_MS).toBe(HOUR);
    expect(timer.state.unrefed).toBe(true);
    timer.state.run!();
    await settle();
    // The default retention, 90 days, and a day's grace.
    expect(befores).toEqual([T - 91 * DAY, T - 91 * DAY]);
    expect(logger.events).toEqual([{ level: "debug", event: "deletions_swept", message: "swept 3 deletions-feed tombstones older than 90 days" }]);
  });

  test("a failed sweep is logged as a warning event, never thrown, and the next tick sweeps again; it stops with the server", async () => {
    let calls = 0;
    const store = {
      sweepDeletions: async () => {
        if (++calls === 1) throw new StoreUnavailableError();
        return 0;
      },
    };
    let stopSignal = (_: string) => {};
    const until = new Promise<string>((resolve) => (stopSignal = resolve));
    const timer = handTimer();
    const logger = recordingLogger();
    sweepDeletionsRegularly({ store, logger, until, ...timer });
    await settle();
    timer.state.run!();
    await settle();
    expect(calls).toBe(2);
    expect(logger.events).toHaveLength(1);
    expect(logger.events[0]).toMatchObject({ level: "warn", event: "deletion_sweep_failed" });
    expect(logger.events[0]!.message).toContain("StoreUnavailableError");
    stopSignal("SIGTERM");
    await settle();
    expect(timer.state.cleared).toBe(true);
  });
});
