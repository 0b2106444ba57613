/**
 * The appliers of the employees and holidays kinds (the leave kind has its own file):
 * employees and company closure days are upserted or soft-deleted batch by batch; public
 * holidays are gathered for the whole file and replace the organisation's set per
 * (calendar, year) at the end, since a set is only known once every row of it was read.
 */
import type { ImportKind } from "./normalise-records.ts";
import { createLeaveApplier } from "./apply-leave.ts";
import { createPublicHolidayApplier } from "./apply-public-holidays.ts";
import { keepingAbsent, writeRuns, type ImportContext, type Op, type PendingRow, type RowApplier } from "./import-context.ts";
import type { ClosureDayInput, EmployeeInput, StoredEmployeeFields } from "../../lib/admin-store.ts";

export function createApplier(kind: ImportKind, ctx: ImportContext): RowApplier {
  if (kind === "employees") return createEmployeeApplier(ctx);
  if (kind === "leave") return createLeaveApplier(ctx);
  return createHolidayApplier(ctx);
}

function createEmployeeApplier(ctx: ImportContext): RowApplier {
  const { writer, organisationId: org, now } = ctx;
  /** The stored employees of the rows that leave some field out: one read a batch, none for a file that carries every field. */
  const storedOfPartial = async (rows: PendingRow[]) => {
    const ids = rows.flatMap(({ row }) => (row.type === "employee" && row.absent.length > 0 ? [row.employee.id] : []));
    return ids.length === 0 ? new Map<string, StoredEmployeeFields>() : await writer.storedEmployees(org, ids);
  };
  return {
    async applyBatch(rows) {
      if (ctx.failed()) return;
      const ops: Op<EmployeeInput>[] = [];
      const stored = await storedOfPartial(rows);
      for (const { row } of rows) {
        if (row.type === "employee") ops.push({ upsert: keepingAbsent(row.employee, row.absent, stored.get(row.employee.id), ctx.keptFields) });
        else if (row.type === "delete") ops.push({ delete: row.id });
      }
      await writeRuns(
        ops,
        (r) => writer.upsertEmployees(org, r, now),
        (ids) => writer.deleteEmployees(org, ids, now),
        ctx.counts,
      );
    },
    async finish() {},
  };
}

function createHolidayApplier(ctx: ImportContext): RowApplier {
  const { writer, organisationId: org, now } = ctx;
  const publicHolidays = createPublicHolidayApplier(ctx);
  return {
    async applyBatch(rows: PendingRow[]) {
      const ops: Op<ClosureDayInput>[] = [];
      for (const pending of rows) {
        const { row } = pending;
        if (row.type === "public_holiday") publicHolidays.add(pending.line, row);
        else if (row.type === "closure") ops.push({ upsert: row.closure });
        else if (row.type === "delete") ops.push({ delete: row.id });
      }
      if (ctx.failed()) return;
      await writeRuns(
        ops,
        (r) => writer.upsertClosureDays(org, r, now),
        (ids) => writer.deleteClosureDays(org, ids, now),
        ctx.counts,
      );
    },
    finish: () => publicHolidays.finish(),
  };
}
