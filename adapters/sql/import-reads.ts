/**
 * What an import reads back of stored records, beside the writes of sql-import-writer.ts:
 * the stored fields of the employees a file updates without carrying every field
 * (docs/cli.md, "Absent is not empty"), and the records a prune would delete as a person
 * recognises them (docs/cli.md, "Full exports: --prune").
 */
import type { Kysely } from "kysely";
import type { RecordLabel, StoredBookingFields, StoredEmployeeFields } from "../../lib/admin-store.ts";
import type { HalfPeriod } from "../../lib/records.ts";
import { personName } from "../../lib/person-name.ts";
import { chunks } from "./changed-rows.ts";
import { bool, EMPLOYEE_COLUMNS, instantOrNull, toEmployee } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

/** The stored fields of the live employees among `ids`. */
export async function storedEmployeesOn(db: Kysely<Tables>, organisationId: string, ids: string[]): Promise<Map<string, StoredEmployeeFields>> {
  const stored = new Map<string, StoredEmployeeFields>();
  for (const batch of chunks([...new Set(ids)])) {
    const rows = await db
      .selectFrom("employees")
      .select(EMPLOYEE_COLUMNS)
      .where("organisation_id", "=", organisationId)
      .where("id", "in", batch)
      .where("deleted_at", "is", null)
      .execute();
    for (const r of rows) {
      const { updated_at: _, ...fields } = toEmployee(r);
      stored.set(r.id, fields);
    }
  }
  return stored;
}

/**
 * What an import keeps of the live bookings among `ids`. Bookings this import holds back
 * for one sorted insert (staged-inserts.ts) are new to the table and not among them: a
 * booking listed twice in one file takes the later row as it is.
 */
export async function storedBookingsOn(db: Kysely<Tables>, organisationId: string, ids: string[]): Promise<Map<string, StoredBookingFields>> {
  const stored = new Map<string, StoredBookingFields>();
  for (const batch of chunks([...new Set(ids)])) {
    const rows = await db
      .selectFrom("leave_bookings")
      .select(["id", "start_half_day", "start_half_period", "end_half_day", "end_half_period", "requested_at", "reviewed_at", "cancelled_at"])
      .where("organisation_id", "=", organisationId)
      .where("id", "in", batch)
      .where("deleted_at", "is", null)
      .execute();
    for (const r of rows)
      stored.set(r.id, {
        start_half_day: bool(r.start_half_day),
        start_half_period: r.start_half_period as HalfPeriod | null,
        end_half_day: bool(r.end_half_day),
        end_half_period: r.end_half_period as HalfPeriod | null,
        requested_at: instantOrNull(r.requested_at),
        reviewed_at: instantOrNull(r.reviewed_at),
        cancelled_at: instantOrNull(r.cancelled_at),
      });
  }
  return stored;
}

/** The records among `ids`, in that order: an employee by external id and name, a booking by its employee's name and dates. */
export async function describeRecordsOn(db: Kysely<Tables>, organisationId: string, record: "employee" | "booking", ids: string[]): Promise<RecordLabel[]> {
  const found = new Map<string, RecordLabel>();
  for (const batch of chunks([...new Set(ids)])) {
    if (record === "employee") {
      const rows = await db
        .selectFrom("employees")
        .select(["id", "external_id", "first_name", "last_name"])
        .where("organisation_id", "=", organisationId)
        .where("id", "in", batch)
        .execute();
      for (const r of rows) found.set(r.id, { id: r.id, external_id: r.external_id, name: personName(r.first_name, r.last_name) });
    } else {
      const rows = await db
        .selectFrom("leave_bookings as b")
        .innerJoin("employees as e", (j) => j.onRef("e.organisation_id", "=", "b.organisation_id").onRef("e.id", "=", "b.employee_id"))
        .select(["b.id", "b.external_id", "e.first_name", "e.last_name", "b.start_date", "b.end_date"])
        .where("b.organisation_id", "=", organisationId)
        .where("b.id", "in", batch)
        .execute();
      for (const r of rows)
        found.set(r.id, { id: r.id, external_id: r.external_id, name: `${personName(r.first_name, r.last_name)}, ${r.start_date} to ${r.end_date}` });
    }
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}
