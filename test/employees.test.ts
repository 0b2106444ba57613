/**
 * GET /v1/employees and GET /v1/employees/{id}: the exact record shape, tenancy, soft
 * deletes, (updated_at, id) order, filters and keyset paging (docs/api.md: "Rules for every
 * record", "Query parameters", "Paging, ordering and cursors", "Incremental sync").
 */
import { describe, expect, test } from "bun:test";
import { nodeHmacSha256 } from "../adapters/node-crypto.ts";
import { apiKeys, EMPLOYEE_FIELDS as EMPLOYEE_DECLARATION, type FieldSpec } from "../lib/record-fields.ts";
import { createHandler } from "../server/handler.ts";
import { anEmployeeJson } from "../testing/record-builders.ts";
import { BASE, authorisedOrganisation, employee, seed } from "./support.ts";
import { DATE, DATE_TIME, ONE_SECOND, UUID_LOWER, expectError, freshWorld, ok, softDelete, walkPages, type EmployeeJson, type Page } from "./data-fixtures.ts";

/** The fields an employee record carries, as its declaration lists them; those it may leave unknown. */
const EMPLOYEE_FIELDS = apiKeys(EMPLOYEE_DECLARATION).sort();
const NULLABLE_FIELDS = apiKeys(EMPLOYEE_DECLARATION).filter((key) => (EMPLOYEE_DECLARATION[key] as FieldSpec).nullable === true);

/** Seeds `n` employees one second apart, so each has its own updated_at; returns their ids in that order. */
async function seedSpaced(ctx: Awaited<ReturnType<typeof freshWorld>>, n: number, overrides = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = employee({ first_name: `E${i}`, ...overrides });
    await seed(ctx.world, ctx.organisationId, { employees: [e] });
    ids.push(e.id);
    ctx.world.clock.advance(ONE_SECOND);
  }
  return ids;
}

const idsOf = (page: Page<EmployeeJson>) => page.data.map((e) => e.id);

describe("employee records", () => {
  test("carry exactly the v1 fields, formatted as the contract says", async () => {
    const ctx = await freshWorld();
    const e = employee({ preferred_name: "Ada L", leaving_date: "2026-06-30", status: "terminated" });
    await seed(ctx.world, ctx.organisationId, { employees: [e] });
    const page = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees"));
    expect(page).toEqual({
      has_more: false,
      next_cursor: null,
      data: [
        // Every field the test names; any other declared field is null, as the builder leaves it.
        anEmployeeJson({
          id: e.id,
          first_name: "Ada",
          last_name: "Lovelace",
          preferred_name: "Ada L",
          job_title: "Engineer",
          department: "Engineering",
          status: "terminated",
          start_date: "2020-01-06",
          leaving_date: "2026-06-30",
          holiday_calendar: "GB-ENG",
          updated_at: "2026-03-01T09:30:00.000Z",
        }),
      ],
    });
    const record = page.data[0]!;
    expect(record.id).toMatch(UUID_LOWER);
    expect(record.start_date).toMatch(DATE);
    expect(record.updated_at).toMatch(DATE_TIME);
  });

  test("unknown values are null, never absent", async () => {
    const ctx = await freshWorld();
    const e = employee(Object.fromEntries(NULLABLE_FIELDS.map((field) => [field, null])));
    await seed(ctx.world, ctx.organisationId, { employees: [e] });
    const { data } = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees"));
    const record = data[0]!;
    expect(Object.keys(record).sort()).toEqual(EMPLOYEE_FIELDS);
    expect(NULLABLE_FIELDS.filter((field) => record[field] !== null)).toEqual([]);
    const one = await ok<{ data: EmployeeJson }>(await ctx.get(`/v1/employees/${e.id}`));
    expect(Object.keys(one)).toEqual(["data"]);
    expect(one.data).toEqual(record);
  });
});

