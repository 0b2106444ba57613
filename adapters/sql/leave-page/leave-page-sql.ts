/**
 * The leave page's statements in the SQL store: the span-class plan of
 * leave-span-plan.ts run as one ordered index scan per class over the page index
 * (leave-span-classes.ts), merged by (start_date, id). leave-page-queries.ts runs them.
 */
import { sql, type Expression, type Kysely } from "kysely";
import { NO_SPANS, SPAN_CLASS_COUNT, type ClassSpans, type SpanClassArm } from "./leave-span-plan.ts";
import type { SqlCapabilities } from "../capabilities.ts";
import { defineQuery, type QueryDefinition, type Slots } from "../compiled-queries.ts";
import { spanClassExpression } from "./leave-span-classes.ts";
import { isSelected, type SelectionValues } from "../selected-employees.ts";
import { joinedRows } from "../one-row-pages.ts";
import type { LeaveTypeRow } from "../row-mapping.ts";
import { perRowCount } from "../row-counts.ts";
import type { Tables } from "../tables.ts";

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

/** What a page of bookings as text reads: the keyset, what a page writes itself, and the kept body (../record-bodies.ts). */
const LEAVE_TEXT_COLUMNS = ["b.id as id", "b.employee_id", "b.leave_type_id", "b.start_date as start_date", "b.updated_at", "b.rendered"] as const;
/** LEAVE_TEXT_COLUMNS as a subquery's result names them. */
export const LEAVE_TEXT_NAMES = ["id", "employee_id", "leave_type_id", "start_date", "updated_at", "rendered"] as const;

/** The values of a leave page; which are bound decides the query (../compiled-queries.ts). */
export interface LeavePageValues extends SelectionValues {
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
  /**
   * A restricted client's selection copy (../selection-copies.ts), in place of the
   * organisation's bookings: each arm scans the copy's rows of its span class, which hold
   * only the live bookings of the selected employees.
   */
  copyOf: number | undefined;
  /** In place of `updatedSince` for a restricted client: a booking changed since, or whose employee did. */
  changedWithEmployeeSince: number | undefined;
  /** Each span class's arm (SpanClassArm), by class: its start, and its cursor id past a cursor. */
  [start: `start${number}`]: string | undefined;
  [afterId: `afterId${number}`]: string | undefined;
}

/**
 * What a page is planned on besides the leave types (planOf): each span class's longest
 * booking, as `class:days` pairs joined by commas (`classSpansOfText`), and whether
 * anyone was deleted.
 */
function planColumns(db: Kysely<Tables>, caps: SqlCapabilities, organisationId: Expression<string>) {
  const gone = db.selectFrom("employees as gone").select("gone.id").where("gone.organisation_id", "=", organisationId).where("gone.deleted_at", "is not", null);
  const pair = sql`cast(s.span_class as text) || ':' || cast(s.max_span_days as text)`;
  const joined = caps.dialect === "postgres" ? sql<string | null>`string_agg(${pair}, ',')` : sql<string | null>`group_concat(${pair}, ',')`;
  return [
    db.selectFrom("leave_class_spans as s").select(joined.as("spans")).where("s.organisation_id", "=", organisationId).as("class_spans"),
    sql<boolean>`exists ${gone}`.as("someone_deleted"),
  ] as const;
}

/** The class spans `planColumns` joined into text (null: no booking), by class (leave-span-plan.ts). */
export function classSpansOfText(text: string | null): ClassSpans | null {
  if (text === null) return null;
  const spans = [...NO_SPANS];
  for (const pair of text.split(",")) {
    const [spanClass, days] = pair.split(":");
    spans[Number(spanClass)] = Number(days);
  }
  return spans;
}

export const leaveContextQuery = defineQuery<{ organisationId: string }>()((s, db, caps) =>
  db
    .selectFrom("leave_types as t")
    .select(["t.id", "t.name", "t.category", "t.is_paid", ...planColumns(db, caps, s.organisationId)])
    .where("t.organisation_id", "=", s.organisationId),
);

/**
 * A booking of the organisation stamped at or after `since` (a stored stamp,
 * ../published-stamps.ts), if there is one: one seek of leave_bookings_by_update. A sync
 * poll of an organisation that has not changed asks a page filtered by exactly this, which
 * would otherwise scan every booking of its range to find none (leave-page-queries.ts).
 */
export const bookingChangedQuery = defineQuery<{ organisationId: string; since: number }>()((s, db) =>
  db.selectFrom("leave_bookings").select("id").where("organisation_id", "=", s.organisationId).where("updated_at", ">=", s.since).limit(sql.lit(1)),
);

/**
 * A present employee of the organisation stamped at or after `since`, if there is one:
 * what brings bookings into a restricted client's sync besides their own change (a
 * deleted employee's bookings are never shown). `deleted_at is null` also leads SQLite to
 * the employees page index; without it, it scans the organisation's employees by id.
 */
export const employeeChangedQuery = defineQuery<{ organisationId: string; since: number }>()((s, db) =>
  db
    .selectFrom("employees")
    .select("id")
    .where("organisation_id", "=", s.organisationId)
    .where("updated_at", ">=", s.since)
    .where("deleted_at", "is", null)
    .limit(sql.lit(1)),
);

