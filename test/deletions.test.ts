/**
 * GET /v1/deletions (docs/api.md, "GET /v1/deletions"): what each change that hides a
 * record puts in the feed, what a change that shows it again takes out, that identical
 * re-imports change nothing, the order, cursors, parameters, scopes and 410 `sync_expired`.
 */
import { describe, expect, test } from "bun:test";
import { formatInstant } from "../lib/dates.ts";
import { ANNUAL, SICK, authorisedOrganisation, booking, createWorld, employee, seed } from "./support.ts";
import { ONE_SECOND, expectError, freshWorld, ok, softDelete, walkPages, type BookingJson, type Page } from "./data-fixtures.ts";

interface DeletionJson {
  resource: string;
  id: string;
  deleted_at: string;
}

type Ctx = Awaited<ReturnType<typeof freshWorld>>;

const since = (ms: number) => encodeURIComponent(formatInstant(ms));

/** Every tombstone of `resource` since `from`, across pages. */
async function feed(ctx: Ctx, resource: string, from: number, limit = 100): Promise<DeletionJson[]> {
  const pages = await walkPages<DeletionJson>(ctx.get, `/v1/deletions?resource=${resource}&updated_since=${since(from)}&limit=${limit}`);
  return pages.flatMap((p) => p.data);
}

async function leaveIds(ctx: Ctx): Promise<string[]> {
  const page = await ok<Page<BookingJson>>(await ctx.get("/v1/leave-requests?from=2026-01-01&to=2026-12-31&limit=500"));
  return page.data.map((b) => b.id);
}

/** One employee with an annual and a sick booking, written at the clock's start; returns the ids and that instant. */
async function seeded(ctx: Ctx) {
  const start = ctx.world.clock.now();
  const e = employee();
  const annual = booking(e.id);
  const sick = booking(e.id, { leave_type_id: SICK.id });
  await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [annual, sick] });
  ctx.world.clock.advance(ONE_SECOND);
  return { e, annual, sick, start };
}

