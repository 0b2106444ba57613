/**
 * Old rate-limit events are swept on a schedule, so the table stays bounded: the events
 * of an address seen once go, however long it stays away; events still inside a window
 * stay. The store's sweep runs on the store this run tests (LEAVEAPI_TEST_STORE); the
 * timer that `leaveapi serve` runs it on (scripts/serve/housekeeping.ts) is driven by
 * hand, with no real time passing.
 */
import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../adapters/memory-store.ts";
import { StoreUnavailableError } from "../lib/errors.ts";
import type { Store } from "../lib/store.ts";
import { RATE_EVENT_SWEEP_EVERY_MS, sweepRateEventsRegularly } from "../scripts/serve/housekeeping.ts";
import { handTimer, recordingLogger, settle } from "./sweep-timer.ts";
import { createClient, createOrganisation, createWorld, type TestWorld } from "./support.ts";
import { grantWithBasic, postToken, rawBasic } from "./oauth-helpers.ts";
import { testStoreKind } from "./test-stores.ts";

const WINDOW = 60_000;

function failFrom(world: TestWorld, remoteAddress: string) {
  return postToken(world, { authorization: rawBasic(`svcc_${"0".repeat(24)}:wrong`), body: { grant_type: "client_credentials" }, remoteAddress });
}

/** How many events of `key` the store still holds, seen through a window far longer than any it counts in. */
async function eventsHeld(store: Store, key: string, now: number): Promise<number> {
  for (let n = 0; ; n++) {
    if ((await store.checkRateLimit(key, now, n + 1, 365 * 86_400_000)).allowed) return n;
  }
}

describe(`the store's sweep (${testStoreKind})`, () => {
  test("the events of a one-off address are gone after the sweep; fresh events stay and still count", async () => {
    const world = await createWorld();
    const client = await createClient(world, await createOrganisation(world));
    for (let i = 0; i < 3; i++) expect((await failFrom(world, "198.51.100.1")).status).toBe(401);
    expect((await grantWithBasic(world, client)).status).toBe(200);
    world.clock.advance(50_000);
    for (let i = 0; i < 2; i++) expect((await failFrom(world, "198.51.100.2")).status).toBe(401);
    world.clock.advance(15_000);
    const now = world.clock.now();

    // The one-off address's failures and the token request are 65 s old; the others 15 s.
    expect(await world.store.sweepRateEvents(now, WINDOW)).toBe(4);
    expect(await eventsHeld(world.store, "auth-failures:198.51.100.1", now)).toBe(0);
    expect(await eventsHeld(world.store, `token-requests:${client.clientId}`, now)).toBe(0);
    expect(await eventsHeld(world.store, "auth-failures:198.51.100.2", now)).toBe(2);
    expect(await world.store.checkRateLimit("auth-failures:198.51.100.2", now, 2, WINDOW)).toEqual({ allowed: false, retryAfterMs: 45_000 });
    expect(await world.store.sweepRateEvents(now, WINDOW)).toBe(0);
  });

  test("an event exactly one window old is swept; one a millisecond younger is kept", async () => {
    const world = await createWorld();
    expect((await failFrom(world, "198.51.100.3")).status).toBe(401);
    world.clock.advance(1);
    expect((await failFrom(world, "198.51.100.4")).status).toBe(401);
    world.clock.advance(WINDOW - 1);
    const now = world.clock.now();
    expect(await world.store.sweepRateEvents(now, WINDOW)).toBe(1);
    expect(await eventsHeld(world.store, "auth-failures:198.51.100.3", now)).toBe(0);
    expect(await eventsHeld(world.store, "auth-failures:198.51.100.4", now)).toBe(1);
  });
});

describe("the sweep on a timer (leaveapi serve)", () => {
  test("runs every minute with the token endpoint's window, on a timer that does not keep the process alive", async () => {
    const T = Date.parse("2026-03-01T09:00:00.000Z");
    const store = createMemoryStore();
    await store.takeRateSlot("auth-failures:203.0.113.9", T, 60, WINDOW);
    await store.takeRateSlot("auth-failures:203.0.113.10", T + 30_000, 60, WINDOW);
    const clock = { now: T + 30_000 };
    const timer = handTimer();
    const logger = recordingLogger();
    sweepRateEventsRegularly({ store, logger, now: () => clock.now, ...timer });
    expect(timer.state.everyMs).toBe(RATE_EVENT_SWEEP_EVERY_MS);
    expect(timer.state.unrefed).toBe(true);

    timer.state.run!();
    await settle();
    expect(await eventsHeld(store, "auth-failures:203.0.113.9", clock.now)).toBe(1);

    clock.now = T + RATE_EVENT_SWEEP_EVERY_MS;
    timer.state.run!();
    await settle();
    expect(await eventsHeld(store, "auth-failures:203.0.113.9", clock.now)).toBe(0);
    expect(await eventsHeld(store, "auth-failures:203.0.113.10", clock.now)).toBe(1);
    expect(logger.events).toEqual([{ level: "debug", event: "rate_events_swept", message: "swept 1 old rate-limit events" }]);
  });

  test("a failed sweep is logged as a warning event, never thrown, and the next tick sweeps again", async () => {
    let calls = 0;
    const store = {
      sweepRateEvents: async () => {
        if (++calls === 1) throw new StoreUnavailableError();
        return 0;
      },
    };
    const timer = handTimer();
    const logger = recordingLogger();
    const sweeps = sweepRateEventsRegularly({ store, logger, ...timer });
    await sweeps.sweep();
    await sweeps.sweep();
    expect(calls).toBe(2);
    expect(logger.events).toHaveLength(1);
    expect(logger.events[0]).toMatchObject({ level: "warn", event: "rate_event_sweep_failed" });
    expect(logger.events[0]!.message).toContain("StoreUnavailableError");
  });

  test("a sweep still running when the next tick comes is not doubled", async () => {
    let calls = 0;
    let finish = () => {};
    const store = {
      sweepRateEvents: () => {
        calls++;
        return new Promise<number>((resolve) => (finish = () => resolve(0)));
      },
    };
    const timer = handTimer();
    sweepRateEventsRegularly({ store, logger: recordingLogger(), ...timer });
    timer.state.run!();
    timer.state.run!();
    expect(calls).toBe(1);
    finish();
    await settle();
    timer.state.run!();
    expect(calls).toBe(2);
  });

  test("stops when the server's stop signal comes, before the store is closed", async () => {
    let stopSignal = (_: string) => {};
    const until = new Promise<string>((resolve) => (stopSignal = resolve));
    const timer = handTimer();
    sweepRateEventsRegularly({ store: createMemoryStore(), logger: recordingLogger(), until, ...timer });
    expect(timer.state.cleared).toBe(false);
    stopSignal("SIGTERM");
    await settle();
    expect(timer.state.cleared).toBe(true);
  });
});