describe("tenancy and deletes", () => {
  test("another organisation's employees are never listed and answer 404 like unknown ids", async () => {
    const ctx = await freshWorld();
    const other = await authorisedOrganisation(ctx.world);
    const theirs = employee();
    const mine = employee();
    await seed(ctx.world, other.organisationId, { employees: [theirs] });
    await seed(ctx.world, ctx.organisationId, { employees: [mine] });
    expect(idsOf(await ok(await ctx.get("/v1/employees")))).toEqual([mine.id]);
    const foreign = await ctx.get(`/v1/employees/${theirs.id}`);
    const unknown = await ctx.get("/v1/employees/6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a");
    const [foreignBody, unknownBody] = [await foreign.json(), await unknown.json()];
    expect(foreign.status).toBe(404);
    expect(foreignBody).toEqual(unknownBody);
    expect(foreignBody).toMatchObject({ error: "not_found" });
  });

  test("a deleted employee is never returned, not even to updated_since", async () => {
    const ctx = await freshWorld();
    const [kept, gone] = [employee(), employee()];
    await seed(ctx.world, ctx.organisationId, { employees: [kept, gone] });
    ctx.world.clock.advance(ONE_SECOND);
    await softDelete(ctx.world, ctx.organisationId, { employees: [gone.id] });
    expect(idsOf(await ok(await ctx.get("/v1/employees")))).toEqual([kept.id]);
    const since = encodeURIComponent(new Date(ctx.world.clock.now()).toISOString());
    expect(idsOf(await ok(await ctx.get(`/v1/employees?updated_since=${since}`)))).toEqual([]);
    await expectError(await ctx.get(`/v1/employees/${gone.id}`), 404, "not_found");
  });
});

describe("order and filters", () => {
  test("ascending (updated_at, id): ties on updated_at are broken by id", async () => {
    const ctx = await freshWorld();
    const later = employee();
    await seed(ctx.world, ctx.organisationId, { employees: [employee(), employee(), employee()] });
    ctx.world.clock.advance(ONE_SECOND);
    await seed(ctx.world, ctx.organisationId, { employees: [later] });
    const { data } = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees"));
    const firstThree = data.slice(0, 3).map((e) => e.id);
    expect(firstThree).toEqual([...firstThree].sort());
    expect(data.map((e) => e.id)[3]).toBe(later.id);
    expect(data[3]!.updated_at).toBe("2026-03-01T09:30:01.000Z");
  });

  test("status filters on the exact value", async () => {
    const ctx = await freshWorld();
    const active = employee({ status: "active" });
    const gone = employee({ status: "terminated" });
    const leave = employee({ status: "on_leave" });
    await seed(ctx.world, ctx.organisationId, { employees: [active, gone, leave] });
    expect(idsOf(await ok(await ctx.get("/v1/employees?status=terminated")))).toEqual([gone.id]);
    expect(idsOf(await ok(await ctx.get("/v1/employees?status=on_leave")))).toEqual([leave.id]);
    expect(idsOf(await ok(await ctx.get("/v1/employees?status=activ")))).toEqual([]);
    await expectError(await ctx.get("/v1/employees?status=Active"), 400, "invalid_request", "status");
  });

  describe("updated_since keeps updated_at at or after the instant", () => {
    // First employee at 09:30:00.000Z, second at 09:30:01.000Z.
    const cases: [string, string, number[]][] = [
      ["equal instant, Z", "2026-03-01T09:30:00.000Z", [0, 1]],
      ["one millisecond later", "2026-03-01T09:30:00.001Z", [1]],
      ["an encoded + offset", "2026-03-01T11:30:00%2B02:00", [0, 1]],
      ["a negative offset", "2026-03-01T04:30:01-05:00", [1]],
      ["an unencoded + (arrives as a space)", "2026-03-01T11:30:01+02:00", [1]],
      ["the space itself", "2026-03-01T11:30:01%2002:00", [1]],
      ["a sub-millisecond fraction after the instant", "2026-03-01T09:30:00.0000001Z", [1]],
      ["a fraction just before the instant", "2026-03-01T09:29:59.9999Z", [0, 1]],
    ];
    for (const [name, since, expected] of cases) {
      test(name, async () => {
        const ctx = await freshWorld();
        const ids = await seedSpaced(ctx, 2);
        const page = await ok<Page<EmployeeJson>>(await ctx.get(`/v1/employees?updated_since=${since}`));
        expect(idsOf(page)).toEqual(expected.map((i) => ids[i]!));
      });
    }
  });
});

