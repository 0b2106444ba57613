/**
 * The memory store's import writer: the SQL import writer's rules
 * (adapters/sql/sql-import-writer.ts, adapters/sql/changed-rows.ts) over the Maps of one
 * import's copy of the tables (memory-tables.ts). Upserts write only new and changed
 * records, judged by what a client can see of them (lib/imported-content.ts), so an
 * identical re-import moves no `updated_at` (docs/api.md, "Incremental sync"); deletions
 * are soft; the references the SQL schema enforces with foreign keys are refused here
 * with a plain `Error`, which rolls the import back.
 */
import type {
  ClosureDayInput,
  EmployeeCalendarFacts,
  EmployeeInput,
  ImportWriter,
  LeaveBookingInput,
  PruneScope,
  RecordLabel,
  StoredBookingFields,
  StoredEmployeeFields,
  WriteCounts,
} from "../../lib/admin-store.ts";
import { importedContent, lastById } from "../../lib/imported-content.ts";
import { personName } from "../../lib/person-name.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import {
  EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  inputColumns,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  pickFields,
  type FieldSpecs,
} from "../../lib/record-fields.ts";
import type { StoredBooking, StoredClosureDay, StoredEmployee } from "../../lib/store-contents.ts";
import { closureDaysWithin, holidayKey, importedHolidaysWithin, keepingTombstones, keyOf, type MemoryTables } from "./memory-tables.ts";

/**
 * What a client can see of each record: what an import writes of it (lib/record-fields.ts),
 * less the bookkeeping (organisation, updated_at, deleted). The source system's
 * `external_id` is not kept: nothing reads it back.
 */
function visibleColumns<F extends FieldSpecs>(fields: F) {
  return inputColumns(fields).filter((c): c is Exclude<typeof c, "external_id"> => c !== "external_id");
}
const EMPLOYEE_CONTENT = visibleColumns(EMPLOYEE_FIELDS) satisfies (keyof StoredEmployee)[];
const BOOKING_CONTENT = visibleColumns(LEAVE_BOOKING_FIELDS) satisfies (keyof StoredBooking)[];
const CLOSURE_CONTENT = visibleColumns(HOLIDAY_ENTRY_FIELDS) satisfies (keyof StoredClosureDay)[];
const LEAVE_TYPE_CONTENT = visibleColumns(LEAVE_TYPE_FIELDS) satisfies (keyof LeaveTypeRecord)[];

const KEPT_BOOKING_CONTENT = [
  "start_half_day",
  "start_half_period",
  "end_half_day",
  "end_half_period",
  "requested_at",
  "reviewed_at",
  "cancelled_at",
] as const satisfies (keyof StoredBookingFields & keyof StoredBooking)[];

const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

interface Versioned {
  id: string;
  organisation_id: string;
  updated_at: number;
  deleted: boolean;
}

/**
 * Writes the new and changed records and counts all of them; a soft-deleted record
 * written again comes back, counted as updated. Returns the ids of those that came back.
 */
function writeChanged<S extends Versioned>(table: Map<string, S>, records: S[], visible: (record: S) => object): { counts: WriteCounts; revived: string[] } {
  const counts = noCounts();
  const revived: string[] = [];
  for (const record of lastById(records)) {
    const key = keyOf(record.organisation_id, record.id);
    const stored = table.get(key);
    if (stored && !stored.deleted && importedContent(visible(stored)) === importedContent(visible(record))) {
      counts.unchanged++;
      continue;
    }
    if (stored) counts.updated++;
    else counts.created++;
    if (stored?.deleted) revived.push(record.id);
    table.set(key, record);
  }
  return { counts, revived };
}

/** Marks the live records among `ids` deleted; unknown and already deleted ones count as unchanged. */
function softDelete<S extends Versioned>(table: Map<string, S>, organisationId: string, ids: string[], now: number): WriteCounts {
  const counts = noCounts();
  for (const id of new Set(ids)) {
    const key = keyOf(organisationId, id);
    const stored = table.get(key);
    if (!stored || stored.deleted) counts.unchanged++;
    else {
      table.set(key, { ...stored, deleted: true, updated_at: now });
      counts.deleted++;
    }
  }
  return counts;
}

/** Moves the `updated_at` of the organisation's bookings that `touched` picks. */
function bumpBookings(t: MemoryTables, organisationId: string, touched: (b: StoredBooking) => boolean, now: number): void {
  for (const [key, b] of t.bookings) {
    if (b.organisation_id === organisationId && touched(b)) t.bookings.set(key, { ...b, updated_at: now });
  }
}