describe("what the feed lists", () => {
  test("a deleted employee, and their bookings that were listed, at the instant of the deletion", async () => {
    const ctx = await freshWorld();
    const { e, annual, start } = await seeded(ctx);
    expect(await feed(ctx, "employees", start)).toEqual([]);
    const at = ctx.world.clock.now();
    await softDelete(ctx.world, ctx.organisationId, { employees: [e.id] });
    expect(await feed(ctx, "employees", start)).toEqual([{ resource: "employees", id: e.id, deleted_at: formatInstant(at) }]);
    // The sick booking was never listed, so it is not in the feed.
    expect(await feed(ctx, "leave-requests", start)).toEqual([{ resource: "leave-requests", id: annual.id, deleted_at: formatInstant(at) }]);
    expect(await leaveIds(ctx)).toEqual([]);
  });

  test("a deleted booking; written again, it leaves the feed and is listed with a new updated_at", async () => {
    const ctx = await freshWorld();
    const { e, annual, start } = await seeded(ctx);
    const at = ctx.world.clock.now();
    await softDelete(ctx.world, ctx.organisationId, { bookings: [annual.id] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([{ resource: "leave-requests", id: annual.id, deleted_at: formatInstant(at) }]);
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [annual] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([]);
    const page = await ok<Page<BookingJson>>(await ctx.get(`/v1/leave-requests?from=2026-01-01&to=2026-12-31&updated_since=${since(ctx.world.clock.now())}`));
    expect(page.data.map((b) => b.id)).toEqual([annual.id]);
  });

  test("a booking switched to a leave type that is not annual, until it is switched back", async () => {
    const ctx = await freshWorld();
    const { e, annual, start } = await seeded(ctx);
    const at = ctx.world.clock.now();
    await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [{ ...annual, leave_type_id: SICK.id }] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([{ resource: "leave-requests", id: annual.id, deleted_at: formatInstant(at) }]);
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [annual] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([]);
    expect(await leaveIds(ctx)).toEqual([annual.id]);
  });

  test("the bookings of a leave type whose category stops being annual, until it is annual again", async () => {
    const ctx = await freshWorld();
    const { annual, start } = await seeded(ctx);
    const at = ctx.world.clock.now();
    await seed(ctx.world, ctx.organisationId, { leaveTypes: [{ ...ANNUAL, category: "unpaid" }, SICK] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([{ resource: "leave-requests", id: annual.id, deleted_at: formatInstant(at) }]);
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { leaveTypes: [ANNUAL, SICK] });
    expect(await feed(ctx, "leave-requests", start)).toEqual([]);
    expect(await leaveIds(ctx)).toEqual([annual.id]);
  });

  test("an employee written again leaves the feed; their bookings, deleted with them, leave it when they are imported again", async () => {
    const ctx = await freshWorld();
    const { e, annual, start } = await seeded(ctx);
    const other = booking(e.id, { start_date: "2026-05-04", end_date: "2026-05-05", days: 2 });
    await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [other] });
    const first = ctx.world.clock.now();
    await softDelete(ctx.world, ctx.organisationId, { bookings: [other.id] });
    ctx.world.clock.advance(ONE_SECOND);
    await softDelete(ctx.world, ctx.organisationId, { employees: [e.id] });
    // Already hidden, the deleted booking keeps the instant it stopped being listed.
    expect((await feed(ctx, "leave-requests", start)).map((d) => [d.id, d.deleted_at])).toEqual([
      [other.id, formatInstant(first)],
      [annual.id, formatInstant(first + ONE_SECOND)],
    ]);
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { employees: [e] });
    expect(await feed(ctx, "employees", start)).toEqual([]);
    // Deleted with the employee, nothing of the bookings was kept (docs/api.md, "Personal data"): they stay gone until a file brings them.
    expect((await feed(ctx, "leave-requests", start)).map((d) => d.id)).toEqual([other.id, annual.id]);
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { bookings: [annual] });
    expect((await feed(ctx, "leave-requests", start)).map((d) => d.id)).toEqual([other.id]);
  });

  test("identical re-imports and repeated deletions change nothing", async () => {
    const ctx = await freshWorld();
    const { e, annual, sick, start } = await seeded(ctx);
    await softDelete(ctx.world, ctx.organisationId, { bookings: [annual.id] });
    const before = await feed(ctx, "leave-requests", start);
    ctx.world.clock.advance(ONE_SECOND);
    await softDelete(ctx.world, ctx.organisationId, { bookings: [annual.id, sick.id] });
    await seed(ctx.world, ctx.organisationId, { employees: [e], bookings: [{ ...sick, leave_type_id: SICK.id }] });
    expect(await feed(ctx, "leave-requests", start)).toEqual(before);
    expect(await feed(ctx, "employees", start)).toEqual([]);
  });
});

describe("order, filters and cursors", () => {
  test("ascending (deleted_at, id), paged with cursors that join up, filtered by updated_since", async () => {
    const ctx = await freshWorld();
    const start = ctx.world.clock.now();
    const people = Array.from({ length: 5 }, () => employee());
    await seed(ctx.world, ctx.organisationId, { employees: people });
    ctx.world.clock.advance(ONE_SECOND);
    const firstDeletion = ctx.world.clock.now();
    await softDelete(ctx.world, ctx.organisationId, { employees: people.slice(0, 3).map((p) => p.id) });
    ctx.world.clock.advance(ONE_SECOND);
    await softDelete(ctx.world, ctx.organisationId, { employees: people.slice(3).map((p) => p.id) });
    const expected = [
      ...people
        .slice(0, 3)
        .map((p) => p.id)
        .sort(),
      ...people
        .slice(3)
        .map((p) => p.id)
        .sort(),
    ];
    for (const limit of [1, 2, 100]) expect((await feed(ctx, "employees", start, limit)).map((d) => d.id)).toEqual(expected);
    expect((await feed(ctx, "employees", firstDeletion + 1)).map((d) => d.id)).toEqual(expected.slice(3));
  });

  test("a cursor is bound to the resource and updated_since", async () => {
    const ctx = await freshWorld();
    const { e, start } = await seeded(ctx);
    const f = employee();
    await seed(ctx.world, ctx.organisationId, { employees: [f] });
    await softDelete(ctx.world, ctx.organisationId, { employees: [e.id, f.id] });
    const page = await ok<Page<DeletionJson>>(await ctx.get(`/v1/deletions?resource=employees&updated_since=${since(start)}&limit=1`));
    expect(page.has_more).toBe(true);
    const cursor = page.next_cursor!;
    await expectError(await ctx.get(`/v1/deletions?resource=leave-requests&updated_since=${since(start)}&cursor=${cursor}`), 400, "invalid_request", "cursor");
    await expectError(await ctx.get(`/v1/deletions?resource=employees&updated_since=${since(start + 1)}&cursor=${cursor}`), 400, "invalid_request", "cursor");
    await expectError(await ctx.get(`/v1/employees?cursor=${cursor}`), 400, "invalid_request", "cursor");
  });
});

