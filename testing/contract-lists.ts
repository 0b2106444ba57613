/**
 * The Store contract's lists: employees and leave, their order, keyset and limit, and
 * every filter of lib/list-filters.ts.
 */
import {
  EMPLOYEE_FILTER_RULES,
  employeeFilterEntries,
  LEAVE_FILTER_RULES,
  leaveFilterEntries,
  type EmployeeFilters,
  type FilterRules,
  type LeaveFilters,
  type OptionalFilter,
} from "../lib/list-filters.ts";
import type { EmployeeRecord, LeaveBookingRecord } from "../lib/records.ts";
import { U } from "./contract-fixture.ts";
import { B, type ContractKit, E, EMPLOYEE_ORDER, I, LEAVE_ORDER, ZERO_ID, expectedBooking, expectedEmployee, idsOf, pagesOf } from "./contract-kit.ts";

/**
 * The optional filters named as a field of the record they test, of that field's type
 * (`status`, `employee_id`): the contract tries the values the fixture's records hold in
 * that field, so a new filter of this kind needs nothing here.
 */
type FieldFilter<F, R> = {
  [K in OptionalFilter<F>]-?: K extends keyof R ? (Exclude<R[K], null> extends Exclude<F[K], undefined> ? K : never) : never;
}[OptionalFilter<F>];

/**
 * For every other optional filter of lib/list-filters.ts, the values the contract tries,
 * drawn from the records the unfiltered list holds. Keyed by every such filter, so one
 * added there does not compile here until it has its values, and then every store is
 * checked to honour it.
 */
type FilterSamples<F, R> = { [K in Exclude<OptionalFilter<F>, FieldFilter<F, R>>]-?: (records: R[]) => Exclude<F[K], undefined>[] };

const EMPLOYEE_FILTER_SAMPLES: FilterSamples<EmployeeFilters, EmployeeRecord> = {
  updated_since: (records) => records.flatMap((e) => [e.updated_at, e.updated_at + 1]),
};

const LEAVE_FILTER_SAMPLES: FilterSamples<LeaveFilters, LeaveBookingRecord> = {
  updated_since: (records) => records.flatMap((b) => [b.updated_at, b.updated_at + 1]),
};

/** The values a filter is tried with: its samples, or the non-null values of the field it is named as. */
function valuesOf<R>(samples: Record<string, (records: R[]) => unknown[]>, name: string, records: R[]): unknown[] {
  const sample = samples[name] ?? ((all: R[]) => all.map((record) => (record as Record<string, unknown>)[name]).filter((value) => value !== null));
  return [...new Set(sample(records))];
}

/**
 * Each optional filter on its own, with each of its sample values: the store's list must
 * be the unfiltered list kept by the filter's rule, and some value must narrow it (else
 * the fixture does not exercise the filter and proves nothing).
 */
async function checkEveryFilter<F extends object, R extends { id: string }>(
  kit: ContractKit,
  entries: Record<string, unknown>,
  rules: FilterRules<F, R>,
  samples: FilterSamples<F, R>,
  list: (filter: Partial<F>) => Promise<R[]>,
): Promise<void> {
  const all = await list({});
  // The optional parameters of the schema: every one must have a rule and sample values.
  const names = Object.entries(entries)
    .filter(([, schema]) => (schema as { type?: string }).type === "optional")
    .map(([name]) => name)
    .sort();
  kit
    .expect({ rules: Object.keys(rules).sort(), sampled: Object.keys(samples).every((name) => names.includes(name)) })
    .toEqual({ rules: names, sampled: true });
  for (const name of names as OptionalFilter<F>[]) {
    const rule = rules[name] as (record: R, value: unknown) => boolean;
    const values = valuesOf(samples as Record<string, (records: R[]) => unknown[]>, String(name), all);
    let narrowed = false;
    for (const value of values) {
      const expected = idsOf(all.filter((record) => rule(record, value)));
      narrowed ||= expected.length < all.length;
      kit.expect({ filter: name, value, ids: idsOf(await list({ [name]: value } as Partial<F>)) }).toEqual({ filter: name, value, ids: expected });
    }
    kit.expect({ filter: name, narrowsTheFixture: narrowed }).toEqual({ filter: name, narrowsTheFixture: true });
  }
}

