/**
 * Leave-booking rows of a leave import (docs/cli.md, "Leave files"). Per batch: each booking's
 * leave type must agree with every earlier row naming the same type id; its employee
 * must exist, not deleted, in the organisation; a `days` the file left out is computed
 * from the employee's calendar and department. An employee's facts are read once per
 * import: a leave import writes no employee, so they hold for all of it. Then, unless an
 * error was recorded, the leave types first seen in the batch are upserted (a changed
 * type bumps its bookings' `updated_at`) and the bookings are written.
 */
import type { EmployeeCalendarFacts, LeaveBookingInput, StoredBookingFields } from "../../lib/admin-store.ts";
import type { LeaveTypeRecord } from "../../lib/records.ts";
import { createDaysCounter } from "./days-off.ts";
import { keepingAbsent, writeRuns, type ImportContext, type Op, type RowApplier } from "./import-context.ts";

const sameLeaveType = (a: LeaveTypeRecord, b: LeaveTypeRecord) => a.name === b.name && a.category === b.category && a.is_paid === b.is_paid;
const describeType = (t: LeaveTypeRecord) => `${JSON.stringify(t.name)}, category ${t.category}, ${t.is_paid ? "paid" : "unpaid"}`;

/** Bounds the employees whose facts are kept (`null`: none such), far above any real headcount. */
const FACTS_LIMIT = 100_000;

export function createLeaveApplier(ctx: ImportContext): RowApplier {
  const { writer, organisationId: org, now } = ctx;
  const countDays = createDaysCounter(writer, org);
  const leaveTypes = new Map<string, { type: LeaveTypeRecord; line: number; written: boolean }>();
  const facts = new Map<string, EmployeeCalendarFacts | null>();

  async function learnFacts(employeeIds: string[]): Promise<void> {
    if (facts.size > FACTS_LIMIT) facts.clear();
    const unknown = [...new Set(employeeIds.filter((id) => !facts.has(id)))];
    if (unknown.length === 0) return;
    const found = await writer.employeeFacts(org, unknown);
    for (const id of unknown) facts.set(id, found.get(id) ?? null);
  }

  return {
    async applyBatch(rows) {
      await learnFacts(rows.flatMap((r) => (r.row.type === "booking" ? [r.row.booking.employee_id] : [])));
      // The stored bookings of rows that leave fields out: one read a batch, none for a file that carries them all.
      const partial = rows.flatMap(({ row }) => (row.type === "booking" && row.absent.length > 0 ? [row.booking.id] : []));
      const stored = partial.length === 0 ? new Map<string, StoredBookingFields>() : await writer.storedBookings(org, partial);
      const ops: Op<LeaveBookingInput>[] = [];
      for (const { line, row } of rows) {
        if (row.type === "delete") ops.push({ delete: row.id });
        if (row.type !== "booking") continue;
        const { leaveType } = row;
        const booking = keepingAbsent(row.booking, row.absent, stored.get(row.booking.id), ctx.keptFields);
        const seen = leaveTypes.get(leaveType.id);
        if (!seen) leaveTypes.set(leaveType.id, { type: leaveType, line, written: false });
        else if (!sameLeaveType(seen.type, leaveType)) {
          ctx.fail(
            line,
            "leave_type",
            `${describeType(leaveType)} differs from the same leave type (id ${leaveType.id}) on line ${seen.line}: ${describeType(seen.type)}`,
          );
        }
        const employee = facts.get(booking.employee_id);
        if (!employee) {
          const which = row.employeeExternalId !== null ? `external_id ${JSON.stringify(row.employeeExternalId)}` : `id ${booking.employee_id}`;
          ctx.fail(line, "employee_id", `no employee with ${which} in this organisation (or it is deleted): import employees first`);
          continue;
        }
        const counted = booking.days ?? countDays(booking, employee);
        ops.push({ upsert: { ...booking, days: typeof counted === "number" ? counted : await counted } });
      }
      if (ctx.failed()) return;
      const newTypes = [...leaveTypes.values()].filter((t) => !t.written);
      if (newTypes.length > 0) {
        await writer.upsertLeaveTypes(
          org,
          newTypes.map((t) => t.type),
          now,
        );
        for (const t of newTypes) t.written = true;
      }
      await writeRuns(
        ops,
        (r) => writer.upsertLeaveBookings(org, r, now),
        (ids) => writer.deleteLeaveBookings(org, ids, now),
        ctx.counts,
      );
    },
    async finish() {},
  };
}