describe("parameters, scopes and expiry", () => {
  test("resource and updated_since are required; unknown and repeated parameters are refused", async () => {
    const ctx = await freshWorld();
    const t = since(ctx.world.clock.now());
    await expectError(await ctx.get(`/v1/deletions?updated_since=${t}`), 400, "invalid_request", "resource");
    await expectError(await ctx.get("/v1/deletions?resource=employees"), 400, "invalid_request", "updated_since");
    await expectError(await ctx.get(`/v1/deletions?resource=bookings&updated_since=${t}`), 400, "invalid_request", "resource");
    await expectError(await ctx.get(`/v1/deletions?resource=employees&updated_since=2026-03-01T09:30:00`), 400, "invalid_request", "updated_since");
    await expectError(await ctx.get(`/v1/deletions?resource=employees&updated_since=${t}&status=active`), 400, "invalid_request", "status");
    await expectError(await ctx.get(`/v1/deletions?resource=employees&resource=employees&updated_since=${t}`), 400, "invalid_request", "resource");
    await expectError(await ctx.get(`/v1/deletions?resource=employees&updated_since=${t}&limit=501`), 400, "invalid_request", "limit");
  });

  test("employees need employees:read, leave requests leave:read", async () => {
    const world = await createWorld();
    const leaveOnly = await authorisedOrganisation(world, ["leave:read"]);
    const t = since(world.clock.now());
    await expectError(await leaveOnly.get(`/v1/deletions?resource=employees&updated_since=${t}`), 403, "insufficient_scope");
    expect((await leaveOnly.get(`/v1/deletions?resource=leave-requests&updated_since=${t}`)).status).toBe(200);
    const employeesOnly = await authorisedOrganisation(world, ["employees:read"]);
    await expectError(await employeesOnly.get(`/v1/deletions?resource=leave-requests&updated_since=${t}`), 403, "insufficient_scope");
    expect((await employeesOnly.get(`/v1/deletions?resource=employees&updated_since=${t}`)).status).toBe(200);
    await expectError(await world.call(`/v1/deletions?resource=employees&updated_since=${t}`), 401, "invalid_token");
  });

  test("an updated_since older than the tombstones kept is 410 sync_expired, saying to do a full read", async () => {
    const ctx = await freshWorld();
    const now = ctx.world.clock.now();
    const day = 86_400_000;
    expect((await ctx.get(`/v1/deletions?resource=employees&updated_since=${since(now - 90 * day)}`)).status).toBe(200);
    const res = await ctx.get(`/v1/deletions?resource=employees&updated_since=${since(now - 90 * day - 1)}`);
    const body = (await res.clone().json()) as { error_description: string };
    await expectError(res, 410, "sync_expired", "updated_since");
    expect(body.error_description).toContain("full read");

    const shortWorld = await createWorld({ deletionRetentionDays: 7 });
    const short = await authorisedOrganisation(shortWorld);
    await expectError(await short.get(`/v1/deletions?resource=leave-requests&updated_since=${since(now - 8 * day)}`), 410, "sync_expired", "updated_since");
  });
});
