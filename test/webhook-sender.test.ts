/**
 * The change-notification sender of `leaveapi serve` (scripts/serve/webhook-sender.ts) on
 * the test store, with a fake clock and a fake POST: which resources an event names for
 * each credential's scopes, the retry schedule, a later change joining a waiting event,
 * the endpoint marked failing after 24 h, and a leased endpoint left alone.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mintClient } from "../lib/credentials.ts";
import { hmacSha256 } from "../lib/cursor-codec.ts";
import type { Scope } from "../lib/scopes.ts";
import { RETRY_FOR_MS } from "../lib/webhooks.ts";
import { webhooksOf } from "../adapters/sql/webhook-queries.ts";
import { startWebhookSender, type WebhookSender } from "../scripts/serve/webhook-sender.ts";
import { booking, createClient, createOrganisation, createWorld, employee, seed, type TestWorld } from "./support.ts";

interface Posted {
  url: string;
  id: string;
  body: { type: string; data: { resources: string[]; changed_since: string } };
}

const senders: WebhookSender[] = [];
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.stop()));
});

async function setUp(answer: () => boolean = () => true) {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const posted: Posted[] = [];
  const outcomes: string[] = [];
  const sender = startWebhookSender({
    store: world.store,
    webhooks: webhooksOf(world.store),
    logger: { event: () => {} },
    counted: (o) => outcomes.push(o),
    mac: hmacSha256,
    now: world.clock.now,
    everyMs: 3_600_000,
    retryBaseMs: 10_000,
    post: async (url, headers, body) => {
      posted.push({ url, id: headers["webhook-id"]!, body: JSON.parse(body) });
      const ok = answer();
      return { ok, status: ok ? 200 : 503, error: ok ? null : "HTTP 503", ms: 1 };
    },
  });
  senders.push(sender);
  const endpointFor = async (scopes: Scope[], name: string) => {
    const client = await createClient(world, org, scopes);
    const endpoint = await webhooksOf(world.store).add({
      id: crypto.randomUUID(),
      client_id: client.clientId,
      organisation_id: org,
      url: `http://receiver.test/${name}`,
      secret: "whsec_MfKQ9r8GKYqrTAzCbHqtUvHoqgdoGLwCNTh0MNdaa9Y=",
      created_at: world.clock.now(),
    });
    return endpoint;
  };
  return { world, org, posted, outcomes, sender, endpointFor };
}

const resourcesBy = (posted: Posted[]) => Object.fromEntries(posted.map((p) => [p.url.split("/").pop(), p.body.data.resources]));

async function change(world: TestWorld, work: Parameters<TestWorld["store"]["runImport"]>[0]) {
  world.clock.advance(60_000);
  await world.store.runImport(work);
}

describe("webhook sender", () => {
  test("each credential hears of what its scopes read: employees, leave, deletions", async () => {
    const { world, org, posted, sender, endpointFor } = await setUp();
    await endpointFor(["employees:read", "leave:read"], "all");
    await endpointFor(["employees:read"], "people");
    await endpointFor(["leave:read"], "leave");
    const ada = employee();
    world.clock.advance(60_000);
    await seed(world, org, { employees: [ada] });
    await sender.tick();
    expect(resourcesBy(posted)).toEqual({ all: ["employees"], people: ["employees"] });

    posted.length = 0;
    const trip = booking(ada.id);
    world.clock.advance(60_000);
    await seed(world, org, { bookings: [trip] });
    await sender.tick();
    expect(resourcesBy(posted)).toEqual({ all: ["leave-requests"], leave: ["leave-requests"] });
    expect(Date.parse(posted[0]!.body.data.changed_since)).toBe(world.clock.now());

    posted.length = 0;
    await change(world, (w) => w.deleteLeaveBookings(org, [trip.id], world.clock.now()));
    await sender.tick();
    expect(resourcesBy(posted)).toEqual({ all: ["deletions"], leave: ["deletions"] });
    posted.length = 0;
    await sender.tick();
    expect(posted).toEqual([]);
  });

  test("a failing receiver: growing waits, a later change joins the waiting event, failing after 24 h", async () => {
    const { world, org, posted, outcomes, sender, endpointFor } = await setUp(() => false);
    const endpoint = await endpointFor(["employees:read", "leave:read"], "down");
    const ada = employee();
    world.clock.advance(60_000);
    await seed(world, org, { employees: [ada] });
    const first = world.clock.now();
    await sender.tick();
    expect(posted.length).toBe(1);
    const listed = async () => (await webhooksOf(world.store).find(endpoint.id))!;
    const wait1 = (await listed()).pending!.next_attempt_at - first;
    expect(wait1).toBeGreaterThanOrEqual(5000);
    expect(wait1).toBeLessThanOrEqual(10_000);

    // Not due yet: nothing sent; a booking meanwhile joins the waiting event under a new id.
    world.clock.advance(1000);
    await seed(world, org, { bookings: [booking(ada.id)] });
    await sender.tick();
    expect(posted.length).toBe(1);
    const joined = (await listed()).pending!;
    expect(joined.resources).toEqual(["employees", "leave-requests"]);
    expect(joined.id).not.toBe(posted[0]!.id);
    expect(joined.changed_since).toBe(first);

    world.clock.set(joined.next_attempt_at);
    await sender.tick();
    expect(posted.length).toBe(2);
    expect(posted[1]!.id).toBe(joined.id);
    const wait2 = (await listed()).pending!.next_attempt_at - world.clock.now();
    expect(wait2).toBeGreaterThanOrEqual(10_000);
    expect(wait2).toBeLessThanOrEqual(20_000);

    world.clock.set(first + RETRY_FOR_MS + 1);
    await sender.tick();
    const failed = await listed();
    expect(failed.pending).toBeNull();
    expect(failed.failing_since).toBe(world.clock.now());
    expect(failed.last_error).toBe("HTTP 503");
    expect(outcomes).toEqual(["retrying", "retrying", "failing"]);
  });

  test("an endpoint another sender holds is left alone until its lease runs out", async () => {
    const { world, org, posted, sender, endpointFor } = await setUp();
    const endpoint = await endpointFor(["employees:read"], "held");
    world.clock.advance(60_000);
    await seed(world, org, { employees: [employee()] });
    expect(await webhooksOf(world.store).claim(endpoint.id, world.clock.now(), world.clock.now() + 60_000)).not.toBeNull();
    await sender.tick();
    expect(posted).toEqual([]);
    world.clock.advance(60_001);
    await sender.tick();
    expect(posted.length).toBe(1);
  });

  test("revoking a credential or deleting its organisation removes its endpoints", async () => {
    const { world, org, endpointFor } = await setUp();
    const kept = await endpointFor(["employees:read"], "kept");
    const revoked = await endpointFor(["employees:read"], "revoked");
    await world.store.revokeClient(revoked.client_id, world.clock.now());
    expect((await webhooksOf(world.store).list(null)).map((e) => e.id)).toEqual([kept.id]);
    await world.store.deleteOrganisation(org);
    expect(await webhooksOf(world.store).list(null)).toEqual([]);
  });

  test("a restricted credential hears of the bookings of someone who entered its selection, though no booking changed", async () => {
    const { world, org, posted, sender } = await setUp();
    const ada = employee({ department: "Engineering" });
    world.clock.advance(60_000);
    await seed(world, org, { employees: [ada], bookings: [booking(ada.id)] });
    const { client } = mintClient(org, ["leave:read"], "rota", world.clock.now());
    await world.store.createClient({ ...client, restriction: { departments: ["Sales"], calendars: null, fields: null, set_at: 0 } });
    await webhooksOf(world.store).add({
      id: crypto.randomUUID(),
      client_id: client.client_id,
      organisation_id: org,
      url: "http://receiver.test/rota",
      secret: "whsec_MfKQ9r8GKYqrTAzCbHqtUvHoqgdoGLwCNTh0MNdaa9Y=",
      created_at: world.clock.now(),
    });
    // Someone outside the selection changes: nothing.
    await change(world, (w) => w.upsertEmployees(org, [{ ...ada, job_title: "Lead" }], world.clock.now()));
    await sender.tick();
    expect(posted).toEqual([]);
    // They move into Sales: their booking is now the client's, whatever its own updated_at.
    await change(world, (w) => w.upsertEmployees(org, [{ ...ada, job_title: "Lead", department: "Sales" }], world.clock.now()));
    await sender.tick();
    expect(resourcesBy(posted)).toEqual({ rota: ["leave-requests"] });
  });
});
