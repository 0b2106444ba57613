/**
 * The leave page in the SQL store: the span-class plan of lib/leave-span-plan.ts run as
 * one ordered index scan per class over the page index (leave-span-classes.ts), merged by
 * (start_date, id).
 */
import { sql, type Expression, type Kysely } from "kysely";
import { planLeaveScan, SPAN_CLASS_COUNT, type SpanClassArm } from "../../lib/leave-span-plan.ts";
import { leaveText, leaveTypeText, type RecordText } from "../../lib/record-text.ts";
import { leaveBookingJson, type LeaveBookingRecord } from "../../lib/records.ts";
import type { LeavePageQuery, Store } from "../../lib/store.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { defineQuery, type QueryDefinition, type Slots } from "./compiled-queries.ts";
import { spanClassExpression } from "./leave-span-classes.ts";
import { joinedRows, splitRows } from "./one-row-pages.ts";
import { bool, instant, toLeaveBooking, toLeaveType, type LeaveTypeRow } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import { firstRows, perRowCount } from "./row-counts.ts";
import type { Tables } from "./tables.ts";

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
/** LEAVE_TEXT_COLUMNS as a subquery's result names them. */
const LEAVE_TEXT_NAMES = ["id", "employee_id", "leave_type_id", "start_date", "updated_at", "rendered"] as const;

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

/** What a page is planned on besides the leave types (planOf): the organisation's longest span, and whether anyone was deleted. */
function planColumns(db: Kysely<Tables>, organisationId: Expression<string>) {
  const gone = db.selectFrom("employees as gone").select("gone.id").where("gone.organisation_id", "=", organisationId).where("gone.deleted_at", "is not", null);
  return [
    db.selectFrom("leave_spans as s").select("s.max_span_days").where("s.organisation_id", "=", organisationId).as("max_span_days"),
    sql<boolean>`exists ${gone}`.as("someone_deleted"),
  ] as const;
}

const leaveContextQuery = defineQuery<{ organisationId: string }>()((s, db) =>
  db
    .selectFrom("leave_types as t")
    .select(["t.id", "t.name", "t.category", "t.is_paid", ...planColumns(db, s.organisationId)])
    .where("t.organisation_id", "=", s.organisationId),
);

/** One ordered index scan per span class whose arm is bound, merged by (start_date, id), reading `columns`, at most `rowCount`. */
function leavePage<C extends typeof LEAVE_COLUMNS | typeof LEAVE_TEXT_COLUMNS>(
  s: Slots<LeavePageValues>,
  db: Kysely<Tables>,
  caps: SqlCapabilities,
  columns: C,
  rowCount: number,
) {
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
}

const leavePageQueryOf = <C extends typeof LEAVE_COLUMNS | typeof LEAVE_TEXT_COLUMNS>(columns: C, rowCount: number) =>
  defineQuery<LeavePageValues>()((s, db, caps) => leavePage(s, db, caps, columns, rowCount));

/**
 * The page as text in one row (one-row-pages.ts), with the leave context it was planned
 * on read in the same statement (so from the same snapshot): the leave types as JSON,
 * the longest span and whether anyone was deleted, as leaveContextQuery reads them.
 */
const leaveTextRowQueryOf = (rowCount: number) =>
  defineQuery<LeavePageValues>()((s, db, caps) =>
    db.selectFrom(leavePage(s, db, caps, LEAVE_TEXT_COLUMNS, rowCount).as("p")).select((eb) => [
      eb
        .selectFrom("leave_types as t")
        .select(sql<LeaveTypeRow[] | null>`json_agg(json_build_object('id', t.id, 'name', t.name, 'category', t.category, 'is_paid', t.is_paid))`.as("types"))
        .where("t.organisation_id", "=", s.organisationId)
        .as("types"),
      ...planColumns(db, s.organisationId),
      sql<number>`count(*)`.as("rows"),
      joinedRows(
        LEAVE_TEXT_NAMES.map((c) => `p.${c}`),
        ["p.start_date", "p.id"],
      ).as("texts"),
    ]),
  );

const leavePageQuery = perRowCount((n) => leavePageQueryOf(LEAVE_COLUMNS, n));
const leaveTextQuery = perRowCount((n) => leavePageQueryOf(LEAVE_TEXT_COLUMNS, n) as unknown as QueryDefinition<LeavePageValues, LeaveTextRow>);
const leaveTextRowQuery = perRowCount(leaveTextRowQueryOf);

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

