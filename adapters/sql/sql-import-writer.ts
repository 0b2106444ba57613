/**
 * The import writer of the SQL store: every write of one import, inside one transaction.
 * Upserts read the stored digests first and write only new or changed rows, so an identical
 * re-import leaves every `updated_at` where it was (docs/api.md, "Incremental sync").
 * Statements are compiled once per shape (compiled-queries.ts), of the sizes the dialect
 * prefers (`importRows`); on SQLite, new bookings wait for one sorted insert
 * (staged-inserts.ts).
 */
import { sql, type Expression, type Kysely } from "kysely";
import { parseDate } from "../../lib/dates.ts";
import { importedContent, lastById } from "../../lib/imported-content.ts";
import type { ClosureDayInput, EmployeeCalendarFacts, EmployeeInput, ImportWriter, LeaveBookingInput, PruneScope, WriteCounts } from "../../lib/admin-store.ts";
import { employeeBody, leaveBody } from "../../lib/record-text.ts";
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
import { CompiledQueries, rawQuery } from "./compiled-queries.ts";
import { contentDigest } from "./content-digest.ts";
import { DeletionWrites } from "./deletion-writes.ts";
import { countLiveRecords, deleteBookingsOutright, deleteEmployeesOutright, liveRecordIds, softDeleteClosures } from "./import-deletes.ts";
import type { ImportStamps } from "./published-stamps.ts";
import { CACHED_PLACEHOLDER_LIMIT } from "./fast-paths.ts";
import { LEAVE_TYPE_COLUMNS, toLeaveType } from "./row-mapping.ts";
import { StagedInserts } from "./staged-inserts.ts";
import { listClosureDaysOn, listImportedPublicHolidaysOn } from "./read-queries.ts";
import type { Tables } from "./tables.ts";

const BATCH = 400;

const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

function chunks<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

type Digested = "employees" | "leave_bookings" | "closure_days";

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

/** `columns` and the record's JSON body (lib/record-text.ts), which a page reads instead of the columns. */
function withRenderedBody<T>(columns: (row: T) => object, body: (row: T) => string): (row: T) => Record<string, unknown> {
  return (row) => ({ ...columns(row), rendered: body(row) });
}

interface Digest<T> {
  row: T;
  id: string;
  digest: string;
}

