/**
 * Renders the JSON body (lib/record-text.ts) of every live employee and booking that has
 * none: those written before migration 0006, which asks for this with the installation
 * row `render_pending`. Run by `migrate` once that row is there, in transactions of a
 * batch each, so that a stopped run leaves finished batches and picks up the rest the
 * next time; the row goes when nothing is left. Meanwhile a page that meets a record with
 * no body reads it the old way (read-queries.ts, leave-page-queries.ts). Deleted records
 * are left alone: an import that brings one back writes its body.
 */
import type { Kysely } from "kysely";
import { employeeBody, leaveBody } from "../../lib/record-text.ts";
import { EMPLOYEE_COLUMNS, LEAVE_BOOKING_COLUMNS, toEmployee, toLeaveBooking, type EmployeeRow, type LeaveRow } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

const BATCH = 1_000;
const PENDING = "render_pending";

/** The leave type does not show in a body; toLeaveBooking wants one. */
const NO_TYPE = { id: "", name: "", category: "annual", is_paid: 1 };

/**
 * Walks `table` in primary-key order a batch at a time, writing `body(row)` where a live
 * row has none: each row is read once, however many already have theirs.
 */
async function renderTable<R extends { id: string; rendered: string | null }>(
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
        .select(["organisation_id", "rendered", ...(columns as "id"[])])
        .where("deleted_at", "is", null);
      const from = after;
      if (from) query = query.where((eb) => eb(eb.refTuple("organisation_id", "id"), ">", eb.tuple(from.organisation_id, from.id)));
      const batch = (await query.orderBy("organisation_id").orderBy("id").limit(BATCH).execute()) as unknown as (R & { organisation_id: string })[];
      for (const row of batch) {
        if (row.rendered !== null) continue;
        await tx
          .updateTable(table)
          .set({ rendered: body(row) })
          .where("organisation_id", "=", row.organisation_id)
          .where("id", "=", row.id)
          .execute();
        rendered++;
      }
      return batch;
    });
    if (rows.length < BATCH) return rendered;
    const last = rows[rows.length - 1]!;
    after = { organisation_id: last.organisation_id, id: last.id };
  }
}

/** Renders what is missing when asked to; says how many records it rendered. */
export async function renderMissingBodies(db: Kysely<Tables>): Promise<number> {
  const pending = await db.selectFrom("installation").select("value").where("name", "=", PENDING).executeTakeFirst();
  if (!pending) return 0;
  const employees = await renderTable(db, "employees", EMPLOYEE_COLUMNS, (row: EmployeeRow & { rendered: string | null }) => employeeBody(toEmployee(row)));
  const bookings = await renderTable(db, "leave_bookings", LEAVE_BOOKING_COLUMNS, (row: LeaveRow & { rendered: string | null }) =>
    leaveBody(toLeaveBooking(row, NO_TYPE)),
  );
  await db.deleteFrom("installation").where("name", "=", PENDING).execute();
  return employees + bookings;
}
