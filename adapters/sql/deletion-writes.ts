/**
 * The tombstones of the deletions feed, kept by the import writer (sql-import-writer.ts)
 * in the import's transaction (lib/store.ts, `listDeletions`): a record that stops being
 * listed gets one stamped with the import's `now`, and loses it when it is listed again.
 * Each method runs where the writer changes what hides a record: before a soft delete
 * (while the record can still be seen to be visible), after a revival.
 */
import { sql, type Kysely, type SelectQueryBuilder } from "kysely";
import type { DeletedResource } from "../../lib/store.ts";
import { bool } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

const BOOKINGS: DeletedResource = "leave-requests";
const EMPLOYEES: DeletedResource = "employees";

type BookingIds = SelectQueryBuilder<Tables, "leave_bookings", { id: string }>;

export class DeletionWrites {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly organisationId: string,
  ) {}

  /**
   * The organisation's bookings that the leave list can return, as far as their employee
   * and their own deletion go; `annual` adds that their leave type is annual.
   */
  private listedBookings(annual: boolean): BookingIds {
    const org = this.organisationId;
    let query = this.db
      .selectFrom("leave_bookings")
      .select("leave_bookings.id")
      .where("leave_bookings.organisation_id", "=", org)
      .where("leave_bookings.deleted_at", "is", null)
      .where("leave_bookings.employee_id", "not in", (eb) =>
        eb.selectFrom("employees").select("employees.id").where("employees.organisation_id", "=", org).where("employees.deleted_at", "is not", null),
      );
    if (annual) {
      query = query.where("leave_bookings.leave_type_id", "in", (eb) =>
        eb.selectFrom("leave_types").select("leave_types.id").where("leave_types.organisation_id", "=", org).where("leave_types.category", "=", "annual"),
      );
    }
    return query;
  }

  /**
   * Tombstones what `ids` selects, at `now`; a tombstone already there takes the new
   * instant. Unless `afterTheChange` (the records are read as the change left them), each
   * also gets its selection exit (`exitsOf`).
   */
  private async hide(
    resource: DeletedResource,
    ids: SelectQueryBuilder<Tables, keyof Tables, { id: string }>,
    now: number,
    afterTheChange = false,
  ): Promise<void> {
    if (!afterTheChange) await this.exitsOf(resource, ids, now);
    await this.db
      .insertInto("deletions")
      .columns(["organisation_id", "resource", "id", "deleted_at"])
      .expression((eb) =>
        eb
          .selectFrom(ids.as("hidden"))
          .select((s) => [s.val(this.organisationId).as("organisation_id"), s.val(resource).as("resource"), "hidden.id", s.val(now).as("deleted_at")])
          // SQLite reads `on conflict` after a select without `where` as a join constraint.
          .where("hidden.id", "is not", null),
      )
      .onConflict((oc) => oc.columns(["organisation_id", "resource", "id"]).doUpdateSet((eb) => ({ deleted_at: eb.ref("excluded.deleted_at") })))
      .execute();
  }

  private async show(resource: DeletedResource, ids: string[] | BookingIds): Promise<void> {
    if (Array.isArray(ids) && ids.length === 0) return;
    await this.db.deleteFrom("deletions").where("organisation_id", "=", this.organisationId).where("resource", "=", resource).where("id", "in", ids).execute();
  }

  /** Before `ids` are deleted: tombstones for the live employees among them and for their listed bookings. */
  async hidingEmployees(ids: string[], now: number): Promise<void> {
    const live = this.db
      .selectFrom("employees")
      .select("employees.id")
      .where("employees.organisation_id", "=", this.organisationId)
      .where("employees.id", "in", ids)
      .where("employees.deleted_at", "is", null);
    await this.hide(BOOKINGS, this.listedBookings(true).where("leave_bookings.employee_id", "in", live), now);
    await this.hide(EMPLOYEES, live, now);
  }

  /** After deleted employees `ids` came back: they and their bookings that are listed again lose their tombstones. */
  async shownEmployees(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.show(EMPLOYEES, ids);
    await this.show(BOOKINGS, this.listedBookings(true).where("leave_bookings.employee_id", "in", ids));
  }

  /** Before a change to bookings `ids` that may hide them: tombstones for those listed now. */
  async hidingBookings(ids: string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.hide(BOOKINGS, this.listedBookings(true).where("leave_bookings.id", "in", ids), now);
  }

  /**
   * Takes away the tombstones of the organisation's records that are listed now: those
   * deleted once and imported again. Visits the tombstones, each with a lookup by key.
   */
  async showListedAgain(): Promise<void> {
    const org = this.organisationId;
    await this.db
      .deleteFrom("deletions")
      .where("deletions.organisation_id", "=", org)
      .where("deletions.resource", "=", EMPLOYEES)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("employees")
            .select("employees.id")
            .where("employees.organisation_id", "=", org)
            .whereRef("employees.id", "=", "deletions.id")
            .where("employees.deleted_at", "is", null),
        ),
      )
      .execute();
    await this.db
      .deleteFrom("deletions")
      .where("deletions.organisation_id", "=", org)
      .where("deletions.resource", "=", BOOKINGS)
      // The outer row, which the booking query's own types cannot name.
      .where((eb) => eb.exists(this.listedBookings(true).where("leave_bookings.id", "=", sql.ref<string>("deletions.id"))))
      .execute();
  }

  /** Which of bookings `ids` are listed now. */
  async listedAmong(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.listedBookings(true).where("leave_bookings.id", "in", ids).execute();
    return new Set(rows.map((r) => r.id));
  }

  /** Tombstones bookings `ids`, which a change has just hidden, at `now`. */
  async hiddenBookings(ids: string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.hide(
      BOOKINGS,
      this.db
        .selectFrom("leave_bookings")
        .select("leave_bookings.id")
        .where("leave_bookings.organisation_id", "=", this.organisationId)
        .where("leave_bookings.id", "in", ids),
      now,
      // Its exit, with the employee it had, was noted before the change (`exitsOfChanged`).
      true,
    );
  }

  /** After a change to bookings `ids`: those listed now lose their tombstones. */
  async shownBookings(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.show(BOOKINGS, this.listedBookings(true).where("leave_bookings.id", "in", ids));
  }

  /** Before leave type `typeId` stops being annual: tombstones for its listed bookings. */
  async hidingBookingsOfType(typeId: string, now: number): Promise<void> {
    await this.hide(BOOKINGS, this.listedBookings(false).where("leave_bookings.leave_type_id", "=", typeId), now);
  }

  /** After leave type `typeId` became annual: its bookings listed now lose their tombstones. */
  async shownBookingsOfType(typeId: string): Promise<void> {
    await this.show(BOOKINGS, this.listedBookings(false).where("leave_bookings.leave_type_id", "=", typeId));
  }

  /**
   * Selection exits (migration 0015; lib/store.ts, `RestrictedReads.listDeletions`): that
   * the records `ids` selects stop being listed as they are now, at `now`, each with the
   * department and calendar of its employee (its own, for an employee) as they are now. A
   * row says only that the record was listed, with those, until `now`; the restricted
   * feed names a record that such a row puts in a client's selection and that the client
   * does not read now. Taken before a change, with the record still as it was.
   */
  private async exitsOf(resource: DeletedResource, ids: SelectQueryBuilder<Tables, keyof Tables, { id: string }>, now: number): Promise<void> {
    const org = this.organisationId;
    const listed = resource === EMPLOYEES ? this.listedEmployeeSelections().where("e.id", "in", ids) : this.listedBookingSelections().where("b.id", "in", ids);
    await this.db
      .insertInto("selection_exits")
      .columns(["organisation_id", "resource", "id", "department", "holiday_calendar", "until"])
      .expression((eb) =>
        eb
          .selectFrom(listed.as("x"))
          .select((s) => [
            s.val(org).as("organisation_id"),
            s.val(resource).as("resource"),
            "x.id",
            "x.department",
            "x.holiday_calendar",
            s.val(now).as("until"),
          ]),
      )
      .execute();
  }

  /** The listed employees (`e`) with their department and calendar. */
  private listedEmployeeSelections() {
    return this.db
      .selectFrom("employees as e")
      .select(["e.id as id", "e.department", "e.holiday_calendar"])
      .where("e.organisation_id", "=", this.organisationId)
      .where("e.deleted_at", "is", null);
  }

  /** The listed bookings (`b`: of a live employee `e`, of an annual type) with the department and calendar of their employee. */
  private listedBookingSelections() {
    return this.db
      .selectFrom("leave_bookings as b")
      .innerJoin("employees as e", (j) => j.onRef("e.organisation_id", "=", "b.organisation_id").onRef("e.id", "=", "b.employee_id"))
      .innerJoin("leave_types as t", (j) => j.onRef("t.organisation_id", "=", "b.organisation_id").onRef("t.id", "=", "b.leave_type_id"))
      .select(["b.id as id", "e.department", "e.holiday_calendar"])
      .where("b.organisation_id", "=", this.organisationId)
      .where("b.deleted_at", "is", null)
      .where("e.deleted_at", "is", null)
      .where("t.category", "=", "annual");
  }

  /** The department and calendar of the employees `ids` that are listed, or of the listed bookings' employees, by id. */
  async selectionOf(resource: DeletedResource, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows =
      resource === EMPLOYEES
        ? await this.listedEmployeeSelections().where("e.id", "in", ids).execute()
        : await this.listedBookingSelections().where("b.id", "in", ids).execute();
    return new Map(rows.map((r) => [r.id, JSON.stringify([r.department, r.holiday_calendar])]));
  }

  /**
   * Around a change to records `ids` of `resource` (an employee's department or calendar, a
   * booking's employee or type): reads who is listed with what before it, and answers
   * what notes, after it, the exit of each that is no longer listed with the same
   * department and calendar, and for an employee, of their listed bookings, with what it
   * had before.
   */
  async exitsOfChanged(resource: DeletedResource, ids: string[], now: number): Promise<() => Promise<void>> {
    const before = await this.selectionOf(resource, ids);
    if (before.size === 0) return async () => {};
    return async () => {
      const after = await this.selectionOf(resource, [...before.keys()]);
      const left = [...before].filter(([id, was]) => after.get(id) !== was);
      if (left.length === 0) return;
      const org = this.organisationId;
      await this.db
        .insertInto("selection_exits")
        .values(
          left.map(([id, was]) => {
            const [department, holiday_calendar] = JSON.parse(was) as [string | null, string | null];
            return { organisation_id: org, resource, id, department, holiday_calendar, until: now };
          }),
        )
        .execute();
      if (resource !== EMPLOYEES) return;
      for (const [id, was] of left) {
        const [department, holiday_calendar] = JSON.parse(was) as [string | null, string | null];
        await this.db
          .insertInto("selection_exits")
          .columns(["organisation_id", "resource", "id", "department", "holiday_calendar", "until"])
          .expression((eb) =>
            eb
              .selectFrom(this.listedBookings(true).where("leave_bookings.employee_id", "=", id).as("x"))
              .select((s) => [
                s.val(org).as("organisation_id"),
                s.val(BOOKINGS).as("resource"),
                "x.id",
                s.val(department).as("department"),
                s.val(holiday_calendar).as("holiday_calendar"),
                s.val(now).as("until"),
              ]),
          )
          .execute();
      }
    };
  }

  /** Whether a booking's visibility can change without its own deletion: some leave type is not annual, or some employee is deleted. */
  async bookingsMayBeHidden(): Promise<boolean> {
    const org = this.organisationId;
    const [row] = await this.db
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom("leave_types").select("id").where("organisation_id", "=", org).where("category", "!=", "annual")).as("other_types"),
        eb.exists(eb.selectFrom("employees").select("id").where("organisation_id", "=", org).where("deleted_at", "is not", null)).as("deleted_employees"),
      ])
      .execute();
    return bool(row!.other_types as boolean | number) || bool(row!.deleted_employees as boolean | number);
  }
}
