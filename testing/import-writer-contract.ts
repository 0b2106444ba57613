/**
 * The import half of the AdminStore contract (admin-store-contract.ts): what `runImport`
 * and its `ImportWriter` promise. Counts; an identical re-import that moves no
 * `updated_at`, and the changes that do move it (docs/api.md, "Incremental sync"); soft
 * deletes; reads of the import's own writes; and an import that lands whole or not at all.
 * Checked through the Store's reads, as a client would see the outcome.
 */
import type { AdminStore, ClosureDayInput, EmployeeInput, LeaveBookingInput, WriteCounts } from "../lib/admin-store.ts";
import type { ClosureDayRecord, LeaveTypeRecord } from "../lib/records.ts";
import type { ImportedPublicHoliday, Store } from "../lib/store.ts";
import { ANNUAL, booking, closure, employee, rejectionOf, type WithAdminStore } from "./admin-fixture.ts";
import { T0, U, fixtureUuid } from "./contract-fixture.ts";
import type { ContractFramework } from "./store-contract.ts";

const ORG = fixtureUuid("0a000000", 0xa);
const OTHER_ORG = fixtureUuid("0b000000", 0xb);
const [E1, E2, E3, E9] = [1, 2, 3, 9].map((n) => fixtureUuid("e0000000", n)) as [string, string, string, string];
const [K1, K2] = [1, 2].map((n) => fixtureUuid("b0000000", n)) as [string, string];
const [C1, C2, C9] = [1, 2, 9].map((n) => fixtureUuid("c0000000", n)) as [string, string, string];

const UNPAID: LeaveTypeRecord = { id: fixtureUuid("a0000000", 2), name: "Unpaid leave", category: "annual", is_paid: false };
const NO_TYPE = fixtureUuid("a0000000", 9);

const counts = (some: Partial<WriteCounts>): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0, ...some });
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const closureRecord = ({ id: _, ...day }: ClosureDayInput): ClosureDayRecord => day;
const byDate = (days: ClosureDayRecord[]) => [...days].sort((a, b) => compare(a.date, b.date));
const byCalendarAndDate = (holidays: ImportedPublicHoliday[]) => [...holidays].sort((a, b) => compare(a.calendar, b.calendar) || compare(a.date, b.date));

/** The organisation's live employees as (id, updated_at), in the page's order. */
const employeeVersions = async (store: Store) =>
  (await store.listEmployees({ organisationId: ORG, filters: {}, limit: 1000 })).map((e) => [e.id, e.updated_at]);

/** Every visible annual booking of the organisation. */
const allLeave = (store: Store) => store.listOverlappingLeave({ organisationId: ORG, filters: { from: "0001-01-01", to: "9999-12-31" }, limit: 1000 });
const leaveVersions = async (store: Store) => (await allLeave(store)).map((b) => [b.id, b.updated_at]);

/** All a client could see of the organisation's imported data. */
const everything = async (store: Store) => ({
  employees: await store.listEmployees({ organisationId: ORG, filters: {}, limit: 1000 }),
  leave: await allLeave(store),
  closures: byDate(await store.listClosureDays(ORG, "0001-01-01", "9999-12-31")),
  holidays: byCalendarAndDate(await store.listImportedPublicHolidays(ORG, ["gb-eng", "gb-sct"], 2000, 2100)),
});

/** The organisations, then one committed import at `now` of two leave types, employees and their bookings. */
async function seed(store: Store & AdminStore, employees: EmployeeInput[], bookings: LeaveBookingInput[], now = U[1]) {
  for (const id of [ORG, OTHER_ORG]) await store.createOrganisation({ id, name: "Acme Ltd", api_enabled: true, created_at: T0 });
  await store.runImport(async (w) => {
    await w.upsertLeaveTypes(ORG, [ANNUAL, UNPAID], now);
    await w.upsertEmployees(ORG, employees, now);
    await w.upsertLeaveBookings(ORG, bookings, now);
  });
}