/** What a page's SQL is written for, from the organisation's leave context. */
interface LeavePlan {
  filters: LeaveFilters;
  longestSpanDays: number;
  /** No annual leave type, no rows. */
  noAnnualTypes: boolean;
}

/** The plan the leave context calls for (leaveContextQuery, or leaveTextRowQueryOf's context columns). */
function planOf(types: readonly Pick<LeaveTypeRow, "category">[], maxSpanDays: number | string | null, someoneDeleted: boolean | number): LeavePlan {
  const annualCount = types.filter((t) => t.category === "annual").length;
  return {
    // The usual organisation has only annual leave types and no deleted employees: then
    // the page needs neither filter, and each arm is a bare scan of the page index.
    filters: { types: annualCount < types.length, deletedEmployees: bool(someoneDeleted) },
    longestSpanDays: Number(maxSpanDays ?? 0),
    noAnnualTypes: annualCount === 0,
  };
}

/**
 * Whether a page read under `used` is the page `needed` calls for: a filter applied
 * that excludes nothing, or classes scanned from further back than any booking reaches,
 * change what is read, not what is kept.
 */
function covers(used: LeavePlan, needed: LeavePlan): boolean {
  return (
    (used.filters.types || !needed.filters.types) &&
    (used.filters.deletedEmployees || !needed.filters.deletedEmployees) &&
    used.longestSpanDays >= needed.longestSpanDays
  );
}

/** The first guess for an organisation not seen yet: the usual one, and one-day bookings (the cheapest page to read in vain). */
const FIRST_GUESS: LeavePlan = { filters: { types: false, deletedEmployees: false }, longestSpanDays: 0, noAnnualTypes: false };

/** Plans remembered, by organisation; past this many, forgotten all at once. */
const REMEMBERED_PLANS = 10_000;

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

/** Each leave type's text once a page, not once a booking. */
function leaveTypeTexts(): (t: LeaveTypeRow) => string {
  const texts = new Map<string, string>();
  return (t) => {
    let text = texts.get(t.id);
    if (text === undefined) {
      text = leaveTypeText(toLeaveType(t));
      texts.set(t.id, text);
    }
    return text;
  };
}

