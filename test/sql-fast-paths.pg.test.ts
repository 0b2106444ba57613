/**
 * The SQL store's fast paths (adapters/sql/fast-paths.ts, adapters/sql/compiled-queries.ts: queries
 * compiled once and keyed by the values bound, bun:sqlite's statement cache and second
 * connection, Postgres named prepared statements, the leave page's span-class plan) against
 * plain Kysely queries on a plain connection, written the obvious way: for every
 * combination of the employees and leave page filters, on SQLite and on Postgres, the
 * store must answer exactly what the plain query answers.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Kysely, PostgresDialect } from "kysely";
import { BunSqliteDialect } from "kysely-bun-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openPostgresStore } from "../adapters/postgres.ts";
import { SQLITE } from "../adapters/sql/capabilities.ts";
import { CompiledQueries, defineQuery } from "../adapters/sql/compiled-queries.ts";
import { EMPLOYEE_COLUMNS, toEmployee, toLeaveBooking } from "../adapters/sql/row-mapping.ts";
import type { SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import type { Tables } from "../adapters/sql/tables.ts";
import { openSqliteStore } from "../adapters/bun/sqlite.ts";
import { addDays } from "../lib/dates.ts";
import { employeeJson, LEAVE_STATUSES, leaveBookingJson, type EmployeeRecord, type LeaveBookingRecord } from "../lib/records.ts";
import { listTextOf } from "../adapters/sql/record-bodies.ts";
import { EMPLOYEE_FILTER_RULES, LEAVE_FILTER_RULES, type EmployeeFilters, type LeaveFilters, type OptionalFilter } from "../lib/list-filters.ts";
import type { EmployeePageQuery, LeavePageQuery, ListText } from "../lib/store.ts";
import { ANNUAL, booking, employee, SICK } from "./support.ts";
import { freshSchemaName, POSTGRES_DRIVERS, testRunDatabaseUrl } from "./test-stores.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const IMPORT_TIMES = [T0, T0 + 1000, T0 + 2000];
const STATUSES = ["active", "leaver", "inactive"];
// Each class's longest span and the shortest of the next (adapters/sql/leave-page/leave-span-plan.ts), and beyond.
const SPANS = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511, 512, 700];
const FIRST_DAY = "2024-01-01";

/** A small deterministic random source, so that every run seeds the same data. */
function seededRandom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/**
 * Three organisations: one with only annual leave and no deleted employees (the page needs
 * neither set filter), one with other leave types and deleted employees (it needs both),
 * one with no annual leave type (no page has rows).
 */
interface OrgData {
  id: string;
  employees: { id: string; updated_at: number }[];
  bookings: { id: string; start_date: string; end_date: string }[];
}

async function seedOrganisation(store: SqlAdminStore, kind: "plain" | "mixed" | "none", seed: number): Promise<OrgData> {
  const random = seededRandom(seed);
  const id = crypto.randomUUID();
  await store.createOrganisation({ id, name: `Fast paths ${kind}`, api_enabled: true, created_at: T0 });
  const types = kind === "plain" ? [ANNUAL] : kind === "mixed" ? [ANNUAL, SICK] : [SICK];
  const people = Array.from({ length: 30 }, () => employee({ status: random.pick(STATUSES) }));
  const bookings = Array.from({ length: 160 }, () => {
    const start = addDays(FIRST_DAY, random.int(730));
    return booking(random.pick(people).id, {
      start_date: start,
      end_date: addDays(start, random.pick(SPANS)),
      leave_type_id: random.pick(types).id,
      status: random.pick(LEAVE_STATUSES),
    });
  });
  // Three imports at three instants, each writing again a part of what came before, so
  // updated_at varies and ties between records are common.
  for (const [round, now] of IMPORT_TIMES.entries()) {
    const part = <T>(rows: T[]) => (round === 0 ? rows : rows.filter(() => random.int(3) === 0));
    await store.runImport(async (w) => {
      await w.upsertLeaveTypes(id, types, now);
      await w.upsertEmployees(
        id,
        part(people).map((p) => ({ ...p, job_title: `round ${round}` })),
        now,
      );
      await w.upsertLeaveBookings(
        id,
        part(bookings).map((b) => ({ ...b, days: round + 1 })),
        now,
      );
      if (round === 2 && kind === "mixed") {
        await w.deleteEmployees(
          id,
          people.slice(0, 4).map((p) => p.id),
          now,
        );
        await w.deleteLeaveBookings(
          id,
          bookings.slice(0, 10).map((b) => b.id),
          now,
        );
      }
    });
  }
  const employees = (await store.listEmployees({ organisationId: id, filters: {}, limit: 1000 })).map((e) => ({ id: e.id, updated_at: e.updated_at }));
  return { id, employees: [...employees, ...people.slice(0, 4).map((p) => ({ id: p.id, updated_at: T0 + 1500 }))], bookings };
}

