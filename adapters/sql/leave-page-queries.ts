/**
 * The leave page in the SQL store: the span-class plan of lib/leave-span-plan.ts run as
 * one ordered index scan per class over the page index (leave-span-classes.ts), merged by
 * (start_date, id).
 */
import { sql, type Expression } from "kysely";
import { planLeaveScan, SPAN_CLASS_COUNT, type SpanClassArm } from "../../lib/leave-span-plan.ts";
import { leaveText, leaveTypeText, type RecordText } from "../../lib/record-text.ts";
import { leaveBookingJson, type LeaveBookingRecord } from "../../lib/records.ts";
import type { LeavePageQuery, Store } from "../../lib/store.ts";
import { defineQuery, type QueryDefinition } from "./compiled-queries.ts";
import { spanClassExpression } from "./leave-span-classes.ts";
import { bool, instant, toLeaveBooking, toLeaveType, type LeaveTypeRow } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import { firstRows, perRowCount } from "./row-counts.ts";

// Named with `as`: the ORDER BY of a UNION ALL may name only the result's column names.
const LEAVE_COLUMNS = [
  "b.id as id",
  "b.employee_id",
  "b.leave_type_id",
  "b.start_date as start_date",
  "b.end_date",
  "b.start_half_day",
  "b.start_half_period",
  "b.end_half_day",
  "b.end_half_period",
  "b.days",
  "b.status",
  "b.requested_at",
  "b.reviewed_at",
  "b.cancelled_at",
  "b.updated_at",
] as const;

/** What a page of bookings as text reads: the keyset, what a page writes itself, and the kept body (lib/record-text.ts). */
const LEAVE_TEXT_COLUMNS = ["b.id as id", "b.employee_id", "b.leave_type_id", "b.start_date as start_date", "b.updated_at", "b.rendered"] as const;

/** The values of a leave page; which are bound decides the query (compiled-queries.ts). */
interface LeavePageValues {
  organisationId: string;
  from: string;
  to: string;
  status: string | undefined;
  employeeId: string | undefined;
  updatedSince: number | undefined;
  /** Bound only when the organisation has leave types other than annual ones: then each arm keeps annual ones. */
  annualCategory: string | undefined;
  /** The organisation, bound only when it has deleted employees: then each arm leaves their bookings out. */
  deletedEmployeesOf: string | undefined;
  /** Each span class's arm (SpanClassArm), by class: its start, and its cursor id past a cursor. */
  [start: `start${number}`]: string | undefined;
  [afterId: `afterId${number}`]: string | undefined;
}

const leaveContextQuery = defineQuery<{ organisationId: string }>()((s, db) =>
  db
    .selectFrom("leave_types as t")
    .select((eb) => [
      "t.id",
      "t.name",
      "t.category",
      "t.is_paid",
      eb.selectFrom("leave_spans as s").select("s.max_span_days").where("s.organisation_id", "=", s.organisationId).as("max_span_days"),
      eb
        .exists(
          eb.selectFrom("employees as gone").select("gone.id").where("gone.organisation_id", "=", s.organisationId).where("gone.deleted_at", "is not", null),
        )
        .as("someone_deleted"),
    ])
    .where("t.organisation_id", "=", s.organisationId),
);

