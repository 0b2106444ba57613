/**
 * The import writer of the SQL store: every write of one import, inside one transaction
 * (import-transaction.ts). Employees, bookings and closure days are written only where
 * their content changed (changed-rows.ts); leave types, deletions, public holidays and what
 * an import reads back are here, with the bookkeeping that goes with them: deletion
 * tombstones (deletion-writes.ts) and each span class's longest booking
 * (adapters/sql/leave-page/leave-span-plan.ts).
 */
import type { Kysely } from "kysely";
import { parseDate } from "../../lib/dates.ts";
import { classSpansOf, type ClassSpans } from "./leave-page/index.ts";
import type { Sha256Hex } from "../../lib/digest.ts";
import { importedContent, lastById } from "../../lib/imported-content.ts";
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
import { employeeBody, leaveBody } from "./record-bodies.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import {
  columnOf,
  EMPLOYEE_FIELDS,
  HOLIDAY_ENTRY_FIELDS,
  inputKeys,
  LEAVE_BOOKING_FIELDS,
  LEAVE_TYPE_FIELDS,
  pickFields,
  recordKeys,
  type FieldSpecs,
  type InputOf,
} from "../../lib/record-fields.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { ChangedRows, chunks, noCounts } from "./changed-rows.ts";
import { DeletionWrites } from "./deletion-writes.ts";
import { countLiveRecords, deleteBookingsOutright, deleteEmployeesOutright, liveRecordIds, softDeleteClosures } from "./import-deletes.ts";
import type { ImportStamps } from "./published-stamps.ts";
import { LEAVE_TYPE_COLUMNS, toLeaveType } from "./row-mapping.ts";
import { listClosureDaysOn, listImportedPublicHolidaysOn } from "./read-queries.ts";
import type { Tables } from "./tables.ts";
import { describeRecordsOn, storedBookingsOn, storedEmployeesOn } from "./import-reads.ts";

const LEAVE_TYPE_CONTENT = recordKeys(LEAVE_TYPE_FIELDS);

/** A record's columns as an import writes them: booleans as the dialect keeps them. */
type Columns<F extends FieldSpecs> = { [C in keyof InputOf<F>]: InputOf<F>[C] extends boolean ? boolean | number : InputOf<F>[C] };

/** The columns of what an import writes of a record, in declaration order (lib/record-fields.ts). */
function columnWriter<F extends FieldSpecs>(fields: F, boolValue: (b: boolean) => boolean | number): (row: InputOf<F>) => Columns<F> {
  const steps = inputKeys(fields).map((key) => [columnOf(fields, key), fields[key]!.kind === "flag"] as const);
  return (row) => {
    const values = row as Record<string, unknown>;
    const columns: Record<string, unknown> = {};
    for (const [column, flag] of steps) columns[column] = flag ? boolValue(values[column] as boolean) : values[column];
    return columns as Columns<F>;
  };
}

/** `columns` and the record's JSON body (record-bodies.ts), which a page reads instead of the columns. */
function withRenderedBody<T>(columns: (row: T) => object, body: (row: T) => string): (row: T) => Record<string, unknown> {
  return (row) => ({ ...columns(row), rendered: body(row) });
}

export class SqlImportWriter implements ImportWriter {
  /** Where employees, bookings and closure days are written: only what changed. */
  private readonly changedRows: ChangedRows;
  /** Each record's columns as `changedRows.write` writes them. */
  private readonly columns;