describe("paging", () => {
  test("limit defaults to 100 and accepts 500", async () => {
    const ctx = await freshWorld();
    await seed(ctx.world, ctx.organisationId, { employees: Array.from({ length: 501 }, () => employee()) });
    const first = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees"));
    expect(first.data).toHaveLength(100);
    expect(first.has_more).toBe(true);
    const big = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees?limit=500"));
    expect(big.data).toHaveLength(500);
    expect(big.has_more).toBe(true);
    const rest = await ok<Page<EmployeeJson>>(await ctx.get(`/v1/employees?limit=500&cursor=${big.next_cursor}`));
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
    expect(rest.data).toHaveLength(1);
  });

  test("walking every page returns every record once, in order", async () => {
    const ctx = await freshWorld();
    const ids = await seedSpaced(ctx, 7);
    const pages = await walkPages<EmployeeJson>(ctx.get, "/v1/employees?limit=3");
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
    expect(pages.flatMap(idsOf)).toEqual(ids);
  });

  test("an exact multiple of limit ends with has_more false and next_cursor null", async () => {
    const ctx = await freshWorld();
    const ids = await seedSpaced(ctx, 6);
    const pages = await walkPages<EmployeeJson>(ctx.get, "/v1/employees?limit=3");
    expect(pages).toHaveLength(2);
    expect(pages[0]!.has_more).toBe(true);
    expect(pages[1]).toMatchObject({ has_more: false, next_cursor: null });
    expect(pages.flatMap(idsOf)).toEqual(ids);
  });

  test("cursors are the same signed with serve's HMAC (node:crypto) as with the default, and each handler takes the other's", async () => {
    const ctx = await freshWorld();
    const ids = await seedSpaced(ctx, 5);
    const native = createHandler({ store: ctx.world.store, now: ctx.world.clock.now, hmacSha256: nodeHmacSha256 });
    const getNative = (path: string) =>
      native(new Request(`${BASE}${path}`, { headers: { Authorization: `Bearer ${ctx.token}` } }), { remoteAddress: "127.0.0.1" });
    const first = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees?limit=2"));
    const firstNative = await ok<Page<EmployeeJson>>(await getNative("/v1/employees?limit=2"));
    expect(firstNative).toEqual(first);
    const second = await ok<Page<EmployeeJson>>(await getNative(`/v1/employees?limit=2&cursor=${first.next_cursor}`));
    const third = await ok<Page<EmployeeJson>>(await ctx.get(`/v1/employees?limit=2&cursor=${second.next_cursor}`));
    expect([first, second, third].flatMap(idsOf)).toEqual(ids);
    expect(() => createHandler({ store: ctx.world.store, hmacSha256: () => new Uint8Array(32) })).toThrow("hmacSha256 must return");
  });

  test("limit may change from page to page", async () => {
    const ctx = await freshWorld();
    const ids = await seedSpaced(ctx, 6);
    const first = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees?limit=2"));
    const second = await ok<Page<EmployeeJson>>(await ctx.get(`/v1/employees?limit=5&cursor=${first.next_cursor}`));
    expect([...idsOf(first), ...idsOf(second)]).toEqual(ids);
    expect(second).toMatchObject({ has_more: false, next_cursor: null });
  });

  test("an employee updated while a client pages moves to the end: seen again, never skipped", async () => {
    const ctx = await freshWorld();
    const ids = await seedSpaced(ctx, 4);
    const first = await ok<Page<EmployeeJson>>(await ctx.get("/v1/employees?limit=2"));
    expect(idsOf(first)).toEqual(ids.slice(0, 2));
    // Update one already seen (E0) and one not yet seen (E2).
    await seed(ctx.world, ctx.organisationId, {
      employees: [employee({ id: ids[0]!, job_title: "CTO", first_name: "E0" }), employee({ id: ids[2]!, job_title: "CFO", first_name: "E2" })],
    });
    const rest = await walkPages<EmployeeJson>(ctx.get, "/v1/employees?limit=2", first.next_cursor);
    const seen = rest.flatMap(idsOf);
    expect(seen[0]).toBe(ids[3]!);
    expect(new Set(seen.slice(1))).toEqual(new Set([ids[0]!, ids[2]!]));
    expect(rest.flatMap((p) => p.data).find((e) => e.id === ids[2])!.job_title).toBe("CFO");
  });
});

describe("GET /v1/employees/{id}", () => {
  test("finds one employee; an upper-case id is accepted and answered in lower case", async () => {
    const ctx = await freshWorld();
    const e = employee();
    await seed(ctx.world, ctx.organisationId, { employees: [e] });
    const found = await ok<{ data: EmployeeJson }>(await ctx.get(`/v1/employees/${e.id}`));
    expect(found.data.id).toBe(e.id);
    const upper = await ok<{ data: EmployeeJson }>(await ctx.get(`/v1/employees/${e.id.toUpperCase()}`));
    expect(upper).toEqual(found);
  });

  test("a malformed id is 400 param id; an unknown one 404", async () => {
    const ctx = await freshWorld();
    for (const bad of ["123", "not-a-uuid", "6f1c9d0e4b7a4c1e9a532f8e1d0c7b6a", "6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6g"]) {
      await expectError(await ctx.get(`/v1/employees/${bad}`), 400, "invalid_request", "id");
    }
    await expectError(await ctx.get("/v1/employees/6f1c9d0e-4b7a-4c1e-9a53-2f8e1d0c7b6a"), 404, "not_found");
  });
});