function plainEmployees(db: Kysely<Tables>, q: EmployeePageQuery) {
  let query = db.selectFrom("employees").select(EMPLOYEE_COLUMNS).where("organisation_id", "=", q.organisationId).where("deleted_at", "is", null);
  const { status, updated_since } = q.filters;
  if (status !== undefined) query = query.where("status", "=", status);
  if (updated_since !== undefined) query = query.where("updated_at", ">=", updated_since);
  const after = q.after;
  if (after) {
    query = query.where((eb) => eb.or([eb("updated_at", ">", after.updatedAt), eb.and([eb("updated_at", "=", after.updatedAt), eb("id", ">", after.id)])]));
  }
  return query
    .orderBy("updated_at")
    .orderBy("id")
    .limit(q.limit)
    .execute()
    .then((rows) => rows.map(toEmployee));
}

function plainLeave(db: Kysely<Tables>, q: LeavePageQuery) {
  let query = db
    .selectFrom("leave_bookings as b")
    .innerJoin("leave_types as t", (j) => j.onRef("t.organisation_id", "=", "b.organisation_id").onRef("t.id", "=", "b.leave_type_id"))
    .innerJoin("employees as e", (j) => j.onRef("e.organisation_id", "=", "b.organisation_id").onRef("e.id", "=", "b.employee_id"))
    .selectAll("b")
    .select(["t.name as type_name", "t.category", "t.is_paid"])
    .where("b.organisation_id", "=", q.organisationId)
    .where("b.deleted_at", "is", null)
    .where("e.deleted_at", "is", null)
    .where("t.category", "=", "annual")
    .where("b.start_date", "<=", q.filters.to)
    .where("b.end_date", ">=", q.filters.from);
  const { status, employee_id, updated_since } = q.filters;
  if (status !== undefined) query = query.where("b.status", "=", status);
  if (employee_id !== undefined) query = query.where("b.employee_id", "=", employee_id);
  if (updated_since !== undefined) query = query.where("b.updated_at", ">=", updated_since);
  const after = q.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([eb("b.start_date", ">", after.startDate), eb.and([eb("b.start_date", "=", after.startDate), eb("b.id", ">", after.id)])]),
    );
  }
  return query
    .orderBy("b.start_date")
    .orderBy("b.id")
    .limit(q.limit)
    .execute()
    .then((rows) => rows.map((r) => toLeaveBooking(r, { id: r.leave_type_id, name: r.type_name, category: r.category, is_paid: r.is_paid })));
}

/** What `listText` must answer for a page of `limit`, from the plain query's rows for `limit + 1`: the records' JSON, serialized. */
const employeesText = (rows: EmployeeRecord[], limit: number): ListText =>
  listTextOf(
    rows,
    limit,
    (e) => [e.updated_at, e.id],
    (e) => JSON.stringify(employeeJson(e)),
  );
const leaveText = (rows: LeaveBookingRecord[], limit: number): ListText =>
  listTextOf(
    rows,
    limit,
    (b) => [b.start_date, b.id],
    (b) => JSON.stringify(leaveBookingJson(b)),
  );