/**
 * Deletes the records among `ids` outright (docs/api.md, "Personal data": a deleted employee or booking
 * keeps nothing but its tombstone); unknown ones count as unchanged.
 */
function eraseRecords<S extends Versioned>(table: Map<string, S>, organisationId: string, ids: Iterable<string>): WriteCounts {
  const counts = noCounts();
  for (const id of new Set(ids)) {
    if (table.delete(keyOf(organisationId, id))) counts.deleted++;
    else counts.unchanged++;
  }
  return counts;
}

/**
 * The writer of one import over `t`, the import's own copy of the tables.
 * `hasOrganisation` stands in for the SQL schema's reference from every record to its
 * organisation.
 */
export function memoryImportWriter(t: MemoryTables, hasOrganisation: (id: string) => boolean): ImportWriter {
  const requireOrganisation = (organisationId: string, rows: unknown[]) => {
    if (rows.length > 0 && !hasOrganisation(organisationId)) throw new Error(`No organisation ${organisationId} in the memory store.`);
  };
  const requireReferences = (organisationId: string, b: LeaveBookingInput) => {
    // As the SQL schema's foreign keys: the employee may be deleted, but must exist.
    if (!t.employees.has(keyOf(organisationId, b.employee_id))) throw new Error(`Booking ${b.id}: no employee ${b.employee_id}.`);
    if (!t.leaveTypes.has(keyOf(organisationId, b.leave_type_id))) throw new Error(`Booking ${b.id}: no leave type ${b.leave_type_id}.`);
  };

  return {
    async upsertEmployees(organisationId, rows: EmployeeInput[], now) {
      requireOrganisation(organisationId, rows);
      const records = rows.map((r) => ({ ...pickFields(r, EMPLOYEE_CONTENT), organisation_id: organisationId, updated_at: now, deleted: false }));
      let counts = noCounts();
      // A deleted employee is gone (deleteEmployees): one imported again is new, and loses its tombstone here.
      // Their bookings too: a changed department or calendar takes them out of some selections.
      const ids = new Set(records.map((r) => r.id));
      keepingTombstones(t, organisationId, now, { employeeIds: ids, bookings: (b) => ids.has(b.employee_id) }, () => {
        counts = writeChanged(t.employees, records, (e) => pickFields(e, EMPLOYEE_CONTENT)).counts;
      });
      return counts;
    },

    async deleteEmployees(organisationId, ids, now) {
      const gone = new Set(ids);
      let counts = noCounts();
      keepingTombstones(t, organisationId, now, { employeeIds: gone, bookings: (b) => gone.has(b.employee_id) }, () => {
        const theirs = [...t.bookings.values()].filter((b) => b.organisation_id === organisationId && gone.has(b.employee_id)).map((b) => b.id);
        eraseRecords(t.bookings, organisationId, theirs);
        counts = eraseRecords(t.employees, organisationId, gone);
      });
      return counts;
    },

    async storedEmployees(organisationId, ids) {
      const stored = new Map<string, StoredEmployeeFields>();
      for (const id of ids) {
        const e = t.employees.get(keyOf(organisationId, id));
        if (e && !e.deleted) stored.set(id, pickFields(e, EMPLOYEE_CONTENT));
      }
      return stored;
    },

    async storedBookings(organisationId, ids) {
      const stored = new Map<string, StoredBookingFields>();
      for (const id of ids) {
        const b = t.bookings.get(keyOf(organisationId, id));
        if (b && !b.deleted) stored.set(id, pickFields(b, KEPT_BOOKING_CONTENT));
      }
      return stored;
    },

    async describeRecords(organisationId, record, ids) {
      // The memory store keeps no external id (see EMPLOYEE_CONTENT).
      return ids.flatMap((id): RecordLabel[] => {
        if (record === "employee") {
          const e = t.employees.get(keyOf(organisationId, id));
          return e ? [{ id, external_id: null, name: personName(e.first_name, e.last_name) }] : [];
        }
        const b = t.bookings.get(keyOf(organisationId, id));
        const e = b && t.employees.get(keyOf(organisationId, b.employee_id));
        return b && e ? [{ id, external_id: null, name: `${personName(e.first_name, e.last_name)}, ${b.start_date} to ${b.end_date}` }] : [];
      });
    },

    async employeeFacts(organisationId, ids) {
      const facts = new Map<string, EmployeeCalendarFacts>();
      for (const id of ids) {
        const e = t.employees.get(keyOf(organisationId, id));
        if (e && !e.deleted) facts.set(id, { department: e.department, holiday_calendar: e.holiday_calendar });
      }
      return facts;
    },

    async upsertLeaveTypes(organisationId, types: LeaveTypeRecord[], now) {
      requireOrganisation(organisationId, types);
      const counts = noCounts();
      for (const type of lastById(types)) {
        const key = keyOf(organisationId, type.id);
        const stored = t.leaveTypes.get(key);
        const record = { ...pickFields(type, LEAVE_TYPE_CONTENT), organisation_id: organisationId };
        if (stored && importedContent(pickFields(stored, LEAVE_TYPE_CONTENT)) === importedContent(pickFields(record, LEAVE_TYPE_CONTENT))) {
          counts.unchanged++;
          continue;
        }
        keepingTombstones(t, organisationId, now, { bookings: (b) => b.leave_type_id === type.id }, () => t.leaveTypes.set(key, record));
        if (!stored) {
          counts.created++;
          continue;
        }
        counts.updated++;
        // Bookings embed their leave type, so what a client sees of them changed too
        // (docs/api.md, "Incremental sync").
        bumpBookings(t, organisationId, (b) => b.leave_type_id === type.id, now);
      }
      return counts;
    },

    async upsertLeaveBookings(organisationId, rows: LeaveBookingInput[], now) {
      requireOrganisation(organisationId, rows);
      for (const r of lastById(rows)) requireReferences(organisationId, r);
      const records = rows.map((r) => ({ ...pickFields(r, BOOKING_CONTENT), organisation_id: organisationId, updated_at: now, deleted: false }));
      const ids = new Set(records.map((r) => r.id));
      let counts = noCounts();
      keepingTombstones(t, organisationId, now, { bookingIds: ids }, () => {
        counts = writeChanged(t.bookings, records, (b) => pickFields(b, BOOKING_CONTENT)).counts;
      });
      return counts;
    },

    async deleteLeaveBookings(organisationId, ids, now) {
      const gone = new Set(ids);
      let counts = noCounts();
      keepingTombstones(t, organisationId, now, { bookingIds: gone }, () => {
        counts = eraseRecords(t.bookings, organisationId, gone);
      });
      return counts;
    },

    async upsertClosureDays(organisationId, rows: ClosureDayInput[], now) {
      requireOrganisation(organisationId, rows);
      const records = rows.map((r) => ({ ...pickFields(r, CLOSURE_CONTENT), organisation_id: organisationId, updated_at: now, deleted: false }));
      return writeChanged(t.closureDays, records, (c) => pickFields(c, CLOSURE_CONTENT)).counts;
    },

    async deleteClosureDays(organisationId, ids, now) {
      return softDelete(t.closureDays, organisationId, ids, now);
    },

    async replacePublicHolidays(organisationId, calendar, year, rows) {
      requireOrganisation(organisationId, rows);
      for (const [key, h] of t.publicHolidays) {
        if (h.organisation_id === organisationId && h.calendar === calendar && h.year === year) t.publicHolidays.delete(key);
      }
      for (const { date, name } of rows) {
        const holiday = { organisation_id: organisationId, calendar, year, date, name };
        // One holiday a calendar and date, as the SQL table's primary key has it.
        if (t.publicHolidays.has(holidayKey(holiday))) throw new Error(`Public holiday ${calendar} ${date} is given twice.`);
        t.publicHolidays.set(holidayKey(holiday), holiday);
      }
    },

    async listClosureDays(organisationId, from, to) {
      return closureDaysWithin(t, organisationId, from, to);
    },

    async listImportedPublicHolidays(organisationId, calendars, fromYear, toYear) {
      return importedHolidaysWithin(t, organisationId, calendars, fromYear, toYear);
    },

    async countLive(organisationId, scope) {
      return liveIdsOf(t, organisationId, scope).length;
    },

    async liveIds(organisationId, scope, after, limit) {
      const ids = liveIdsOf(t, organisationId, scope);
      const start = after === null ? 0 : ids.findIndex((id) => id > after);
      return start === -1 ? [] : ids.slice(start, start + limit);
    },
  };
}

/** The ids of `scope`'s live records, in ascending order. */
function liveIdsOf(t: MemoryTables, organisationId: string, scope: PruneScope): string[] {
  const records: Iterable<Versioned & { start_date?: string | null }> = scope.record === "employee" ? t.employees.values() : t.bookings.values();
  const ids: string[] = [];
  for (const r of records) {
    if (r.organisation_id !== organisationId || r.deleted) continue;
    // Every booking has a start date; only bookings are asked about by range.
    if (scope.record === "booking" && (r.start_date! < scope.from || r.start_date! > scope.to)) continue;
    ids.push(r.id);
  }
  return ids.sort();
}