export class SqlImportWriter implements ImportWriter {
  private readonly statements: CompiledQueries;
  private bookingStage: StagedInserts | null = null;
  /** By table and organisation, whether it had no rows when this import first wrote there (`startedEmpty`). */
  private readonly emptyAtStart = new Map<string, boolean>();
  /** Each record's columns as `writeChanged` writes them. */
  private readonly columns;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly caps: SqlCapabilities,
    boolValue: (b: boolean) => boolean | number,
    /** The stamp each organisation's records are written with, and its publication (published-stamps.ts). */
    private readonly stamps: ImportStamps,
  ) {
    this.statements = new CompiledQueries(db, caps);
    this.columns = {
      employees: withRenderedBody(columnWriter(EMPLOYEE_FIELDS, boolValue), employeeBody),
      bookings: withRenderedBody(columnWriter(LEAVE_BOOKING_FIELDS, boolValue), leaveBody),
      closureDays: columnWriter(HOLIDAY_ENTRY_FIELDS, boolValue),
      leaveTypes: columnWriter(LEAVE_TYPE_FIELDS, boolValue),
    };
  }

  /**
   * Splits rows into new, changed and unchanged by their stored digest. Each id is looked
   * up on its own, by primary key: given `id in (…)`, Postgres planned from the figures of
   * a table that was empty when last analysed (as it is during a first large import) and
   * scanned all of the organisation's rows for every batch, so an import took time
   * quadratic in its size.
   */
  private async classify<T>(table: Digested, organisationId: string, rows: Digest<T>[], nothingStored: boolean) {
    // The stored digest, '' for a soft-deleted row (a digest is never empty; only closure days are soft-deleted), null for none.
    const stored = new Map<string, string | null>();
    if (rows.length > 0 && !nothingStored) {
      const lookup = ([org, ...idSlots]: Expression<unknown>[]) => {
        const ids = sql.join(idSlots.map((id) => sql`(${id})`));
        return rawQuery(
          sql`select k.column1 as id,
          (select case when b.deleted_at is null then b.content_digest else '' end
            from ${sql.table(table)} as b where b.organisation_id = ${org} and b.id = k.column1) as stored
          from (values ${ids}) as k`,
          this.db,
        );
      };
      const values = [organisationId, ...rows.map((r) => r.id)];
      const found = await this.statements.batch<{ id: string; stored: string | null }>(`stored digests of ${table}`, lookup, values);
      for (const f of found.rows) stored.set(f.id, f.stored);
    }
    const created: Digest<T>[] = [];
    const changed: Digest<T>[] = [];
    const revived: string[] = [];
    for (const row of rows) {
      const digest = stored.get(row.id) ?? null;
      if (digest === null) created.push(row);
      else if (digest !== row.digest) changed.push(row);
      if (digest === "") revived.push(row.id);
    }
    return { created, changed, revived, unchanged: rows.length - created.length - changed.length };
  }

  /**
   * Writes the new and changed rows (by content digest) and counts all of them; `columns`
   * gives a row's table columns, id included, without the bookkeeping ones, always in the
   * same order. Returns the rows written and the ids of those that were soft-deleted until
   * now. Later rows with the same id win.
   */
  private async writeChanged<T extends { id: string }>(
    table: Digested,
    organisationId: string,
    rows: T[],
    now: number,
    columns: (row: T) => Record<string, unknown>,
    /** Called before each batch's changed rows are written with their ids and those of the revived ones; what it returns, after. */
    watch?: (changed: string[], revived: string[]) => Promise<() => Promise<void>>,
  ): Promise<{ counts: WriteCounts; written: T[]; revived: string[] }> {
    const counts = noCounts();
    const written: T[] = [];
    const revived: string[] = [];
    const unique = lastById(rows);
    if (unique.length === 0) return { counts, written, revived };
    const names = ["organisation_id", ...Object.keys(columns(unique[0]!)), "content_digest", "updated_at", "deleted_at"];
    const valuesOf = (rows: Digest<T>[]) => {
      const values: unknown[] = [];
      for (const w of rows) values.push(organisationId, ...Object.values(columns(w.row)), w.digest, now, null);
      return values;
    };
    const write = async (how: "insert" | "upsert", rows: Digest<T>[]) => {
      for (const batch of chunks(rows, this.caps.importRows.write)) {
        const values = valuesOf(batch);
        await this.statements.batch(`${how} ${table}`, (slots) => this.writeStatement(how, table, names, slots), values);
      }
    };
    const stage = this.stageFor(table, names);
    const startedEmpty = stage !== null && (await this.startedEmpty(table, organisationId));
    for (const batch of chunks(unique, this.caps.importRows.read)) {
      if (stage && batch.some((r) => stage.mayHold(r.id))) await stage.flush();
      const digested = batch.map((r) => ({ row: r, id: r.id, digest: contentDigest(r) }));
      // Every row of the organisation is then a staged one, and none of these ids is staged.
      const nothingStored = startedEmpty && !stage!.flushedAny;
      const { created, changed, unchanged, revived: back } = await this.classify(table, organisationId, digested, nothingStored);
      revived.push(...back);
      counts.created += created.length;
      counts.updated += changed.length;
      counts.unchanged += unchanged;
      for (const w of [...created, ...changed]) written.push(w.row);
      const afterWrite =
        watch && changed.length > 0
          ? await watch(
              changed.map((w) => w.id),
              back,
            )
          : undefined;
      if (stage) {
        await stage.add(
          created.map((r) => r.id),
          valuesOf(created),
        );
        await write("upsert", changed);
      } else if (this.caps.advisoryLocks) await write("upsert", [...created, ...changed]);
      else {
        // Where the transaction makes check-then-insert atomic (SQLite), the new rows are
        // plainly inserted, which SQLite does in about half the time of an upsert.
        await write("insert", created);
        await write("upsert", changed);
      }
      await afterWrite?.();
    }
    return { counts, written, revived };
  }

  /**
   * Whether the organisation had no rows in `table` when this import first wrote to it.
   * Until staged rows are flushed, it then has none but those staged (rows are added
   * only by `writeChanged`, and a row is written directly only when its id is stored), so
   * a first import looks up no stored digest: a million bookings made a million lookups
   * that found nothing.
   */
  private async startedEmpty(table: Digested, organisationId: string): Promise<boolean> {
    const key = `${table}|${organisationId}`;
    let empty = this.emptyAtStart.get(key);
    if (empty === undefined) {
      const row = await this.db.selectFrom(table).select("id").where("organisation_id", "=", organisationId).limit(1).executeTakeFirst();
      empty = row === undefined;
      this.emptyAtStart.set(key, empty);
    }
    return empty;
  }

  /** Where new rows of `table` wait to be inserted in one sorted statement, if they do (see staged-inserts.ts). */
  private stageFor(table: Digested, names: string[]): StagedInserts | null {
    const rowsPerStatement = this.caps.importRows.stage;
    if (table !== "leave_bookings" || rowsPerStatement === null) return null;
    // Past the placeholders bun:sqlite keeps a statement prepared for, each one would be
    // prepared again on every run: a wider row stages fewer rows a statement.
    const rows = Math.max(1, Math.min(rowsPerStatement, Math.floor(CACHED_PLACEHOLDER_LIMIT / names.length)));
    this.bookingStage ??= new StagedInserts(this.db, this.statements, table, names, ["start_date", "id"], ["organisation_id", "id"], rows);
    return this.bookingStage;
  }

  /**
   * Inserts the staged new bookings: before a soft delete of bookings (which must see
   * them), and once the import's work is done, before it commits. Bumping the
   * `updated_at` of a changed leave type's or a revived employee's bookings need not wait
   * for them: staged bookings are written with this import's `updated_at` anyway.
   */
  async flushStaged(): Promise<void> {
    await this.bookingStage?.flush();
  }

  /**
   * Once the import's work is done, before it commits: the staged bookings written, and
   * the tombstones of records listed again taken away. A deleted employee or booking is
   * gone from its table (DECISIONS §13), so one imported again is new to the table, not
   * revived; its tombstone is found here instead. Only tombstones are visited, each with
   * a lookup by key.
   */
  async finish(organisationIds: readonly string[]): Promise<void> {
    await this.flushStaged();
    for (const org of organisationIds) await new DeletionWrites(this.db, org).showListedAgain();
  }

  /** Whether this import deleted any employee or booking: then the space they held is scrubbed after the commit. */
  deletedAny = false;

  /** Inserts rows of these columns, one slot per value, row by row; with `upsert`, a row whose id is stored already replaces the stored one. */
  private writeStatement(how: "insert" | "upsert", table: Digested, names: string[], slots: Expression<unknown>[]) {
    const rows = Array.from({ length: slots.length / names.length }, (_, r) => Object.fromEntries(names.map((c, i) => [c, slots[r * names.length + i]])));
    const insert = this.db.insertInto(table).values(rows as never);
    if (how === "insert") return insert;
    // The source system's id is never shown, so an import that omits it keeps the stored one.
    const set = Object.fromEntries(
      names
        .filter((c) => c !== "organisation_id" && c !== "id")
        .map((c) => [c, c === "external_id" ? sql`coalesce(excluded.external_id, ${sql.ref(`${table}.external_id`)})` : sql.ref(`excluded.${c}`)]),
    );
    return insert.onConflict((oc) => oc.columns(["organisation_id", "id"]).doUpdateSet(set as never));
  }

  async upsertEmployees(organisationId: string, rows: EmployeeInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    // A deleted employee is gone from the table (deleteEmployees), so one imported again is
    // new; its tombstone goes in `finish`.
    const { counts } = await this.writeChanged("employees", organisationId, rows, now, this.columns.employees);
    return counts;
  }

  /**
   * Deletes the employees and, with them, their bookings (DECISIONS §13: a deleted record
   * keeps only its id, organisation and deletion instant, which its tombstone holds). The
   * tombstones are written first, while what was listed can still be seen.
   */
  async deleteEmployees(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    await this.flushStaged();
    return this.noted(await deleteEmployeesOutright(this.db, organisationId, ids, now));
  }

  /** Counts that say whether anything was deleted, which `deletedAny` remembers. */
  private noted(counts: WriteCounts): WriteCounts {
    if (counts.deleted > 0) this.deletedAny = true;
    return counts;
  }

  async employeeFacts(organisationId: string, ids: string[]): Promise<Map<string, EmployeeCalendarFacts>> {
    const facts = new Map<string, EmployeeCalendarFacts>();
    for (const batch of chunks([...new Set(ids)])) {
      const rows = await this.db
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
    const now = await this.stamps.stampFor(organisationId, asked);
    const counts = noCounts();
    for (const t of lastById(types)) {
      const stored = await this.db
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
        const deletions = new DeletionWrites(this.db, organisationId);
        const wasAnnual = stored.category === "annual";
        if (wasAnnual && t.category !== "annual") await deletions.hidingBookingsOfType(t.id, now);
        const { id: _id, ...content } = this.columns.leaveTypes(t);
        await this.db
          .updateTable("leave_types")
          .set({ ...content, updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("id", "=", t.id)
          .execute();
        // Bookings embed their leave type, so what a client sees of them changed too
        // (docs/api.md, "Incremental sync").
        await this.db
          .updateTable("leave_bookings")
          .set({ updated_at: now })
          .where("organisation_id", "=", organisationId)
          .where("leave_type_id", "=", t.id)
          .execute();
        if (!wasAnnual && t.category === "annual") await deletions.shownBookingsOfType(t.id);
      } else {
        counts.created++;
        await this.db
          .insertInto("leave_types")
          .values({ organisation_id: organisationId, ...this.columns.leaveTypes(t), updated_at: now })
          .execute();
      }
    }
    return counts;
  }

  async upsertLeaveBookings(organisationId: string, rows: LeaveBookingInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    const { counts, written } = await this.writeChanged(
      "leave_bookings",
      organisationId,
      rows,
      now,
      this.columns.bookings,
      this.watchVisibility(organisationId, now),
    );
    let longest = 0;
    for (const r of written) longest = Math.max(longest, parseDate(r.end_date)! - parseDate(r.start_date)!);
    if (longest > 0) await this.widenLeaveSpan(organisationId, longest);
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
    const deletions = new DeletionWrites(this.db, organisationId);
    let mayHide: Promise<boolean> | undefined;
    return async (changed: string[], revived: string[]) => {
      mayHide ??= deletions.bookingsMayBeHidden();
      if (!(await mayHide)) return () => deletions.shownBookings(revived);
      const before = await deletions.listedAmong(changed);
      return async () => {
        const after = await deletions.listedAmong(changed);
        await deletions.hiddenBookings(
          changed.filter((id) => before.has(id) && !after.has(id)),
          now,
        );
        await deletions.shownBookings(changed.filter((id) => !before.has(id) && after.has(id)));
      };
    };
  }

  /** Keeps the longest booking span, which bounds the overlap scan from below. It only grows. */
  private async widenLeaveSpan(organisationId: string, days: number): Promise<void> {
    await this.db
      .insertInto("leave_spans")
      .values({ organisation_id: organisationId, max_span_days: days })
      .onConflict((oc) => oc.column("organisation_id").doUpdateSet({ max_span_days: days }).where("leave_spans.max_span_days", "<", days))
      .execute();
  }

  async deleteLeaveBookings(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    await this.flushStaged();
    return this.noted(await deleteBookingsOutright(this.db, organisationId, ids, now));
  }

  async upsertClosureDays(organisationId: string, rows: ClosureDayInput[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    const { counts } = await this.writeChanged("closure_days", organisationId, rows, now, this.columns.closureDays);
    return counts;
  }

  async deleteClosureDays(organisationId: string, ids: string[], asked: number): Promise<WriteCounts> {
    const now = await this.stamps.stampFor(organisationId, asked);
    return softDeleteClosures(this.db, organisationId, ids, now);
  }

  async replacePublicHolidays(organisationId: string, calendar: string, year: number, rows: { date: string; name: string }[]): Promise<void> {
    await this.db
      .deleteFrom("public_holidays")
      .where("organisation_id", "=", organisationId)
      .where("calendar", "=", calendar)
      .where("year", "=", year)
      .execute();
    for (const batch of chunks(rows)) {
      await this.db
        .insertInto("public_holidays")
        .values(batch.map((r) => ({ organisation_id: organisationId, calendar, year, date: r.date, name: r.name })))
        .execute();
    }
  }

  listClosureDays(organisationId: string, from: string, to: string) {
    return listClosureDaysOn(this.db, organisationId, from, to);
  }

  listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number) {
    return listImportedPublicHolidaysOn(this.db, organisationId, calendars, fromYear, toYear);
  }

  async countLive(organisationId: string, scope: PruneScope): Promise<number> {
    if (scope.record === "booking") await this.flushStaged();
    return countLiveRecords(this.db, organisationId, scope);
  }

  async liveIds(organisationId: string, scope: PruneScope, after: string | null, limit: number): Promise<string[]> {
    // The staged new bookings are written first, so that they are among the live ones.
    if (scope.record === "booking") await this.flushStaged();
    return liveRecordIds(this.db, organisationId, scope, after, limit);
  }
}