/** An arbitrary that gives `undefined` when `present` is false: a filter combination fixed by a mask. */
const maybe = <T>(present: boolean, value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => (present ? value : fc.constant(undefined));

/**
 * The values tried for each optional filter of a list, keyed by the filters lib/list-filters.ts
 * declares: a new filter does not compile until it has values here, and the combinations
 * tried grow with it (`maskBits`).
 */
type FilterValues<F> = { [K in OptionalFilter<F>]-?: fc.Arbitrary<Exclude<F[K], undefined>> };

/** One bit per optional filter the list declares (its rules), then one for the cursor (the last bit, `maskBits - 1`). */
const maskBits = (rules: object) => Object.keys(rules).length + 1;

/** The optional filters as a mask picks them: filter `i` is given when bit `i` is set. */
function pickedFilters<F>(values: FilterValues<F>, has: (bit: number) => boolean): fc.Arbitrary<Partial<F>> {
  const picked = Object.entries(values as Record<string, fc.Arbitrary<unknown>>).map(([name, value], bit) => [name, maybe(has(bit), value)] as const);
  return fc.record(Object.fromEntries(picked)) as fc.Arbitrary<Partial<F>>;
}

/** Every subset of `count` optional filters, as masks. */
const masks = (count: number) => Array.from({ length: 2 ** count }, (_, mask) => (bit: number) => (mask & (1 << bit)) !== 0);

const employeeFilterValues: FilterValues<EmployeeFilters> = {
  status: fc.constantFrom(...STATUSES, "nobody"),
  updated_since: fc.constantFrom(T0 - 1, ...IMPORT_TIMES, T0 + 1500, T0 + 9000),
};
const EMPLOYEE_MASK_BITS = maskBits(EMPLOYEE_FILTER_RULES);

function employeeQueries(orgs: OrgData[], has: (bit: number) => boolean): fc.Arbitrary<EmployeePageQuery> {
  return fc.constantFrom(...orgs).chain((org) =>
    fc.record({
      organisationId: fc.constant(org.id),
      filters: pickedFilters(employeeFilterValues, has),
      after: maybe(
        has(EMPLOYEE_MASK_BITS - 1),
        fc.oneof(
          fc.constantFrom(...org.employees).map((e) => ({ updatedAt: e.updated_at, id: e.id })),
          fc.record({ updatedAt: fc.constantFrom(...IMPORT_TIMES), id: fc.uuid() }),
        ),
      ),
      limit: fc.integer({ min: 1, max: 40 }),
    }),
  );
}

/** Any day, or more often a day at or next to a booking's first or last: where a scan's bounds can be off by one. */
function windowStart(org: OrgData): fc.Arbitrary<string> {
  const edges = org.bookings.flatMap((b) => [b.start_date, b.end_date]);
  return fc.oneof(
    fc.integer({ min: -200, max: 900 }).map((d) => addDays(FIRST_DAY, d)),
    { arbitrary: fc.tuple(fc.constantFrom(...edges), fc.integer({ min: -1, max: 1 })).map(([day, k]) => addDays(day, k)), weight: 3 },
  );
}

const leaveFilterValues = (org: OrgData): FilterValues<LeaveFilters> => ({
  status: fc.constantFrom(...LEAVE_STATUSES),
  employee_id: fc.oneof(fc.constantFrom(...org.employees.map((e) => e.id)), fc.uuid()),
  updated_since: fc.constantFrom(T0 - 1, ...IMPORT_TIMES, T0 + 9000),
});
const LEAVE_MASK_BITS = maskBits(LEAVE_FILTER_RULES);

function leaveQueries(orgs: OrgData[], has: (bit: number) => boolean): fc.Arbitrary<LeavePageQuery> {
  return fc.constantFrom(...orgs).chain((org) =>
    fc
      .record({
        organisationId: fc.constant(org.id),
        from: windowStart(org),
        days: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 90 })),
        picked: pickedFilters(leaveFilterValues(org), has),
        after: maybe(
          has(LEAVE_MASK_BITS - 1),
          fc.oneof(
            fc.constantFrom(...org.bookings).map((b) => ({ startDate: b.start_date, id: b.id })),
            fc.record({ startDate: fc.integer({ min: -400, max: 900 }).map((d) => addDays(FIRST_DAY, d)), id: fc.uuid() }),
          ),
        ),
        limit: fc.integer({ min: 1, max: 40 }),
      })
      .map(({ days, from, picked, ...q }) => ({ ...q, filters: { ...picked, from, to: addDays(from, days) } })),
  );
}