export function leavePageQueries(ctx: SqlContext): Pick<Store, "listOverlappingLeave" | "listOverlappingLeaveText"> {
  /**
   * What a leave page needs to know first, in one statement (one round trip on Postgres):
   * the organisation's leave types (a handful), each row also carrying whether it has
   * deleted employees and its longest booking span. No leave types, no rows.
   */
  const leaveContext = (organisationId: string) => ctx.replica.rows(leaveContextQuery, { organisationId });

  /** The values of the page `q` under `plan`. */
  const pageValues = (q: LeavePageQuery, plan: LeavePlan): LeavePageValues => ({
    organisationId: q.organisationId,
    ...armValues(planLeaveScan(q, plan.longestSpanDays)),
    from: q.from,
    to: q.to,
    annualCategory: plan.filters.types ? "annual" : undefined,
    deletedEmployeesOf: plan.filters.deletedEmployees ? q.organisationId : undefined,
    status: q.status,
    employeeId: q.employeeId,
    updatedSince: q.updatedSince,
  });

  /** The page's rows: its SQL reads a few more than `q.limit` at most (row-counts.ts), and the rest are dropped. */
  const pageRows = async <R>(query: (rows: number) => QueryDefinition<LeavePageValues, R>, q: LeavePageQuery, plan: LeavePlan) => {
    const rows = await ctx.replica.rows(query(q.limit), pageValues(q, plan));
    return firstRows(rows, q.limit);
  };

  /** A page's rows by `query`, each with its leave type: the leave context first, then the page. */
  const readPage = async <R extends { leave_type_id: string }, T>(
    query: (rows: number) => QueryDefinition<LeavePageValues, R>,
    q: LeavePageQuery,
    map: (row: R, type: LeaveTypeRow) => T,
  ): Promise<T[]> => {
    let context = await leaveContext(q.organisationId);
    const plan = planOf(context, context[0]?.max_span_days ?? null, context[0]?.someone_deleted ?? false);
    if (plan.noAnnualTypes) return [];
    let rows = await pageRows(query, q, plan);
    let byId = new Map(context.map((t) => [t.id, t]));
    if (rows.some((r) => byId.get(r.leave_type_id)?.category !== "annual")) {
      // A leave type was added while this page was read: read it again, filtering by type.
      rows = await pageRows(query, q, { ...plan, filters: { ...plan.filters, types: true } });
      context = await leaveContext(q.organisationId);
      byId = new Map(context.map((t) => [t.id, t]));
    }
    return rows.map((r) => map(r, byId.get(r.leave_type_id)!));
  };

  const { stamps } = ctx;
  /** The query with a sync's `updated_since` as the stamps stored (published-stamps.ts). */
  const storedQuery = async (q: LeavePageQuery): Promise<LeavePageQuery> =>
    q.updatedSince === undefined ? q : { ...q, updatedSince: await stamps.storedSince(q.organisationId, q.updatedSince) };

  const listOverlappingLeave = (asked: LeavePageQuery) =>
    ctx.guard(async (): Promise<LeaveBookingRecord[]> => {
      const q = await storedQuery(asked);
      const bookings = await readPage(leavePageQuery, q, toLeaveBooking);
      const shown = await stamps.shownAll(
        q.organisationId,
        bookings.map((b) => b.updated_at),
      );
      return bookings.map((b) => ({ ...b, updated_at: shown(b.updated_at) }));
    });

  /** The page as text by rows, after the leave context; null when a booking is not rendered yet. */
  const textsByRows = async (q: LeavePageQuery): Promise<RecordText<string>[] | null> => {
    const typeText = leaveTypeTexts();
    const rows = await readPage(leaveTextQuery, q, (r, t) => ({ r, t }));
    if (rows.some(({ r }) => r.rendered === null)) return null;
    const shown = await stamps.shownAll(
      q.organisationId,
      rows.map(({ r }) => instant(r.updated_at)),
    );
    return rows.map(({ r, t }) => ({
      key: r.start_date,
      id: r.id,
      json: leaveText(r.id, r.employee_id, typeText(t), r.rendered!, shown(instant(r.updated_at))),
    }));
  };

  const plans = new Map<string, LeavePlan>();

  /**
   * The page as text in one statement and one row (caps.leavePageInOneRow), planned on the
   * organisation's leave context as last seen, which the same statement reads again: a
   * page planned on a context that no longer covers it is read again on the new one.
   * Null when a booking is not rendered yet; the two statements of `textsByRows` when the
   * context keeps changing under it.
   */
  const textsInOneRow = async (q: LeavePageQuery): Promise<RecordText<string>[] | null> => {
    let plan = plans.get(q.organisationId) ?? FIRST_GUESS;
    for (let attempt = 0; attempt < 3; attempt++) {
      const [page] = await ctx.replica.rows(leaveTextRowQuery(q.limit), pageValues(q, plan));
      const types = page!.types ?? [];
      const needed = planOf(types, page!.max_span_days, page!.someone_deleted);
      if (plans.size >= REMEMBERED_PLANS) plans.clear();
      plans.set(q.organisationId, needed);
      if (needed.noAnnualTypes) return [];
      if (!covers(plan, needed)) {
        plan = needed;
        continue;
      }
      const rows = splitRows(page!.texts, Number(page!.rows), LEAVE_TEXT_NAMES.length);
      if (!rows) return null;
      const byId = new Map(types.map((t) => [t.id, t]));
      const typeText = leaveTypeTexts();
      const kept = firstRows(rows, q.limit);
      const shown = await stamps.shownAll(
        q.organisationId,
        kept.map((row) => Number(row[4])),
      );
      return kept.map(([id, employeeId, typeId, startDate, updatedAt, rendered]) => ({
        key: startDate!,
        id: id!,
        json: leaveText(id!, employeeId!, typeText(byId.get(typeId!)!), rendered!, shown(Number(updatedAt))),
      }));
    }
    return textsByRows(q);
  };

  return {
    listOverlappingLeave,

    listOverlappingLeaveText: (asked) =>
      ctx.guard(async (): Promise<RecordText<string>[]> => {
        const q = await storedQuery(asked);
        const texts = ctx.caps.leavePageInOneRow ? await textsInOneRow(q) : await textsByRows(q);
        if (texts) return texts;
        // A booking not rendered yet: the page is read as records and written out here.
        return (await listOverlappingLeave(asked)).map((b) => ({ key: b.start_date, id: b.id, json: JSON.stringify(leaveBookingJson(b)) }));
      }),
  };
}