  constructor(
    /** The import's connection: reached through `idle` but by the writes changedRows leaves running. */
    private readonly conn: Kysely<Tables>,
    caps: SqlCapabilities,
    boolValue: (b: boolean) => boolean | number,
    /** The stamp each organisation's records are written with, and its publication (published-stamps.ts). */
    private readonly stamps: ImportStamps,
    /** The store's SHA-256, which content digests are made with (content-digest.ts). */
    sha256Hex: Sha256Hex,
  ) {
    this.changedRows = new ChangedRows(conn, caps, sha256Hex);
    this.columns = {
      employees: withRenderedBody(columnWriter(EMPLOYEE_FIELDS, boolValue), employeeBody),
      bookings: withRenderedBody(columnWriter(LEAVE_BOOKING_FIELDS, boolValue), leaveBody),
      closureDays: columnWriter(HOLIDAY_ENTRY_FIELDS, boolValue),
      leaveTypes: columnWriter(LEAVE_TYPE_FIELDS, boolValue),
    };
  }

  /**
   * The import's connection, once the write changedRows left running has ended
   * (changed-rows.ts, `settle`): every statement of the writer but those writes waits for
   * it, so that a failed write's own error is the one the import reports.
   */
  private async idle(): Promise<Kysely<Tables>> {
    await this.changedRows.settle();
    return this.conn;
  }

  /** The organisation's stamp for `asked` (published-stamps.ts); its first needs statements, which wait as `idle` says. */
  private async stampFor(organisationId: string, asked: number): Promise<number> {
    if (!this.stamps.knows(organisationId)) await this.idle();
    return this.stamps.stampFor(organisationId, asked);
  }

  /** By organisation and span class, the longest booking this import has made sure of (`widenClassSpans`). */
  private readonly spans = new Map<string, number>();

  /**
   * Inserts the staged new bookings: before a soft delete of bookings (which must see
   * them), and once the import's work is done, before it commits. Bumping the
   * `updated_at` of a changed leave type's or a revived employee's bookings need not wait
   * for them: staged bookings are written with this import's `updated_at` anyway.
   */
  async flushStaged(): Promise<void> {
    await this.changedRows.flushStaged();
  }

  /**
   * Once the import's work is done, before it commits: the staged bookings written, and
   * the tombstones of records listed again taken away. A deleted employee or booking is
   * gone from its table (docs/api.md, "Personal data"), so one imported again is new to the table, not
   * revived; its tombstone is found here instead. Only tombstones are visited, each with
   * a lookup by key.
   */
  async finish(organisationIds: readonly string[]): Promise<void> {
    const db = await this.idle();
    await this.flushStaged();
    for (const org of organisationIds) await new DeletionWrites(db, org).showListedAgain();
  }

  /** Whether this import deleted any employee or booking: then the space they held is scrubbed after the commit. */
  deletedAny = false;

  async upsertEmployees(organisationId: string, rows: EmployeeInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stampFor(organisationId, asked);
    // A deleted employee is gone from the table (deleteEmployees), so one imported again is
    // new; its tombstone goes in `finish`.
    // A changed department or calendar takes the employee and their bookings out of some selections (`exitsOfChanged`).
    const deletions = new DeletionWrites(this.conn, organisationId);
    const { counts } = await this.changedRows.write("employees", organisationId, rows, now, this.columns.employees, (changed) =>
      deletions.exitsOfChanged("employees", changed, now),
    );
    return counts;
  }

  /**
   * Deletes the employees and, with them, their bookings (docs/api.md, "Personal data": a deleted record
   * keeps only its id, organisation and deletion instant, which its tombstone holds). The
   * tombstones are written first, while what was listed can still be seen.
   */
  async deleteEmployees(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const db = await this.idle();
    const now = await this.stampFor(organisationId, asked);
    await this.flushStaged();
    return this.noted(await deleteEmployeesOutright(db, organisationId, ids, now));
  }

  /** Counts that say whether anything was deleted, which `deletedAny` remembers. */
  private noted(counts: WriteCounts): WriteCounts {
    if (counts.deleted > 0) this.deletedAny = true;
    return counts;
  }

  async storedEmployees(organisationId: string, ids: string[]): Promise<Map<string, StoredEmployeeFields>> {
    const db = await this.idle();
    return storedEmployeesOn(db, organisationId, await this.changedRows.mayBeStored("employees", organisationId, ids));
  }