/** One ordered index scan per span class whose arm is bound, merged by (start_date, id), reading `columns`, at most `rowCount`. */
const leavePageQueryOf = <C extends typeof LEAVE_COLUMNS | typeof LEAVE_TEXT_COLUMNS>(columns: C, rowCount: number) =>
  defineQuery<LeavePageValues>()((s, db, caps) => {
    const limit = sql.lit(rowCount);
    const spanClass = sql.raw(`(${spanClassExpression(caps)})`);
    const arm = (c: number, start: Expression<string>, afterId: Expression<string> | undefined) => {
      // Filters only, no joins, so each arm reads nothing but the page index (migration
      // 0002). Joining the leave types row by row cost two microseconds a booking; with
      // statistics, SQLite even put them in the outer loop, lost the index order and
      // sorted every overlapping booking. The two sets below are small, but each arm
      // builds its own copy, so they are bound only when they would exclude something.
      let bookings = db.selectFrom("leave_bookings as b");
      const { annualCategory, deletedEmployeesOf } = s;
      if (annualCategory) {
        bookings = bookings.where("b.leave_type_id", "in", (eb) =>
          eb
            .selectFrom("leave_types as annual")
            .select("annual.id")
            .where("annual.organisation_id", "=", s.organisationId)
            .where("annual.category", "=", annualCategory),
        );
      }
      if (deletedEmployeesOf) {
        bookings = bookings.where("b.employee_id", "not in", (eb) =>
          eb.selectFrom("employees as gone").select("gone.id").where("gone.organisation_id", "=", deletedEmployeesOf).where("gone.deleted_at", "is not", null),
        );
      }
      let query = bookings
        .select(columns as typeof LEAVE_COLUMNS & C)
        .where("b.organisation_id", "=", s.organisationId)
        .where(spanClass, "=", sql.lit(c))
        .where((eb) => (afterId ? eb(eb.refTuple("b.start_date", "b.id"), ">", eb.tuple(start, afterId)) : eb("b.start_date", ">=", start)))
        .where("b.start_date", "<=", s.to)
        .where("b.end_date", ">=", s.from)
        .where("b.deleted_at", "is", null);
      if (s.status) query = query.where("b.status", "=", s.status);
      if (s.employeeId) query = query.where("b.employee_id", "=", s.employeeId);
      if (s.updatedSince) query = query.where("b.updated_at", ">=", s.updatedSince);
      return query;
    };
    // Postgres plans each arm on its own estimates and, unbounded, may read all of an arm's
    // overlap and sort it; with its own ORDER BY and LIMIT, each arm is an ordered index
    // scan that stops early under a Merge Append. SQLite allows neither in a compound's
    // members, and its MERGE already pulls each arm row by row.
    // Both forms give the same columns; the type follows the plain arm's.
    const bounded = (c: number, start: Expression<string>, afterId: Expression<string> | undefined): ReturnType<typeof arm> =>
      caps.dialect === "postgres"
        ? (db.selectFrom(arm(c, start, afterId).orderBy("b.start_date").orderBy("b.id").limit(limit).as(`class${c}`)).selectAll() as unknown as ReturnType<
            typeof arm
          >)
        : arm(c, start, afterId);
    let merged: ReturnType<typeof arm> | undefined;
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
      const start = s[`start${c}`];
      if (!start) continue;
      const next = bounded(c, start, s[`afterId${c}`]);
      merged = merged ? merged.unionAll(next) : next;
    }
    if (!merged) throw new Error("A leave page scans at least one span class.");
    return merged.orderBy("start_date").orderBy("id").limit(limit);
  });

const leavePageQuery = perRowCount((n) => leavePageQueryOf(LEAVE_COLUMNS, n));
const leaveTextQuery = perRowCount((n) => leavePageQueryOf(LEAVE_TEXT_COLUMNS, n) as unknown as QueryDefinition<LeavePageValues, LeaveTextRow>);

/** The plan's arms as the page query's values. */
function armValues(arms: readonly SpanClassArm[]): Pick<LeavePageValues, `start${number}` | `afterId${number}`> {
  const values: Pick<LeavePageValues, `start${number}` | `afterId${number}`> = {};
  for (const arm of arms) {
    values[`start${arm.spanClass}`] = arm.startDate;
    values[`afterId${arm.spanClass}`] = arm.afterId;
  }
  return values;
}

/** Which sets a leave page must filter by: only what would exclude something is applied. */
interface LeaveFilters {
  /** The organisation has leave types other than annual ones. */
  types: boolean;
  /** The organisation has deleted employees. */
  deletedEmployees: boolean;
}

/** A booking as a page of text reads it (LEAVE_TEXT_COLUMNS). */
interface LeaveTextRow {
  id: string;
  employee_id: string;
  leave_type_id: string;
  start_date: string;
  updated_at: number | string;
  /** Null for a booking written before 0006 and not yet rendered (sql-admin-store.ts, `migrate`). */
  rendered: string | null;
}