/** The copy's id when it is the organisation's: a copy is read only through the organisation it was made for. */
function copyOfOrganisation(db: Kysely<Tables>, copyOf: Expression<number>, organisationId: Expression<string>) {
  return db.selectFrom("restricted_selections as copy").select("copy.id").where("copy.id", "=", copyOf).where("copy.organisation_id", "=", organisationId);
}

/** The copy `copyOf` if it is there and the organisation's (one row), or nothing. */
export const copyExistsQuery = defineQuery<{ organisationId: string; copyOf: number }>()((s, db) => copyOfOrganisation(db, s.copyOf, s.organisationId));

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
    // 0002). Joining the leave types row by row cost more a booking than reading it; with
    // statistics, SQLite even put them in the outer loop, lost the index order and
    // sorted every overlapping booking. The two sets below are small, but each arm
    // builds its own copy, so they are bound only when they would exclude something.
    // A copy has the columns of a booking that a page of text reads (LEAVE_TEXT_COLUMNS) and
    // filters on, under the same names, so the arm is the same but for its table, key and
    // class column; typed as the bookings it copies.
    const { copyOf } = s;
    let bookings = db.selectFrom((copyOf ? "selection_bookings as b" : "leave_bookings as b") as "leave_bookings as b");
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
    if (s.selectedOf) bookings = bookings.where(isSelected(db, caps, s.selectedOf, "b.employee_id", s));
    const { changedWithEmployeeSince: since } = s;
    if (since) {
      bookings = bookings.where((eb) =>
        eb.or([
          eb("b.updated_at", ">=", since),
          eb(
            "b.employee_id",
            "in",
            eb.selectFrom("employees as moved").select("moved.id").where("moved.organisation_id", "=", s.organisationId).where("moved.updated_at", ">=", since),
          ),
        ]),
      );
    }
    let query = bookings
      .select(columns as typeof LEAVE_COLUMNS & C)
      .where(
        copyOf ? sql.ref("b.selection_id") : sql.ref("b.organisation_id"),
        "=",
        copyOf ? copyOfOrganisation(db, copyOf, s.organisationId) : s.organisationId,
      )
      .where(copyOf ? sql.ref("b.span_class") : spanClass, "=", sql.lit(c))
      .where((eb) => (afterId ? eb(eb.refTuple("b.start_date", "b.id"), ">", eb.tuple(start, afterId)) : eb("b.start_date", ">=", start)))
      .where("b.start_date", "<=", s.to)
      .where("b.end_date", ">=", s.from);
    if (!copyOf) query = query.where("b.deleted_at", "is", null);
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
 * The page as text in one row (../one-row-pages.ts), with the leave context it was planned
 * on read in the same statement (so from the same snapshot): the leave types as JSON,
 * each span class's longest booking and whether anyone was deleted, as leaveContextQuery
 * reads them.
 */
const leaveTextRowQueryOf = (rowCount: number) =>
  defineQuery<LeavePageValues>()((s, db, caps) =>
    db.selectFrom(leavePage(s, db, caps, LEAVE_TEXT_COLUMNS, rowCount).as("p")).select((eb) => [
      eb
        .selectFrom("leave_types as t")
        .select(sql<LeaveTypeRow[] | null>`json_agg(json_build_object('id', t.id, 'name', t.name, 'category', t.category, 'is_paid', t.is_paid))`.as("types"))
        .where("t.organisation_id", "=", s.organisationId)
        .as("types"),
      ...planColumns(db, caps, s.organisationId),
      sql<number>`count(*)`.as("rows"),
      joinedRows(
        LEAVE_TEXT_NAMES.map((c) => `p.${c}`),
        ["p.start_date", "p.id"],
      ).as("texts"),
    ]),
  );

/** A booking as a page of text reads it (LEAVE_TEXT_COLUMNS). */
export interface LeaveTextRow {
  id: string;
  employee_id: string;
  leave_type_id: string;
  start_date: string;
  updated_at: number | string;
  /** Null only for a booking whose body was never written (../render-bodies.ts). */
  rendered: string | null;
}

export const leavePageQuery = perRowCount((n) => leavePageQueryOf(LEAVE_COLUMNS, n));
export const leaveTextQuery = perRowCount((n) => leavePageQueryOf(LEAVE_TEXT_COLUMNS, n) as unknown as QueryDefinition<LeavePageValues, LeaveTextRow>);
export const leaveTextRowQuery = perRowCount(leaveTextRowQueryOf);

/** The plan's arms as the page query's values. */
export function armValues(arms: readonly SpanClassArm[]): Pick<LeavePageValues, `start${number}` | `afterId${number}`> {
  const values: Pick<LeavePageValues, `start${number}` | `afterId${number}`> = {};
  for (const arm of arms) {
    values[`start${arm.spanClass}`] = arm.startDate;
    values[`afterId${arm.spanClass}`] = arm.afterId;
  }
  return values;
}