  async storedBookings(organisationId: string, ids: string[]): Promise<Map<string, StoredBookingFields>> {
    const db = await this.idle();
    return storedBookingsOn(db, organisationId, await this.changedRows.mayBeStored("leave_bookings", organisationId, ids));
  }

  async describeRecords(organisationId: string, record: "employee" | "booking", ids: string[]): Promise<RecordLabel[]> {
    const db = await this.idle();
    // Bookings this import holds back for one sorted insert are named too.
    if (record === "booking") await this.flushStaged();
    return describeRecordsOn(db, organisationId, record, ids);
  }

  async employeeFacts(organisationId: string, ids: string[]): Promise<Map<string, EmployeeCalendarFacts>> {
    const db = await this.idle();
    const facts = new Map<string, EmployeeCalendarFacts>();
    for (const batch of chunks([...new Set(ids)])) {
      const rows = await db
        .selectFrom("employees")
        .select(["id", "department", "holiday_calendar"])
        .where("organisation_id", "=", organisationId)
        .where("id", "in", batch)
        .where("deleted_at", "is", null)
        .execute();
      for (const r of rows) facts.set(r.id, { department: r.department, holiday_calendar: r.holiday_calendar });
    }
    return facts;
  }

  async upsertLeaveTypes(organisationId: string, types: LeaveTypeRecord[], asked: number): Promise<WriteCounts> {
    const db = await this.idle();
    const now = await this.stampFor(organisationId, asked);
    const counts = noCounts();
    for (const t of lastById(types)) {
      const stored = await db
        .selectFrom("leave_types")
        .select(LEAVE_TYPE_COLUMNS)
        .where("organisation_id", "=", organisationId)
        .where("id", "=", t.id)
        .executeTakeFirst();
      if (stored && importedContent(toLeaveType(stored)) === importedContent(pickFields(t, LEAVE_TYPE_CONTENT))) {
        counts.unchanged++;
        continue;
      }
      if (stored) {
        counts.updated++;
        // A type that stops or starts being annual hides or shows its bookings (lib/store.ts, `listDeletions`).
        const deletions = new DeletionWrites(db, organisationId);
        const wasAnnual = stored.category === "annual";
        if (wasAnnual && t.category !== "annual") await deletions.hidingBookingsOfType(t.id, now);
        const { id: _id, ...content } = this.columns.leaveTypes(t);
        await db
          .updateTable("leave_types")
          .set({ ...content, updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("id", "=", t.id)
          .execute();
        // Bookings embed their leave type, so what a client sees of them changed too
        // (docs/api.md, "Incremental sync").
        await db
          .updateTable("leave_bookings")
          .set({ updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("leave_type_id", "=", t.id)
          .execute();
        if (!wasAnnual && t.category === "annual") await deletions.shownBookingsOfType(t.id);
      } else {
        counts.created++;
        await db
          .insertInto("leave_types")
          .values({ organisation_id: organisationId, ...this.columns.leaveTypes(t), updated_at: now })
          .execute();
      }
    }
    return counts;
  }

  async upsertLeaveBookings(organisationId: string, rows: LeaveBookingInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stampFor(organisationId, asked);
    const { counts, written } = await this.changedRows.write(
      "leave_bookings",
      organisationId,
      rows,
      now,
      this.columns.bookings,
      this.watchVisibility(organisationId, now),
    );
    await this.widenClassSpans(organisationId, classSpansOf(written.map((r) => parseDate(r.end_date)! - parseDate(r.start_date)!)));
    return counts;
  }

  /**
   * What keeps the tombstones of changed bookings right (lib/store.ts, `listDeletions`): a
   * change that hides a listed booking (a leave type that is not annual, a deleted
   * employee) tombstones it, one that shows it again removes its tombstone. Only a revived
   * booking can change that way while every leave type is annual and no employee is
   * deleted, as in most organisations; then nothing is read before the write.
   */
  private watchVisibility(organisationId: string, now: number) {
    const deletions = new DeletionWrites(this.conn, organisationId);
    let mayHide: Promise<boolean> | undefined;
    return async (changed: string[], revived: string[]) => {
      // A booking moved to another employee, or hidden, leaves the selections it was in.
      const exits = await deletions.exitsOfChanged("leave-requests", changed, now);
      mayHide ??= deletions.bookingsMayBeHidden();
      if (!(await mayHide)) return () => exits().then(() => deletions.shownBookings(revived));
      const before = await deletions.listedAmong(changed);
      return async () => {
        await exits();
        const after = await deletions.listedAmong(changed);
        await deletions.hiddenBookings(
          changed.filter((id) => before.has(id) && !after.has(id)),
          now,
        );
        await deletions.shownBookings(changed.filter((id) => !before.has(id) && after.has(id)));
      };
    };
  }

  /**
   * Keeps each span class's longest booking, which bounds the class's scan from below
   * (adapters/sql/leave-page/leave-span-plan.ts). It only grows, and in the transaction that writes the
   * bookings, so no page is planned on less than what it reads. A class whose longest
   * this import already made sure of writes nothing, so that most batches send no
   * statement of their own after their writes.
   */
  private async widenClassSpans(organisationId: string, spans: ClassSpans): Promise<void> {
    for (const [spanClass, days] of spans.entries()) {
      const key = `${organisationId}|${spanClass}`;
      if (days <= (this.spans.get(key) ?? -1)) continue;
      this.spans.set(key, days);
      const db = await this.idle();
      await db
        .insertInto("leave_class_spans")
        .values({ organisation_id: organisationId, span_class: spanClass, max_span_days: days })
        .onConflict((oc) =>
          oc.columns(["organisation_id", "span_class"]).doUpdateSet({ max_span_days: days }).where("leave_class_spans.max_span_days", "<", days),
        )
        .execute();
    }
  }

  async deleteLeaveBookings(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const db = await this.idle();
    const now = await this.stampFor(organisationId, asked);
    await this.flushStaged();
    return this.noted(await deleteBookingsOutright(db, organisationId, ids, now));
  }

  async upsertClosureDays(organisationId: string, rows: ClosureDayInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stampFor(organisationId, asked);
    const { counts } = await this.changedRows.write("closure_days", organisationId, rows, now, this.columns.closureDays);
    return counts;
  }

  async deleteClosureDays(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const db = await this.idle();
    const now = await this.stampFor(organisationId, asked);
    return softDeleteClosures(db, organisationId, ids, now);
  }

  async replacePublicHolidays(organisationId: string, calendar: string, year: number, rows: { date: string; name: string }[]): Promise<void> {
    const db = await this.idle();
    await db.deleteFrom("public_holidays").where("organisation_id", "=", organisationId).where("calendar", "=", calendar).where("year", "=", year).execute();
    for (const batch of chunks(rows)) {
      await db
        .insertInto("public_holidays")
        .values(batch.map((r) => ({ organisation_id: organisationId, calendar, year, date: r.date, name: r.name })))
        .execute();
    }
  }

  async listClosureDays(organisationId: string, from: string, to: string) {
    const db = await this.idle();
    return listClosureDaysOn(db, organisationId, from, to);
  }

  async listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number) {
    const db = await this.idle();
    return listImportedPublicHolidaysOn(db, organisationId, calendars, fromYear, toYear);
  }

  async countLive(organisationId: string, scope: PruneScope): Promise<number> {
    const db = await this.idle();
    if (scope.record === "booking") await this.flushStaged();
    return countLiveRecords(db, organisationId, scope);
  }

  async liveIds(organisationId: string, scope: PruneScope, after: string | null, limit: number): Promise<string[]> {
    const db = await this.idle();
    // The staged new bookings are written first, so that they are among the live ones.
    if (scope.record === "booking") await this.flushStaged();
    return liveRecordIds(db, organisationId, scope, after, limit);
  }
}