export function runImportWriterCases(framework: ContractFramework, withStore: WithAdminStore): void {
  const { describe, test, expect } = framework;

  describe("runImport: employees", () => {
    test(
      "creates, and an identical re-import changes nothing, updated_at included",
      withStore(async (store) => {
        await seed(store, [], []);
        const rows = [employee(E1), employee(E2, { first_name: "Bo", department: null })];
        expect(await store.runImport((w) => w.upsertEmployees(ORG, rows, U[1]))).toEqual(counts({ created: 2 }));
        // The same records with their fields in another order.
        const reordered = rows.map((r) => Object.fromEntries(Object.entries(r).reverse()) as unknown as EmployeeInput);
        expect(await store.runImport((w) => w.upsertEmployees(ORG, reordered, U[2]))).toEqual(counts({ unchanged: 2 }));
        expect(await employeeVersions(store)).toEqual([
          [E1, U[1]],
          [E2, U[1]],
        ]);
        const { external_id: _, ...ada } = rows[0]!;
        expect(await store.findEmployee(ORG, E1)).toEqual({ ...ada, updated_at: U[1] });
      }),
    );

    test(
      "a changed employee takes the import's updated_at; a new external_id alone is no change",
      withStore(async (store) => {
        await seed(store, [employee(E1), employee(E2)], []);
        const rows = [employee(E1, { job_title: "Lead engineer" }), employee(E2, { external_id: "HR-2" })];
        expect(await store.runImport((w) => w.upsertEmployees(ORG, rows, U[2]))).toEqual(counts({ updated: 1, unchanged: 1 }));
        expect(await employeeVersions(store)).toEqual([
          [E2, U[1]],
          [E1, U[2]],
        ]);
        expect((await store.findEmployee(ORG, E1))?.job_title).toBe("Lead engineer");
      }),
    );

    test(
      "later rows with the same id win, and count once",
      withStore(async (store) => {
        await seed(store, [], []);
        const rows = [employee(E1, { first_name: "Ada" }), employee(E1, { first_name: "Augusta" })];
        expect(await store.runImport((w) => w.upsertEmployees(ORG, rows, U[1]))).toEqual(counts({ created: 1 }));
        expect((await store.listEmployees({ organisationId: ORG, filters: {}, limit: 10 })).map((e) => e.first_name)).toEqual(["Augusta"]);
      }),
    );

    test(
      "in an import that began with none, a record written again by a later batch counts as updated, and in one written and deleted, as created",
      withStore(async (store) => {
        await seed(store, [], []);
        const written = await store.runImport(async (w) => [
          await w.upsertEmployees(ORG, [employee(E1, { first_name: "Ada" }), employee(E2)], U[1]),
          await w.upsertEmployees(ORG, [employee(E1, { first_name: "Augusta" })], U[1]),
          await w.upsertEmployees(ORG, [employee(E2)], U[1]),
          await w.upsertLeaveBookings(ORG, [booking(K1, E1)], U[1]),
          await w.upsertLeaveBookings(ORG, [booking(K1, E1, { status: "cancelled", cancelled_at: T0 })], U[1]),
          await w.deleteLeaveBookings(ORG, [K1], U[1]),
          await w.upsertLeaveBookings(ORG, [booking(K1, E1)], U[1]),
        ]);
        const expected = [{ created: 2 }, { updated: 1 }, { unchanged: 1 }, { created: 1 }, { updated: 1 }, { deleted: 1 }, { created: 1 }];
        expect(written).toEqual(expected.map(counts));
        expect((await store.listEmployees({ organisationId: ORG, filters: {}, limit: 10 })).map((e) => e.first_name).sort()).toEqual(["Ada", "Augusta"]);
        expect((await allLeave(store)).map((b) => [b.id, b.status])).toEqual([[K1, "approved"]]);
      }),
    );

    test(
      "deleteEmployees soft-deletes live employees; unknown and deleted ids count as unchanged",
      withStore(async (store) => {
        await seed(store, [employee(E1), employee(E2)], []);
        expect(await store.runImport((w) => w.deleteEmployees(ORG, [E1, E1, E9], U[2]))).toEqual(counts({ deleted: 1, unchanged: 1 }));
        expect(await store.findEmployee(ORG, E1)).toBeNull();
        expect(await employeeVersions(store)).toEqual([[E2, U[1]]]);
        expect(await store.runImport((w) => w.deleteEmployees(ORG, [E1], U[3]))).toEqual(counts({ unchanged: 1 }));
      }),
    );

    test(
      "a deleted employee goes with their bookings, nothing of them kept; imported again, they are created afresh, without the bookings",
      withStore(async (store) => {
        await seed(store, [employee(E1), employee(E2)], [booking(K1, E1), booking(K2, E2)]);
        await store.runImport((w) => w.deleteEmployees(ORG, [E1], U[2]));
        expect(await leaveVersions(store)).toEqual([[K2, U[1]]]);
        // Gone, not hidden: what --prune and the deletion count see, inside an import.
        expect(await store.runImport((w) => w.liveIds(ORG, { record: "booking", from: "0001-01-01", to: "9999-12-31" }, null, 10))).toEqual([K2]);
        expect(await store.runImport((w) => w.upsertEmployees(ORG, [employee(E1)], U[3]))).toEqual(counts({ created: 1 }));
        expect((await store.findEmployee(ORG, E1))?.updated_at).toBe(U[3]);
        expect(await leaveVersions(store)).toEqual([[K2, U[1]]]);
        // Their bookings are new again too, when the file brings them.
        expect(await store.runImport((w) => w.upsertLeaveBookings(ORG, [booking(K1, E1)], U[4]))).toEqual(counts({ created: 1 }));
      }),
    );

    test(
      "employeeFacts answers the live employees among the ids, as the import has left them so far",
      withStore(async (store) => {
        await seed(store, [employee(E1, { department: "Sales", holiday_calendar: "gb-sct" }), employee(E2)], []);
        const facts = await store.runImport(async (w) => {
          await w.upsertEmployees(ORG, [employee(E3, { department: null, holiday_calendar: null })], U[2]);
          await w.deleteEmployees(ORG, [E2], U[2]);
          return { mine: await w.employeeFacts(ORG, [E1, E2, E3, E9]), other: await w.employeeFacts(OTHER_ORG, [E1]) };
        });
        expect([...facts.mine.entries()].sort((a, b) => compare(a[0], b[0]))).toEqual([
          [E1, { department: "Sales", holiday_calendar: "gb-sct" }],
          [E3, { department: null, holiday_calendar: null }],
        ]);
        expect(facts.other.size).toBe(0);
      }),
    );

    test(
      "keeps organisations apart: the same id in two organisations is two employees",
      withStore(async (store) => {
        await seed(store, [employee(E1)], []);
        expect(await store.runImport((w) => w.upsertEmployees(OTHER_ORG, [employee(E1, { first_name: "Zed" })], U[2]))).toEqual(counts({ created: 1 }));
        await store.runImport((w) => w.deleteEmployees(ORG, [E1], U[3]));
        expect(await store.findEmployee(ORG, E1)).toBeNull();
        expect(await store.findEmployee(OTHER_ORG, E1)).toMatchObject({ first_name: "Zed", updated_at: U[2] });
      }),
    );
  });

  describe("runImport: what --prune compares with", () => {
    test(
      "countLive and liveIds see the live records of one organisation, bookings by start date, in id order and in pages",
      withStore(async (store) => {
        await seed(
          store,
          [employee(E3), employee(E1), employee(E2)],
          [
            booking(K2, E1, { start_date: "2026-03-02", end_date: "2026-03-02", days: 1 }),
            booking(K1, E1, { start_date: "2026-02-26", end_date: "2026-02-27" }),
          ],
        );
        await store.runImport((w) => w.upsertEmployees(OTHER_ORG, [employee(E9)], U[2]));
        const live = await store.runImport(async (w) => {
          await w.deleteEmployees(ORG, [E3], U[2]);
          // Inside the transaction, what it wrote counts: a booking added just now is among them.
          await w.upsertLeaveBookings(ORG, [booking(fixtureUuid("b0000000", 3), E2, { start_date: "2026-03-31", end_date: "2026-03-31", days: 1 })], U[2]);
          return {
            employees: await w.countLive(ORG, { record: "employee" }),
            firstPage: await w.liveIds(ORG, { record: "employee" }, null, 1),
            nextPage: await w.liveIds(ORG, { record: "employee" }, E1, 10),
            march: await w.liveIds(ORG, { record: "booking", from: "2026-03-01", to: "2026-03-31" }, null, 10),
            marchCount: await w.countLive(ORG, { record: "booking", from: "2026-03-01", to: "2026-03-31" }),
          };
        });
        expect(live).toEqual({ employees: 2, firstPage: [E1], nextPage: [E2], march: [K2, fixtureUuid("b0000000", 3)], marchCount: 2 });
      }),
    );
  });

  describe("runImport: leave", () => {
    test(
      "a changed leave type moves its bookings' updated_at and shows in them; an unchanged one moves nothing",
      withStore(async (store) => {
        await seed(
          store,
          [employee(E1)],
          [booking(K1, E1), booking(K2, E1, { leave_type_id: UNPAID.id, start_date: "2026-04-01", end_date: "2026-04-01", days: 1 })],
        );
        expect(await store.runImport((w) => w.upsertLeaveTypes(ORG, [ANNUAL, UNPAID], U[2]))).toEqual(counts({ unchanged: 2 }));
        expect(await leaveVersions(store)).toEqual([
          [K1, U[1]],
          [K2, U[1]],
        ]);

        const renamed = { ...ANNUAL, name: "Holiday" };
        expect(await store.runImport((w) => w.upsertLeaveTypes(ORG, [renamed, UNPAID], U[3]))).toEqual(counts({ updated: 1, unchanged: 1 }));
        expect(await leaveVersions(store)).toEqual([
          [K1, U[3]],
          [K2, U[1]],
        ]);
        expect((await allLeave(store))[0]?.leave_type).toEqual(renamed);

        const sickness = { ...renamed, category: "sickness" };
        const created = { id: fixtureUuid("a0000000", 3), name: "Study leave", category: "annual", is_paid: true };
        expect(await store.runImport((w) => w.upsertLeaveTypes(ORG, [sickness, created], U[4]))).toEqual(counts({ created: 1, updated: 1 }));
        expect(await leaveVersions(store)).toEqual([[K2, U[1]]]);
      }),
    );

    test(
      "bookings: created, unchanged when imported again, updated when changed, deleted outright and created afresh",
      withStore(async (store) => {
        await seed(store, [employee(E1)], []);
        const rows = [booking(K1, E1), booking(K2, E1, { start_date: "2026-05-04", end_date: "2026-05-04", days: 1 })];
        expect(await store.runImport((w) => w.upsertLeaveBookings(ORG, rows, U[1]))).toEqual(counts({ created: 2 }));
        expect(await store.runImport((w) => w.upsertLeaveBookings(ORG, rows, U[2]))).toEqual(counts({ unchanged: 2 }));

        const changed = [
          { ...rows[0]!, status: "cancelled" as const, cancelled_at: T0 },
          { ...rows[1]!, external_id: "HR-K2" },
        ];
        expect(await store.runImport((w) => w.upsertLeaveBookings(ORG, changed, U[3]))).toEqual(counts({ updated: 1, unchanged: 1 }));
        expect(await leaveVersions(store)).toEqual([
          [K1, U[3]],
          [K2, U[1]],
        ]);
        expect((await allLeave(store))[0]?.status).toBe("cancelled");

        expect(await store.runImport((w) => w.deleteLeaveBookings(ORG, [K2, K2, E9], U[4]))).toEqual(counts({ deleted: 1, unchanged: 1 }));
        expect(await leaveVersions(store)).toEqual([[K1, U[3]]]);
        expect(await store.runImport((w) => w.upsertLeaveBookings(ORG, [rows[1]!], U[5]))).toEqual(counts({ created: 1 }));
        expect(await leaveVersions(store)).toEqual([
          [K1, U[3]],
          [K2, U[5]],
        ]);
      }),
    );
  });

  describe("runImport: closure days and public holidays", () => {
    test(
      "closure days: counts, soft deletes, and the writer reads the import's own writes",
      withStore(async (store) => {
        await seed(store, [], []);
        const [first, second] = [closure(C1, "2026-03-01"), closure(C2, "2026-03-02", { applies_to: "location", location: "Dublin" })];
        const seen = await store.runImport(async (w) => ({
          created: await w.upsertClosureDays(ORG, [first, second], U[1]),
          deleted: await w.deleteClosureDays(ORG, [C2, C9], U[1]),
          listed: byDate(await w.listClosureDays(ORG, "2026-01-01", "2026-12-31")),
        }));
        expect(seen).toEqual({ created: counts({ created: 2 }), deleted: counts({ deleted: 1, unchanged: 1 }), listed: [closureRecord(first)] });
        expect(await store.listClosureDays(ORG, "2026-01-01", "2026-12-31")).toEqual([closureRecord(first)]);

        expect(await store.runImport((w) => w.upsertClosureDays(ORG, [first, second], U[2]))).toEqual(counts({ updated: 1, unchanged: 1 }));
        const renamed = { ...first, name: "Founders' day" };
        expect(await store.runImport((w) => w.upsertClosureDays(ORG, [renamed], U[3]))).toEqual(counts({ updated: 1 }));
        expect(byDate(await store.listClosureDays(ORG, "2026-01-01", "2026-12-31"))).toEqual([closureRecord(renamed), closureRecord(second)]);
      }),
    );

    test(
      "replacePublicHolidays replaces one calendar's year, and an empty list removes it",
      withStore(async (store) => {
        await seed(store, [], []);
        await store.runImport(async (w) => {
          await w.replacePublicHolidays(ORG, "gb-eng", 2026, [
            { date: "2026-01-01", name: "New Year's Day" },
            { date: "2026-12-25", name: "Christmas Day" },
          ]);
          await w.replacePublicHolidays(ORG, "gb-eng", 2027, [{ date: "2027-01-01", name: "New Year's Day" }]);
          await w.replacePublicHolidays(ORG, "gb-sct", 2026, [{ date: "2026-01-02", name: "2nd January" }]);
          await w.replacePublicHolidays(OTHER_ORG, "gb-eng", 2026, [{ date: "2026-05-04", name: "Early May bank holiday" }]);
        });
        const seen = await store.runImport(async (w) => {
          await w.replacePublicHolidays(ORG, "gb-eng", 2026, [{ date: "2026-05-25", name: "Spring bank holiday" }]);
          return w.listImportedPublicHolidays(ORG, ["gb-eng"], 2026, 2026);
        });
        expect(seen).toEqual([{ calendar: "gb-eng", date: "2026-05-25", name: "Spring bank holiday" }]);
        expect(byCalendarAndDate(await store.listImportedPublicHolidays(ORG, ["gb-eng", "gb-sct"], 2026, 2027))).toEqual([
          { calendar: "gb-eng", date: "2026-05-25", name: "Spring bank holiday" },
          { calendar: "gb-eng", date: "2027-01-01", name: "New Year's Day" },
          { calendar: "gb-sct", date: "2026-01-02", name: "2nd January" },
        ]);
        await store.runImport((w) => w.replacePublicHolidays(ORG, "gb-eng", 2026, []));
        expect(await store.listImportedPublicHolidays(ORG, ["gb-eng"], 2026, 2026)).toEqual([]);
        expect(await store.listImportedPublicHolidays(OTHER_ORG, ["gb-eng"], 2026, 2026)).toEqual([
          { calendar: "gb-eng", date: "2026-05-04", name: "Early May bank holiday" },
        ]);
      }),
    );
  });

  describe("runImport: all or nothing", () => {
    test(
      "resolves with what its work returns",
      withStore(async (store) => {
        expect(await store.runImport(async () => "done")).toBe("done");
      }),
    );

    test(
      "a throw inside the import leaves the store as it was and is what runImport rejects with",
      withStore(async (store) => {
        await seed(store, [employee(E1), employee(E2)], [booking(K1, E1)]);
        await store.runImport(async (w) => {
          await w.upsertClosureDays(ORG, [closure(C1, "2026-03-01")], U[1]);
          await w.replacePublicHolidays(ORG, "gb-eng", 2026, [{ date: "2026-01-01", name: "New Year's Day" }]);
        });
        const before = await everything(store);
        const failure = new Error("the source file ended early");
        const rejected = await rejectionOf(
          store.runImport(async (w) => {
            await w.upsertEmployees(ORG, [employee(E1, { first_name: "Changed" }), employee(E3)], U[2]);
            await w.deleteEmployees(ORG, [E2], U[2]);
            await w.upsertLeaveTypes(ORG, [{ ...ANNUAL, name: "Renamed" }], U[2]);
            await w.upsertLeaveBookings(ORG, [booking(K2, E3)], U[2]);
            await w.deleteLeaveBookings(ORG, [K1], U[2]);
            await w.upsertClosureDays(ORG, [closure(C2, "2026-03-05")], U[2]);
            await w.deleteClosureDays(ORG, [C1], U[2]);
            await w.replacePublicHolidays(ORG, "gb-eng", 2026, []);
            throw failure;
          }),
        );
        expect(rejected).toBe(failure);
        expect(await everything(store)).toEqual(before);
        // The next import runs, and finds none of the failed one's writes.
        expect(await store.runImport((w) => w.upsertEmployees(ORG, [employee(E3)], U[3]))).toEqual(counts({ created: 1 }));
      }),
    );

    test(
      "a booking whose employee or leave type does not exist fails the whole import",
      withStore(async (store) => {
        await seed(store, [employee(E1)], []);
        for (const refused of [booking(K1, E9), booking(K1, E1, { leave_type_id: NO_TYPE })]) {
          const rejected = await rejectionOf(
            store.runImport(async (w) => {
              await w.upsertEmployees(ORG, [employee(E2)], U[2]);
              await w.upsertLeaveBookings(ORG, [refused], U[2]);
              await w.upsertLeaveBookings(ORG, [booking(K2, E1)], U[2]);
              await w.upsertEmployees(ORG, [employee(E3)], U[2]);
            }),
          );
          // The refused write's own error, even where the import went on while it ran (Postgres).
          const message = String((rejected as Error).message);
          expect({ message, namesTheReference: /foreign key|no employee|no leave type/i.test(message) }).toMatchObject({ namesTheReference: true });
          expect(await store.findEmployee(ORG, E2)).toBeNull();
          expect(await allLeave(store)).toEqual([]);
        }
      }),
    );

    test(
      "imports that run at the same time both land whole",
      withStore(async (store) => {
        await seed(store, [], []);
        const importOne = (employeeId: string, closureId: string, date: string) =>
          store.runImport(async (w) => {
            const written = await w.upsertEmployees(ORG, [employee(employeeId)], U[1]);
            await w.upsertClosureDays(ORG, [closure(closureId, date)], U[1]);
            return written;
          });
        expect(await Promise.all([importOne(E1, C1, "2026-03-01"), importOne(E2, C2, "2026-03-02")])).toEqual([counts({ created: 1 }), counts({ created: 1 })]);
        expect(await employeeVersions(store)).toEqual([
          [E1, U[1]],
          [E2, U[1]],
        ]);
        expect((await store.listClosureDays(ORG, "2026-01-01", "2026-12-31")).map((c) => c.date).sort()).toEqual(["2026-03-01", "2026-03-02"]);
      }),
    );
  });
}