export function leavePageQueries(ctx: SqlContext): Pick<Store, "listOverlappingLeave" | "listOverlappingLeaveText"> {
  /**
   * What a leave page needs to know first, in one statement (one round trip on Postgres):
   * the organisation's leave types (a handful), each row also carrying whether it has
   * deleted employees and its longest booking span. No leave types, no rows.
   */
  const leaveContext = (organisationId: string) => ctx.replica.rows(leaveContextQuery, { organisationId });

  /** The page's rows: its SQL reads a few more than `q.limit` at most (row-counts.ts), and the rest are dropped. */
  const pageRows = async <R>(
    query: (rows: number) => QueryDefinition<LeavePageValues, R>,
    q: LeavePageQuery,
    filters: LeaveFilters,
    longestSpanDays: number,
  ) => {
    const rows = await ctx.replica.rows(query(q.limit), {
      organisationId: q.organisationId,
      ...armValues(planLeaveScan(q, longestSpanDays)),
      from: q.from,
      to: q.to,
      annualCategory: filters.types ? "annual" : undefined,
      deletedEmployeesOf: filters.deletedEmployees ? q.organisationId : undefined,
      status: q.status,
      employeeId: q.employeeId,
      updatedSince: q.updatedSince,
    });
    return firstRows(rows, q.limit);
  };

  /** A page's rows by `query`, each with its leave type. */
  const readPage = async <R extends { leave_type_id: string }, T>(
    query: (rows: number) => QueryDefinition<LeavePageValues, R>,
    q: LeavePageQuery,
    map: (row: R, type: LeaveTypeRow) => T,
  ): Promise<T[]> => {
    let context = await leaveContext(q.organisationId);
    const annualCount = context.filter((t) => t.category === "annual").length;
    if (annualCount === 0) return [];
    // The usual organisation has only annual leave types and no deleted employees: then
    // the page needs neither filter, and each arm is a bare scan of the page index.
    const filters: LeaveFilters = { types: annualCount < context.length, deletedEmployees: bool(context[0]!.someone_deleted) };
    const longestSpanDays = Number(context[0]!.max_span_days ?? 0);
    let rows = await pageRows(query, q, filters, longestSpanDays);
    let byId = new Map(context.map((t) => [t.id, t]));
    if (rows.some((r) => byId.get(r.leave_type_id)?.category !== "annual")) {
      // A leave type was added while this page was read: read it again, filtering by type.
      rows = await pageRows(query, q, { ...filters, types: true }, longestSpanDays);
      context = await leaveContext(q.organisationId);
      byId = new Map(context.map((t) => [t.id, t]));
    }
    return rows.map((r) => map(r, byId.get(r.leave_type_id)!));
  };

  const listOverlappingLeave = (q: LeavePageQuery) => ctx.guard((): Promise<LeaveBookingRecord[]> => readPage(leavePageQuery, q, toLeaveBooking));

  return {
    listOverlappingLeave,

    listOverlappingLeaveText: (q) =>
      ctx.guard(async (): Promise<RecordText<string>[]> => {
        // Each leave type's text once a page, not once a booking.
        const typeTexts = new Map<string, string>();
        const typeText = (t: LeaveTypeRow) => {
          let text = typeTexts.get(t.id);
          if (text === undefined) {
            text = leaveTypeText(toLeaveType(t));
            typeTexts.set(t.id, text);
          }
          return text;
        };
        const texts = await readPage(leaveTextQuery, q, (r, t): RecordText<string> | null =>
          r.rendered === null ? null : { key: r.start_date, id: r.id, json: leaveText(r.id, r.employee_id, typeText(t), r.rendered, instant(r.updated_at)) },
        );
        if (texts.every((text): text is RecordText<string> => text !== null)) return texts;
        // A booking not rendered yet: the page is read as records and written out here.
        return (await listOverlappingLeave(q)).map((b) => ({ key: b.start_date, id: b.id, json: JSON.stringify(leaveBookingJson(b)) }));
      }),
  };
}
