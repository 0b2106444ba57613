/**
 * The memory store's imported data, one Map a table, keyed as the SQL tables' primary
 * keys are. Records are never changed in place: a write puts a new object under the key.
 * That is what lets an import work on a copy of the Maps (`copyTables`, which copies
 * keys, not records) and swap it in when it succeeds.
 */
import type { ClosureDayRecord } from "../../lib/records.ts";
import type { ImportedPublicHoliday } from "../../lib/store.ts";
import type { StoredBooking, StoredClosureDay, StoredEmployee, StoredLeaveType, StoredPublicHoliday } from "../../lib/store-contents.ts";

export interface MemoryTables {
  employees: Map<string, StoredEmployee>;
  leaveTypes: Map<string, StoredLeaveType>;
  bookings: Map<string, StoredBooking>;
  closureDays: Map<string, StoredClosureDay>;
  publicHolidays: Map<string, StoredPublicHoliday>;
}

/** A table key: a record's organisation and id (a public holiday's: calendar and date). */
export const keyOf = (organisationId: string, ...id: string[]): string => JSON.stringify([organisationId, ...id]);

export const holidayKey = (h: { organisation_id: string; calendar: string; date: string }) => keyOf(h.organisation_id, h.calendar, h.date);

export function emptyTables(): MemoryTables {
  return { employees: new Map(), leaveTypes: new Map(), bookings: new Map(), closureDays: new Map(), publicHolidays: new Map() };
}

export function copyTables(t: MemoryTables): MemoryTables {
  return {
    employees: new Map(t.employees),
    leaveTypes: new Map(t.leaveTypes),
    bookings: new Map(t.bookings),
    closureDays: new Map(t.closureDays),
    publicHolidays: new Map(t.publicHolidays),
  };
}

/** `Store.listClosureDays` over these tables; the import writer reads its own copy with it. */
export function closureDaysWithin(t: MemoryTables, organisationId: string, from: string, to: string): ClosureDayRecord[] {
  return [...t.closureDays.values()]
    .filter((c) => c.organisation_id === organisationId && !c.deleted && c.date >= from && c.date <= to)
    .map(({ organisation_id: _o, id: _i, updated_at: _u, deleted: _d, ...day }): ClosureDayRecord => day);
}

/** `Store.listImportedPublicHolidays` over these tables; the import writer reads its own copy with it. */
export function importedHolidaysWithin(
  t: MemoryTables,
  organisationId: string,
  calendars: readonly string[],
  fromYear: number,
  toYear: number,
): ImportedPublicHoliday[] {
  return [...t.publicHolidays.values()]
    .filter((h) => h.organisation_id === organisationId && calendars.includes(h.calendar))
    .filter((h) => h.year >= fromYear && h.year <= toYear)
    .map(({ calendar, date, name }): ImportedPublicHoliday => ({ calendar, date, name }));
}