export function listContract(kit: ContractKit): void {
  const { describe, test, expect, withStore, employees, leave } = kit;
  describe("listEmployees", () => {
    test(
      "lists the organisation's live employees in (updated_at, id) order, ties broken by id",
      withStore(async (store, fixture) => {
        const list = await employees(store);
        expect(idsOf(list)).toEqual(EMPLOYEE_ORDER);
        expect(list).toEqual(EMPLOYEE_ORDER.map((id) => expectedEmployee(fixture, id)));
      }),
    );

    test(
      "leaves out deleted employees and other organisations'",
      withStore(async (store, fixture) => {
        expect(idsOf(await employees(store))).toEqual(EMPLOYEE_ORDER.filter((id) => id !== E.ivy));
        expect(await employees(store, { organisationId: I.orgB })).toEqual([expectedEmployee(fixture, E.zed)]);
      }),
    );

    test(
      "returns what lies strictly after the keyset position, held by a record or not",
      withStore(async (store) => {
        expect(idsOf(await employees(store, { after: { updatedAt: U[2], id: E.cy } }))).toEqual(EMPLOYEE_ORDER.slice(2));
        expect(idsOf(await employees(store, { after: { updatedAt: U[2], id: ZERO_ID } }))).toEqual(EMPLOYEE_ORDER.slice(1));
        expect(idsOf(await employees(store, { after: { updatedAt: U[1], id: E.ada } }))).toEqual(EMPLOYEE_ORDER.slice(1));
        expect(await employees(store, { after: { updatedAt: U[5], id: E.hal } })).toEqual([]);
      }),
    );

    test(
      "returns at most `limit`, and pages join up to the whole list",
      withStore(async (store) => {
        expect(idsOf(await employees(store, { limit: 1 }))).toEqual([E.ada]);
        for (const limit of [1, 2, 3]) {
          const next = (last: EmployeeRecord | undefined) =>
            employees(store, { limit, ...(last ? { after: { updatedAt: last.updated_at, id: last.id } } : {}) });
          const pages = await pagesOf(next, limit, EMPLOYEE_ORDER.length + 1);
          for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
          expect(idsOf(pages.flat())).toEqual(EMPLOYEE_ORDER);
        }
      }),
    );

    test(
      "filters by exact status",
      withStore(async (store) => {
        expect(idsOf(await employees(store, { status: "terminated" }))).toEqual([E.ed, E.fay]);
        expect(await employees(store, { status: "Terminated" })).toEqual([]);
        expect(await employees(store, { status: "termin" })).toEqual([]);
      }),
    );

    test(
      "filters by updated_at ≥ updatedSince",
      withStore(async (store) => {
        expect(idsOf(await employees(store, { updated_since: U[2] }))).toEqual(EMPLOYEE_ORDER.slice(1));
        expect(idsOf(await employees(store, { updated_since: U[2] + 1 }))).toEqual([E.ed, E.fay, E.gus, E.hal]);
      }),
    );

    test(
      "honours every filter lib/list-filters.ts declares, each as its rule says",
      withStore(async (store) => {
        await checkEveryFilter(kit, employeeFilterEntries, EMPLOYEE_FILTER_RULES, EMPLOYEE_FILTER_SAMPLES, (filter) => employees(store, filter));
      }),
    );

    test(
      "combines filters with the keyset and the limit",
      withStore(async (store) => {
        const q = { status: "active", updated_since: U[2], after: { updatedAt: U[2], id: E.cy } };
        expect(idsOf(await employees(store, q))).toEqual([E.di, E.bo, E.gus, E.hal]);
        expect(idsOf(await employees(store, { ...q, limit: 3 }))).toEqual([E.di, E.bo, E.gus]);
      }),
    );
  });

  describe("findEmployee", () => {
    test(
      "returns one live employee of the organisation",
      withStore(async (store, fixture) => {
        expect(await store.findEmployee(I.orgA, E.cy)).toEqual(expectedEmployee(fixture, E.cy));
        expect(await store.findEmployee(I.orgB, E.zed)).toEqual(expectedEmployee(fixture, E.zed));
      }),
    );

    test(
      "returns null for a deleted, unknown or other organisation's employee",
      withStore(async (store) => {
        expect(await store.findEmployee(I.orgA, E.ivy)).toBeNull();
        expect(await store.findEmployee(I.orgA, ZERO_ID)).toBeNull();
        expect(await store.findEmployee(I.orgA, E.zed)).toBeNull();
        expect(await store.findEmployee(I.orgB, E.ada)).toBeNull();
      }),
    );
  });

  describe("listOverlappingLeave", () => {
    test(
      "lists annual bookings overlapping [from, to] in (start_date, id) order",
      withStore(async (store, fixture) => {
        const list = await leave(store);
        expect(idsOf(list)).toEqual(LEAVE_ORDER);
        expect(list).toEqual(LEAVE_ORDER.map((id) => expectedBooking(fixture, id)));
      }),
    );

    test(
      "counts touching either end as overlap, and the day beyond as not",
      withStore(async (store) => {
        expect(idsOf(await leave(store, { from: "2026-03-01", to: "2026-03-01" }))).toEqual([B.long, B.endsOnFrom]);
        expect(idsOf(await leave(store, { from: "2026-03-31", to: "2026-03-31" }))).toEqual([B.long, B.startsOnTo]);
        expect(idsOf(await leave(store, { from: "2026-02-28", to: "2026-02-28" }))).toEqual([B.long, B.endsOnFrom, B.endsDayBefore]);
        expect(idsOf(await leave(store, { from: "2026-04-01", to: "2026-04-30" }))).toEqual([B.startsOnTo, B.startsDayAfter]);
      }),
    );

    test(
      "finds a long booking that started months before `from`",
      withStore(async (store) => {
        expect(idsOf(await leave(store, { from: "2026-01-10", to: "2026-01-20" }))).toEqual([B.long]);
        expect(idsOf(await leave(store, { from: "2025-10-01", to: "2025-10-01" }))).toEqual([B.long]);
        expect(await leave(store, { from: "2025-09-30", to: "2025-09-30" })).toEqual([]);
      }),
    );

    test(
      "leaves out other categories, deleted bookings, deleted employees' and other organisations'",
      withStore(async (store, fixture) => {
        const all = [B.long, B.endsOnFrom, B.endsDayBefore, B.sameStart, B.inside, B.halfDay, B.endHalf, B.startsOnTo, B.startsDayAfter];
        expect(idsOf(await leave(store, { from: "0001-01-01", to: "9999-12-31" }))).toEqual(all);
        expect(await leave(store, { employee_id: E.ivy })).toEqual([]);
        expect(await leave(store, { organisationId: I.orgB })).toEqual([expectedBooking(fixture, B.orgB)]);
      }),
    );

    test(
      "returns what lies strictly after the keyset position, held by a record or not",
      withStore(async (store) => {
        expect(idsOf(await leave(store, { after: { startDate: "2026-03-02", id: B.sameStart } }))).toEqual(LEAVE_ORDER.slice(3));
        expect(idsOf(await leave(store, { after: { startDate: "2026-03-02", id: ZERO_ID } }))).toEqual(LEAVE_ORDER.slice(2));
        expect(idsOf(await leave(store, { after: { startDate: "2025-10-01", id: B.long } }))).toEqual(LEAVE_ORDER.slice(1));
        expect(await leave(store, { after: { startDate: "2026-03-31", id: B.startsOnTo } })).toEqual([]);
      }),
    );

    test(
      "returns at most `limit`, and pages join up to the whole list",
      withStore(async (store) => {
        expect(idsOf(await leave(store, { limit: 2 }))).toEqual(LEAVE_ORDER.slice(0, 2));
        for (const limit of [1, 2, 3]) {
          const next = (last: LeaveBookingRecord | undefined) =>
            leave(store, { limit, ...(last ? { after: { startDate: last.start_date, id: last.id } } : {}) });
          const pages = await pagesOf(next, limit, LEAVE_ORDER.length + 1);
          for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
          expect(idsOf(pages.flat())).toEqual(LEAVE_ORDER);
        }
      }),
    );

    test(
      "filters by status, employee and updated_at ≥ updatedSince",
      withStore(async (store) => {
        expect(idsOf(await leave(store, { status: "approved" }))).toEqual([B.long, B.inside, B.endHalf]);
        expect(idsOf(await leave(store, { status: "pending" }))).toEqual([B.endsOnFrom]);
        expect(idsOf(await leave(store, { status: "rejected" }))).toEqual([B.startsOnTo]);
        expect(idsOf(await leave(store, { status: "cancelled" }))).toEqual([B.sameStart]);
        expect(idsOf(await leave(store, { status: "cancellation_requested" }))).toEqual([B.halfDay]);
        expect(idsOf(await leave(store, { employee_id: E.ada }))).toEqual([B.long, B.inside]);
        expect(idsOf(await leave(store, { employee_id: E.bo }))).toEqual([B.endsOnFrom, B.endHalf]);
        expect(idsOf(await leave(store, { updated_since: U[5] }))).toEqual([B.long, B.sameStart, B.halfDay, B.endHalf]);
        expect(idsOf(await leave(store, { updated_since: U[5] + 1 }))).toEqual([B.long, B.endHalf]);
      }),
    );

    test(
      "honours every filter lib/list-filters.ts declares, each as its rule says",
      withStore(async (store) => {
        const wide = { from: "0001-01-01", to: "9999-12-31" };
        await checkEveryFilter(kit, leaveFilterEntries, LEAVE_FILTER_RULES, LEAVE_FILTER_SAMPLES, (filter) => leave(store, { ...wide, ...filter }));
      }),
    );

    test(
      "combines filters with the keyset and the limit",
      withStore(async (store) => {
        const q = { status: "approved" as const, updated_since: U[2], after: { startDate: "2026-03-01", id: ZERO_ID } };
        expect(idsOf(await leave(store, q))).toEqual([B.inside, B.endHalf]);
        expect(idsOf(await leave(store, { ...q, employee_id: E.ada, limit: 1 }))).toEqual([B.inside]);
      }),
    );
  });
}
