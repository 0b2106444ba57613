/**
 * The Store contract's deletions feed and calendars: tombstones and their sweep, closure
 * days, observed calendars, imported public holidays, and ping.
 */
import type { Store } from "../lib/store.ts";
import { type ContractFixture, QUERY_RANGE, U, fixtureUuid, standardFixture } from "./contract-fixture.ts";
import { B, type ContractKit, E, I, ZERO_ID, byDateAndName, compare, expectedClosure, idsOf } from "./contract-kit.ts";

export function calendarContract(kit: ContractKit): void {
  const { describe, test, expect, withStore, withFixture, employees, leave, deletions } = kit;
  describe("listDeletions", () => {
    // The fixture's deleted records were deleted at their updated_at: Ivy at U[6], which
    // hid her booking then too, and the deleted booking at U[3]. The sick booking was
    // never listed, so it has no tombstone.
    test(
      "lists the tombstones of one resource in (deleted_at, id) order, with the instant each record stopped being listed",
      withStore(async (store) => {
        expect(await deletions(store, { resource: "employees" })).toEqual([{ id: E.ivy, deleted_at: U[6] }]);
        expect(await deletions(store)).toEqual([
          { id: B.deleted, deleted_at: U[3] },
          { id: B.ofDeletedEmployee, deleted_at: U[6] },
        ]);
      }),
    );

    test(
      "filters by deleted_at ≥ deletedSince",
      withStore(async (store) => {
        expect(idsOf(await deletions(store, { deletedSince: U[3] }))).toEqual([B.deleted, B.ofDeletedEmployee]);
        expect(idsOf(await deletions(store, { deletedSince: U[3] + 1 }))).toEqual([B.ofDeletedEmployee]);
        expect(idsOf(await deletions(store, { resource: "employees", deletedSince: U[6] }))).toEqual([E.ivy]);
        expect(await deletions(store, { resource: "employees", deletedSince: U[6] + 1 })).toEqual([]);
      }),
    );

    test(
      "returns what lies strictly after the keyset position, at most `limit`",
      withStore(async (store) => {
        expect(idsOf(await deletions(store, { limit: 1 }))).toEqual([B.deleted]);
        expect(idsOf(await deletions(store, { after: { deletedAt: U[3], id: B.deleted } }))).toEqual([B.ofDeletedEmployee]);
        expect(idsOf(await deletions(store, { after: { deletedAt: U[3], id: ZERO_ID } }))).toEqual([B.deleted, B.ofDeletedEmployee]);
        expect(await deletions(store, { after: { deletedAt: U[6], id: B.ofDeletedEmployee } })).toEqual([]);
      }),
    );

    test(
      "keeps organisations apart, and lists no live record",
      withStore(async (store) => {
        expect(await deletions(store, { organisationId: I.orgB })).toEqual([]);
        expect(await deletions(store, { organisationId: I.orgB, resource: "employees" })).toEqual([]);
        const listed = new Set([...idsOf(await employees(store)), ...idsOf(await leave(store, { from: "0001-01-01", to: "9999-12-31" }))]);
        for (const resource of ["employees", "leave-requests"] as const) {
          for (const d of await deletions(store, { resource })) expect(listed.has(d.id)).toBe(false);
        }
      }),
    );
  });

  describe("sweepDeletions", () => {
    // The fixture's tombstones: the deleted booking at U[3]; Ivy and her booking at U[6].
    test(
      "takes only tombstones older than `before`, of every organisation, says how many, and keeps the rest listed (or keeps them all)",
      withStore(async (store) => {
        const swept = await store.sweepDeletions(U[6]);
        // A store may keep tombstones it derives from rows it must keep; one that sweeps takes exactly the older ones.
        expect(swept === 0 || swept === 1).toBe(true);
        const older = swept === 0 ? [{ id: B.deleted, deleted_at: U[3] }] : [];
        expect(await deletions(store, { deletedSince: 0 })).toEqual([...older, { id: B.ofDeletedEmployee, deleted_at: U[6] }]);
        expect(await deletions(store, { resource: "employees", deletedSince: 0 })).toEqual([{ id: E.ivy, deleted_at: U[6] }]);
        expect(await store.sweepDeletions(U[6])).toBe(0);
        // Listing from a later instant, as the feed does once the horizon has passed them, is unchanged.
        expect(await deletions(store, { deletedSince: U[6] })).toEqual([{ id: B.ofDeletedEmployee, deleted_at: U[6] }]);
      }),
    );
  });

  describe("listClosureDays", () => {
    test(
      "lists live closure days within [from, to], both ends included",
      withStore(async (store, fixture) => {
        const expected = [I.closures.onFrom, I.closures.inside, I.closures.onTo].map((id) => expectedClosure(fixture, id));
        expect(byDateAndName(await store.listClosureDays(I.orgA, QUERY_RANGE.from, QUERY_RANGE.to))).toEqual(expected);
        expect(await store.listClosureDays(I.orgA, "2026-03-16", "2026-03-16")).toEqual([expectedClosure(fixture, I.closures.inside)]);
      }),
    );

    test(
      "leaves out deleted days and other organisations'",
      withStore(async (store, fixture) => {
        expect(await store.listClosureDays(I.orgA, "2026-03-15", "2026-03-15")).toEqual([]);
        expect(await store.listClosureDays(I.orgA, "2026-03-10", "2026-03-10")).toEqual([]);
        expect(await store.listClosureDays(I.orgB, QUERY_RANGE.from, QUERY_RANGE.to)).toEqual([expectedClosure(fixture, I.closures.orgB)]);
      }),
    );
  });

  describe("observedCalendars", () => {
    test(
      "lists the distinct calendars of live employees employed in the range, sorted",
      withStore(async (store) => {
        // Leaving on `from` and starting on `to` both count; null calendars and the deleted employee's do not.
        expect(await store.observedCalendars(I.orgA, "2026-01-01", "2026-12-31")).toEqual(["gb-eng", "gb-nir", "gb-sct", "nl"]);
        expect(await store.observedCalendars(I.orgA, "2025-06-01", "2025-12-31")).toEqual(["gb-eng", "gb-nir", "gb-sct", "gb-wls"]);
      }),
    );

    test(
      "counts a null start or leaving date as open-ended",
      withStore(async (store) => {
        expect(await store.observedCalendars(I.orgA, "1990-01-01", "1990-12-31")).toEqual(["gb-eng"]);
        expect(await store.observedCalendars(I.orgA, "2030-01-01", "2030-12-31")).toEqual(["fr", "gb-eng", "gb-sct", "nl"]);
      }),
    );

    test(
      "keeps organisations apart",
      withStore(async (store) => {
        expect(await store.observedCalendars(I.orgB, "2026-01-01", "2026-12-31")).toEqual(["de"]);
      }),
    );

    // A store may answer from the latest hire before the range's end (the SQL store does):
    // here the latest hires of "se" left before the range, and an earlier one is still there.
    const leavers = standardFixture();
    const leaver = (n: number, fields: Partial<ContractFixture["employees"][number]>) => ({
      ...leavers.employees.find((e) => e.id === I.employees.ada)!,
      id: fixtureUuid("e9000000", n),
      ...fields,
    });
    leavers.employees.push(
      leaver(1, { holiday_calendar: "aa", deleted: true }),
      leaver(2, { holiday_calendar: "se", start_date: "2010-01-01" }),
      leaver(3, { holiday_calendar: "se", start_date: "2015-01-01", leaving_date: "2016-06-30" }),
      leaver(4, { holiday_calendar: "se", start_date: "2016-01-01", leaving_date: "2016-12-31" }),
      leaver(5, { holiday_calendar: "pt", start_date: "2010-01-01", leaving_date: "2012-12-31" }),
      leaver(6, { holiday_calendar: "no", start_date: null, leaving_date: "1999-12-31" }),
    );
    test(
      "looks past leavers to anyone employed in the range, whatever their hire order",
      withFixture(leavers, async (store) => {
        expect(await store.observedCalendars(I.orgA, "2020-01-01", "2020-12-31")).toEqual(["gb-eng", "gb-nir", "gb-wls", "se"]);
        expect(await store.observedCalendars(I.orgA, "2012-12-31", "2012-12-31")).toEqual(["gb-eng", "pt", "se"]);
        expect(await store.observedCalendars(I.orgA, "1999-12-31", "2009-12-31")).toEqual(["gb-eng", "no"]);
        expect(await store.observedCalendars(I.orgA, "2000-01-01", "2009-12-31")).toEqual(["gb-eng"]);
      }),
    );
  });

  describe("listImportedPublicHolidays", () => {
    const holidays = async (store: Store, orgId: string, calendars: string[], fromYear: number, toYear: number) =>
      (await store.listImportedPublicHolidays(orgId, calendars, fromYear, toYear)).sort((a, b) => compare(a.calendar, b.calendar) || compare(a.date, b.date));

    test(
      "filters by calendar and by year",
      withStore(async (store) => {
        expect(await holidays(store, I.orgA, ["gb-eng"], 2026, 2026)).toEqual([
          { calendar: "gb-eng", date: "2026-01-01", name: "New Year's Day" },
          { calendar: "gb-eng", date: "2026-12-25", name: "Christmas Day" },
        ]);
        expect(await holidays(store, I.orgA, ["gb-eng"], 2027, 2027)).toEqual([{ calendar: "gb-eng", date: "2027-01-01", name: "New Year's Day" }]);
        expect(await holidays(store, I.orgA, ["gb-sct", "gb-eng"], 2026, 2027)).toHaveLength(4);
        expect(await holidays(store, I.orgA, ["gb-sct"], 2026, 2027)).toEqual([{ calendar: "gb-sct", date: "2026-01-02", name: "2nd January" }]);
        expect(await holidays(store, I.orgA, ["gb-eng"], 2028, 2030)).toEqual([]);
      }),
    );

    test(
      "returns nothing for no calendars, unknown ones or another organisation's",
      withStore(async (store) => {
        expect(await holidays(store, I.orgA, [], 2026, 2027)).toEqual([]);
        expect(await holidays(store, I.orgA, ["fr"], 2026, 2027)).toEqual([]);
        expect(await holidays(store, I.orgB, ["gb-eng"], 2026, 2026)).toEqual([
          { calendar: "gb-eng", date: "2026-05-04", name: "Another organisation's holiday" },
        ]);
      }),
    );
  });

  describe("ping", () => {
    test(
      "resolves when the database answers",
      withStore(async (store) => {
        expect(await store.ping().then(() => "answered")).toBe("answered");
      }),
    );
  });
}