/**
 * For each combination of `bits` optional filters and cursor, 25 queries on which `fast` must
 * answer as `plain`; says how many answers had rows (a check that passes on empty pages
 * proves little).
 */
async function agreeOverEveryCombination<Q, A extends unknown[] | ListText | null>(
  bits: number,
  queries: (has: (bit: number) => boolean) => fc.Arbitrary<Q>,
  fast: (q: Q) => Promise<A>,
  plain: (q: Q) => Promise<A>,
): Promise<number> {
  let nonEmpty = 0;
  for (const has of masks(bits)) {
    await fc.assert(
      fc.asyncProperty(queries(has), async (q) => {
        const answer = await fast(q);
        expect(answer).toEqual(await plain(q));
        if ((Array.isArray(answer) ? answer.length : (answer?.count ?? 0)) > 0) nonEmpty++;
      }),
      { numRuns: 25 },
    );
  }
  return nonEmpty;
}

interface Target {
  store: SqlAdminStore;
  plain: Kysely<Tables>;
  dispose: () => Promise<void>;
}

function runAgainstPlainKysely(name: string, open: () => Promise<Target>) {
  describe(`${name}: the fast paths answer as plain Kysely queries`, () => {
    let target: Target;
    let orgs: OrgData[];

    beforeAll(async () => {
      target = await open();
      await target.store.migrate();
      orgs = [
        await seedOrganisation(target.store, "plain", 1),
        await seedOrganisation(target.store, "mixed", 2),
        await seedOrganisation(target.store, "none", 3),
      ];
    }, 60_000);
    afterAll(() => target.dispose());

    test("employees page: every combination of status, updated_since and cursor", async () => {
      const nonEmpty = await agreeOverEveryCombination(
        EMPLOYEE_MASK_BITS,
        (has) => employeeQueries(orgs, has),
        target.store.listEmployees,
        (q) => plainEmployees(target.plain, q),
      );
      expect(nonEmpty).toBeGreaterThan(50);
    }, 60_000);

    test("leave page: every combination of status, employee, updated_since and cursor, over any window", async () => {
      const nonEmpty = await agreeOverEveryCombination(
        LEAVE_MASK_BITS,
        (has) => leaveQueries(orgs, has),
        target.store.listOverlappingLeave,
        (q) => plainLeave(target.plain, q),
      );
      expect(nonEmpty).toBeGreaterThan(60);
    }, 120_000);

    test("employees page as text: every combination of status, updated_since and cursor", async () => {
      const nonEmpty = await agreeOverEveryCombination(
        EMPLOYEE_MASK_BITS,
        (has) => employeeQueries(orgs, has),
        (q) => target.store.listText!({ list: "employees", query: q }),
        async (q) => employeesText(await plainEmployees(target.plain, { ...q, limit: q.limit + 1 }), q.limit),
      );
      expect(nonEmpty).toBeGreaterThan(50);
    }, 60_000);

    test("leave page as text: every combination of status, employee, updated_since and cursor, over any window", async () => {
      const nonEmpty = await agreeOverEveryCombination(
        LEAVE_MASK_BITS,
        (has) => leaveQueries(orgs, has),
        (q) => target.store.listText!({ list: "leave-requests", query: q }),
        async (q) => leaveText(await plainLeave(target.plain, { ...q, limit: q.limit + 1 }), q.limit),
      );
      expect(nonEmpty).toBeGreaterThan(60);
    }, 120_000);

    test("leave page as text, the organisation's leave context changing between pages: a class's longest booking, a longer booking, another leave type, a deleted employee", async () => {
      const { store } = target;
      const org = crypto.randomUUID();
      await store.createOrganisation({ id: org, name: "Context changes", api_enabled: true, created_at: T0 });
      const people = [employee(), employee(), employee()];
      const q: LeavePageQuery = { organisationId: org, filters: { from: "2025-03-10", to: "2025-03-20" }, limit: 10 };
      const agree = async () => {
        const answer = await store.listText!({ list: "leave-requests", query: q });
        expect(answer).toEqual(leaveText(await plainLeave(target.plain, { ...q, limit: 11 }), 10));
        return answer!.count;
      };
      await store.runImport(async (w) => {
        await w.upsertLeaveTypes(org, [ANNUAL], T0);
        await w.upsertEmployees(org, people, T0);
        await w.upsertLeaveBookings(org, [booking(people[0]!.id, { start_date: "2025-03-12", end_date: "2025-03-12" })], T0);
      });
      expect(await agree()).toBe(1);
      // A class's longest booking grows (8 days, then 15, both class 4): its scan must reach
      // back further than the plan the last page was read on.
      await store.runImport((w) => w.upsertLeaveBookings(org, [booking(people[1]!.id, { start_date: "2025-03-02", end_date: "2025-03-10" })], T0 + 1));
      expect(await agree()).toBe(2);
      await store.runImport((w) => w.upsertLeaveBookings(org, [booking(people[1]!.id, { start_date: "2025-02-23", end_date: "2025-03-10" })], T0 + 1));
      expect(await agree()).toBe(3);
      // A booking far longer than any before, begun long before the window.
      await store.runImport((w) => w.upsertLeaveBookings(org, [booking(people[1]!.id, { start_date: "2024-06-01", end_date: "2025-04-01" })], T0 + 1));
      expect(await agree()).toBe(4);
      // A leave type that is not annual, with a booking in the window: not listed.
      await store.runImport(async (w) => {
        await w.upsertLeaveTypes(org, [ANNUAL, SICK], T0 + 2);
        await w.upsertLeaveBookings(org, [booking(people[2]!.id, { start_date: "2025-03-15", end_date: "2025-03-16", leave_type_id: SICK.id })], T0 + 2);
      });
      expect(await agree()).toBe(4);
      // A deleted employee's bookings are not listed.
      await store.runImport((w) => w.deleteEmployees(org, [people[0]!.id], T0 + 3));
      expect(await agree()).toBe(3);
    }, 60_000);
  });
}

