/**
 * The bodies the SQL store keeps (record-bodies.ts) are written by one versioned
 * function: `BODIES_VERSION` names what a body holds, derived from the field list
 * (lib/record-fields.ts) and `BODY_FORMAT`, and the installation row `bodies_version`
 * says which version the stored bodies were written with. When they differ, `migrate`
 * writes every live body again (`renderBodies`), so a field added to the field list needs
 * no migration of its own to reach the kept text. Runs in transactions of a batch each;
 * the row is written when the last batch is, so a stopped run starts again next time.
 * Until then a page reads the bodies as they were, each one whole.
 */
import type { Kysely } from "kysely";
import { EMPLOYEE_FIELDS, LEAVE_BOOKING_FIELDS, type FieldSpecs } from "../../lib/record-fields.ts";
import { employeeBody, leaveBody } from "./record-bodies.ts";
import { EMPLOYEE_COLUMNS, LEAVE_BOOKING_COLUMNS, toEmployee, toLeaveBooking, type EmployeeRow, type LeaveRow } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

/** Bump when record-bodies.ts writes a body differently for the same fields. */
const BODY_FORMAT = 1;

/** The fields a body shows, in order, with the kind that decides how each is written. */
function bodyFields(fields: FieldSpecs): string {
  return Object.entries(fields)
    .filter(([, spec]) => spec.api !== undefined && spec.record)
    .map(([name, spec]) => `${name}:${spec.kind}${spec.nullable ? "?" : ""}`)
    .join(",");
}

/** What the kept bodies hold: any change to it has `migrate` write them all again. */
export const BODIES_VERSION = `${BODY_FORMAT};employees=${bodyFields(EMPLOYEE_FIELDS)};leave=${bodyFields(LEAVE_BOOKING_FIELDS)}`;

export const BODIES_VERSION_ROW = "bodies_version";

const BATCH = 1_000;

/** The leave type does not show in a body; toLeaveBooking wants one. */
const NO_TYPE = { id: "", name: "", category: "annual", is_paid: 1 };

/** Walks `table`'s live rows in primary-key order a batch at a time, writing `body(row)` over each one's body. */
async function renderTable<R extends { id: string }>(
  db: Kysely<Tables>,
  table: "employees" | "leave_bookings",
  columns: readonly string[],
  body: (row: R) => string,
): Promise<number> {
  let rendered = 0;
  let after: { organisation_id: string; id: string } | undefined;
  for (;;) {
    const rows = await db.transaction().execute(async (tx) => {
      let query = tx
        .selectFrom(table)
        .select(["organisation_id", ...(columns as "id"[])])
        .where("deleted_at", "is", null);
      const from = after;
      if (from) query = query.where((eb) => eb(eb.refTuple("organisation_id", "id"), ">", eb.tuple(from.organisation_id, from.id)));
      const batch = (await query.orderBy("organisation_id").orderBy("id").limit(BATCH).execute()) as unknown as (R & { organisation_id: string })[];
      for (const row of batch) {
        await tx
          .updateTable(table)
          .set({ rendered: body(row) })
          .where("organisation_id", "=", row.organisation_id)
          .where("id", "=", row.id)
          .execute();
      }
      return batch;
    });
    rendered += rows.length;
    if (rows.length < BATCH) return rendered;
    const last = rows[rows.length - 1]!;
    after = { organisation_id: last.organisation_id, id: last.id };
  }
}

/** Whether the kept bodies were written for this version (a migrated database's `installation` row says). */
export async function bodiesAreCurrent(db: Kysely<Tables>): Promise<boolean> {
  const stored = await db.selectFrom("installation").select("value").where("name", "=", BODIES_VERSION_ROW).executeTakeFirst();
  return stored?.value === BODIES_VERSION;
}

/** Writes every live body again when they were written for another version; says how many it wrote. */
export async function renderBodies(db: Kysely<Tables>): Promise<number> {
  if (await bodiesAreCurrent(db)) return 0;
  const employees = await renderTable(db, "employees", EMPLOYEE_COLUMNS, (row: EmployeeRow) => employeeBody(toEmployee(row)));
  const bookings = await renderTable(db, "leave_bookings", LEAVE_BOOKING_COLUMNS, (row: LeaveRow) => leaveBody(toLeaveBooking(row, NO_TYPE)));
  // An upsert, not a delete and an insert: two processes that migrate the same new
  // database at once (two `serve` started together) both get here, and the second insert
  // failed on the first one's row.
  await db
    .insertInto("installation")
    .values({ name: BODIES_VERSION_ROW, value: BODIES_VERSION })
    .onConflict((oc) => oc.column("name").doUpdateSet({ value: BODIES_VERSION }))
    .execute();
  return employees + bookings;
}
