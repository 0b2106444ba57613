/**
 * The memory store's imported data, one Map a table, keyed as the SQL tables' primary
 * keys are. Records are never changed in place: a write puts a new object under the key.
 * That is what lets an import work on a copy of the Maps (`copyTables`, which copies
 * keys, not records) and swap it in when it succeeds.
 */
import { PUBLISH_AS_STAMPED_MS } from "../../lib/admin-store.ts";
import type { ClosureDayRecord } from "../../lib/records.ts";
import type { DeletedResource, ImportedPublicHoliday } from "../../lib/store.ts";
import type { StoredBooking, StoredClosureDay, StoredEmployee, StoredLeaveType, StoredPublicHoliday } from "../../lib/store-contents.ts";

/** A tombstone of the deletions feed (lib/store.ts, `listDeletions`). */
export interface StoredDeletion {
  organisation_id: string;
  resource: DeletedResource;
  id: string;
  deleted_at: number;
}

/** That a record stopped being listed with this department and calendar of its employee, at `until` (lib/store.ts, `RestrictedReads.listDeletions`). */
export interface StoredExit {
  organisation_id: string;
  resource: DeletedResource;
  id: string;
  department: string | null;
  holiday_calendar: string | null;
  until: number;
}

export interface MemoryTables {
  employees: Map<string, StoredEmployee>;
  leaveTypes: Map<string, StoredLeaveType>;
  bookings: Map<string, StoredBooking>;
  closureDays: Map<string, StoredClosureDay>;
  publicHolidays: Map<string, StoredPublicHoliday>;
  /** Keyed by organisation, resource and id. */
  deletions: Map<string, StoredDeletion>;
  /** Selection exits, in the order written; an import appends. */
  exits: StoredExit[];
}

/** A table key: a record's organisation and id (a public holiday's: calendar and date). */
export const keyOf = (organisationId: string, ...id: string[]): string => JSON.stringify([organisationId, ...id]);

export const holidayKey = (h: { organisation_id: string; calendar: string; date: string }) => keyOf(h.organisation_id, h.calendar, h.date);

export function emptyTables(): MemoryTables {
  return {
    employees: new Map(),
    leaveTypes: new Map(),
    bookings: new Map(),
    closureDays: new Map(),
    publicHolidays: new Map(),
    deletions: new Map(),
    exits: [],
  };
}

export function copyTables(t: MemoryTables): MemoryTables {
  return {
    employees: new Map(t.employees),
    leaveTypes: new Map(t.leaveTypes),
    bookings: new Map(t.bookings),
    closureDays: new Map(t.closureDays),
    publicHolidays: new Map(t.publicHolidays),
    deletions: new Map(t.deletions),
    exits: [...t.exits],
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

/** Whether the leave list can return booking `b`: not deleted, of a live employee, of an annual leave type. */
export function isListedBooking(t: MemoryTables, b: StoredBooking): boolean {
  if (b.deleted || t.leaveTypes.get(keyOf(b.organisation_id, b.leave_type_id))?.category !== "annual") return false;
  const employee = t.employees.get(keyOf(b.organisation_id, b.employee_id));
  return employee !== undefined && !employee.deleted;
}

/**
 * Runs `change`, then keeps the tombstones right for the organisation's records it may
 * have hidden or shown (lib/store.ts, `listDeletions`): the employees `employeeIds`, the
 * bookings `bookingIds` and those `bookings` picks, before and after. One listed before and not after gets a
 * tombstone at `now`; one listed after loses its tombstone.
 */
export function keepingTombstones(
  t: MemoryTables,
  organisationId: string,
  now: number,
  affected: { employeeIds?: Iterable<string>; bookingIds?: Iterable<string>; bookings?: (b: StoredBooking) => boolean },
  change: () => void,
): void {
  type Listed = { resource: DeletedResource; id: string; department: string | null; holiday_calendar: string | null };
  const employeeOf = (id: string) => t.employees.get(keyOf(organisationId, id))!;
  const listed = () => {
    const keys = new Map<string, Listed>();
    const add = (resource: DeletedResource, id: string, e: StoredEmployee) =>
      keys.set(keyOf(organisationId, resource, id), { resource, id, department: e.department, holiday_calendar: e.holiday_calendar });
    for (const id of affected.employeeIds ?? []) {
      const e = t.employees.get(keyOf(organisationId, id));
      if (e && !e.deleted) add("employees", id, e);
    }
    for (const id of affected.bookingIds ?? []) {
      const b = t.bookings.get(keyOf(organisationId, id));
      if (b && isListedBooking(t, b)) add("leave-requests", id, employeeOf(b.employee_id));
    }
    const pick = affected.bookings;
    if (pick) {
      for (const b of t.bookings.values()) {
        if (b.organisation_id === organisationId && pick(b) && isListedBooking(t, b)) add("leave-requests", b.id, employeeOf(b.employee_id));
      }
    }
    return keys;
  };
  const before = listed();
  change();
  const after = listed();
  for (const [key, was] of before) {
    const now_ = after.get(key);
    if (!now_) t.deletions.set(key, { organisation_id: organisationId, resource: was.resource, id: was.id, deleted_at: now });
    // No longer listed with the same department and calendar: it left the selections that held those.
    if (!now_ || now_.department !== was.department || now_.holiday_calendar !== was.holiday_calendar) {
      t.exits.push({
        organisation_id: organisationId,
        resource: was.resource,
        id: was.id,
        department: was.department,
        holiday_calendar: was.holiday_calendar,
        until: now,
      });
    }
  }
  for (const key of after.keys()) t.deletions.delete(key);
}

/**
 * What the SQL store's publications do (adapters/sql/published-stamps.ts), here at the
 * swap: an import that took longer than a second shows every record and tombstone it
 * wrote later by the same amount, at least the time it took, so that the latest is no
 * earlier than the clock at the swap. A client that synced while it ran then misses none
 * of it (docs/api.md, "Incremental sync"). What it wrote is told by identity: the writer
 * puts a new object in the copy for every record it writes.
 */
export function publishLate(before: MemoryTables, after: MemoryTables, elapsed: number, now: number): void {
  if (elapsed <= PUBLISH_AS_STAMPED_MS) return;
  const written = <V>(table: keyof MemoryTables, shown: (value: V) => number) => {
    const changed: [string, V][] = [];
    const previous = before[table] as Map<string, unknown>;
    let latest = 0;
    for (const [key, value] of after[table] as Map<string, V>) {
      if (previous.get(key) === value) continue;
      changed.push([key, value]);
      // A loop, not Math.max(...): an import of a hundred thousand records would overflow the stack.
      latest = Math.max(latest, shown(value));
    }
    return { changed, latest };
  };
  const records = (["employees", "bookings", "closureDays"] as const).map((t) => [t, written<{ updated_at: number }>(t, (v) => v.updated_at)] as const);
  const tombstones = written<StoredDeletion>("deletions", (v) => v.deleted_at);
  const latest = Math.max(tombstones.latest, ...records.map(([, w]) => w.latest));
  const shift = Math.max(elapsed, now - latest);
  for (const [table, { changed }] of records) {
    const map = after[table] as Map<string, { updated_at: number }>;
    for (const [key, value] of changed) map.set(key, { ...value, updated_at: value.updated_at + shift });
  }
  for (const [key, value] of tombstones.changed) after.deletions.set(key, { ...value, deleted_at: value.deleted_at + shift });
  after.exits = after.exits.map((x, i) => (i < before.exits.length ? x : { ...x, until: x.until + shift }));
}