runAgainstPlainKysely("SQLite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-fast-paths-"));
  const file = join(dir, "store.db");
  // The store in a file: its statement cache and its second connection for hot queries.
  const store = openSqliteStore({ filename: file });
  await store.migrate();
  const plain = new Kysely<Tables>({ dialect: new BunSqliteDialect({ database: new Database(file) }) });
  return {
    store,
    plain,
    dispose: async () => {
      await store.close();
      await plain.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

for (const driver of POSTGRES_DRIVERS) {
  runAgainstPlainKysely(`Postgres (${driver})`, async () => {
    const schema = freshSchemaName();
    const connectionString = await testRunDatabaseUrl();
    const store = openPostgresStore({ connectionString, schema, poolSize: 2, driver });
    await store.migrate();
    // DATE as the text Postgres sent, as the store reads it; nothing else of the store's set-up.
    const types = {
      getTypeParser: (oid: number, format?: "text" | "binary") => (oid === 1082 ? (v: string) => v : pg.types.getTypeParser(oid, format as "text")),
    };
    const pool = new pg.Pool({ connectionString, max: 1, types, options: `-c search_path=${schema}` });
    const plain = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return {
      store,
      plain,
      dispose: async () => {
        await store.close();
        await plain.destroy();
      },
    };
  });
}

describe("compiled-queries.ts refuses a query that does not follow from its values", () => {
  test("a bound value the SQL never uses, and a value frozen into the SQL, fail at once", async () => {
    const db = new Kysely<Tables>({ dialect: new BunSqliteDialect({ database: new Database(":memory:") }) });
    const queries = new CompiledQueries(db, SQLITE);
    const ignoresStatus = defineQuery<{ id: string; status: string | undefined }>()((s, kdb) =>
      kdb.selectFrom("employees").select("id").where("id", "=", s.id),
    );
    await expect(queries.rows(ignoresStatus, { id: "a", status: "active" })).rejects.toThrow("binds status but its SQL never uses them");
    const frozen = defineQuery<{ id: string }>()((_s, kdb) => kdb.selectFrom("employees").select("id").where("id", "=", "a"));
    await expect(queries.rows(frozen, { id: "a" })).rejects.toThrow("literal parameter");
    await db.destroy();
  });
});
