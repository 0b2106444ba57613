/**
 * The leave page in the SQL store, as records (`listOverlappingLeave`) and as text for
 * `Store.listText`. The statements are leave-page-sql.ts's; the plan they are written
 * for is leave-page-plan.ts's, from the organisation's leave context.
 *
 * One text reader per dialect, chosen when the store is built:
 * - by rows (SQLite): the page, then the leave context that checks what it was planned
 *   on: two statements, which on SQLite are function calls;
 * - in one row (Postgres, `caps.leavePageInOneRow`, where each statement is a round
 *   trip): the page and the context it was planned on read by one statement, planned on
 *   the context last seen for the organisation, and read again on the new one when that
 *   no longer covers it. A context that keeps changing under it (an import rewriting the
 *   leave types) ends in the two statements by rows (`byRows`), which read again on the
 *   newer context a few times and then keep what the last one says is annual.
 */
import { covers, FIRST_GUESS, planLeavePage, RecentPlans, withTypeFilter, type LeavePagePlan } from "./leave-page-plan.ts";
import { planLeaveScan } from "./leave-span-plan.ts";
import type { LeaveBookingRecord } from "../../../lib/records.ts";
import type { LeavePageQuery, ListText, RestrictedReads, Store } from "../../../lib/store.ts";
import { selectsSome, type EmployeeSelection } from "../../../lib/restriction.ts";
import type { QueryDefinition } from "../compiled-queries.ts";
import {
  armValues,
  bookingChangedQuery,
  classSpansOfText,
  copyExistsQuery,
  employeeChangedQuery,
  LEAVE_TEXT_NAMES,
  leaveContextQuery,
  leavePageQuery,
  leaveTextQuery,
  leaveTextRowQuery,
  type LeavePageValues,
  type LeaveTextRow,
} from "./leave-page-sql.ts";
import { splitRows } from "../one-row-pages.ts";
import { selectionValues } from "../selected-employees.ts";
import { selectionCopyId } from "../selection-copies.ts";
import { leaveText, leaveTypeText, listTextOf } from "../record-bodies.ts";
import { firstRows } from "../row-counts.ts";
import { bool, instant, toLeaveBooking, toLeaveType, type LeaveTypeRow } from "../row-mapping.ts";
import type { SqlContext } from "../sql-context.ts";

/** Plans remembered, by organisation (the one-row reader's); past this many, the least recently used goes. */
const REMEMBERED_PLANS = 10_000;

/** The plan a leave context row calls for (leaveContextQuery's, or leaveTextRowQuery's context columns). */
function planOfContext(types: readonly Pick<LeaveTypeRow, "category">[], classSpans: string | null, someoneDeleted: boolean | number): LeavePagePlan {
  return planLeavePage(
    types.map((t) => t.category),
    classSpansOfText(classSpans),
    bool(someoneDeleted),
  );
}

/** The text of a page with no booking. */
function emptyPageText(q: LeavePageQuery): ListText {
  return listTextOf(
    [],
    q.limit,
    () => ["", ""],
    () => "",
  );
}

/** How many times a page is read again on a newer plan before the last read is taken as it is (`byRows`). */
const PLAN_ATTEMPTS = 4;

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

/**
 * The values of the page `q` under `plan`, of the employees `selection` selects when given
 * (a restricted client's): from the selection's copy (../selection-copies.ts) when `fromCopy`
 * and it selects some; otherwise each row checked.
 */
function pageValues(q: LeavePageQuery, plan: LeavePagePlan, selection?: EmployeeSelection, fromCopy = false): LeavePageValues {
  const { from, to, status, employee_id, updated_since } = q.filters;
  const copyOf = fromCopy && selection && selectsSome(selection) ? selectionCopyId(q.organisationId, selection) : undefined;
  return {
    organisationId: q.organisationId,
    ...armValues(planLeaveScan({ from, after: q.after }, plan.spans)),
    from,
    to,
    annualCategory: plan.filters.types ? "annual" : undefined,
    deletedEmployeesOf: plan.filters.deletedEmployees ? q.organisationId : undefined,
    status,
    employeeId: employee_id,
    updatedSince: selection ? undefined : updated_since,
    ...selectionValues(q.organisationId, copyOf ? undefined : selection, false),
    copyOf,
    changedWithEmployeeSince: selection ? updated_since : undefined,
  };
}

/** A page's text from its rows (the page's and one more) with each row's leave type; null when a booking has no body. */
type TextOfRows = (q: LeavePageQuery, rows: readonly { row: LeaveTextRow; type: LeaveTypeRow }[]) => Promise<ListText | null>;

export function leavePageQueries(ctx: SqlContext): Pick<Store, "listOverlappingLeave"> & {
  /** The page as text, of the selected employees' bookings when `selection` is given (a restricted client's). */
  leaveText: (q: LeavePageQuery, selection?: EmployeeSelection) => Promise<ListText | null>;
  /** A restricted client's page (../restricted-queries.ts): the same scan, of the selected employees' bookings. */
  restrictedLeave: RestrictedReads["listOverlappingLeave"];
} {
  const { stamps } = ctx;

  /** The page's rows: its SQL reads a few more than `rows` at most (../row-counts.ts), and the rest are dropped. */
  const pageRows = async <R>(
    query: (rows: number) => QueryDefinition<LeavePageValues, R>,
    q: LeavePageQuery,
    rows: number,
    plan: LeavePagePlan,
    selection?: EmployeeSelection,
    fromCopy?: boolean,
  ) => firstRows(await ctx.replica.rows(query(rows), pageValues(q, plan, selection, fromCopy)), rows);

  const plans = new RecentPlans(REMEMBERED_PLANS);

  /**
   * `rows` rows of the page by `query`, each with its leave type: the page read on the
   * plan last seen for the organisation, then the leave context, which says whether that
   * plan is the one the page calls for (`covers`). Read after the page, the context is at
   * least as new as what the page saw, and an import that committed in between can only
   * have lengthened a class's longest booking, deleted an employee or added a type: a
   * plan that covers the newer context covers the page's. When it does not, or a row's
   * type is not annual (a type added or changed meanwhile), the page is read again on the
   * newer plan (with the type filter for such a row). An organisation not seen yet costs
   * this once; after that, a page is its two statements, as with the context first.
   */
  const byRows = async <R extends { leave_type_id: string }>(
    query: (rows: number) => QueryDefinition<LeavePageValues, R>,
    q: LeavePageQuery,
    rows: number,
    selection?: EmployeeSelection,
    fromCopy?: boolean,
  ): Promise<{ row: R; type: LeaveTypeRow }[]> => {
    let plan = plans.get(q.organisationId) ?? FIRST_GUESS;
    for (let attempt = 1; ; attempt++) {
      const read = await pageRows(query, q, rows, plan, selection, fromCopy);
      const context = await ctx.replica.rows(leaveContextQuery, { organisationId: q.organisationId });
      const needed = planOfContext(context, context[0]?.class_spans ?? null, context[0]?.someone_deleted ?? false);
      plans.set(q.organisationId, needed);
      if (needed.noAnnualTypes) return [];
      const byId = new Map(context.map((t) => [t.id, t]));
      const annual = (r: R) => byId.get(r.leave_type_id)?.category === "annual";
      const otherType = !read.every(annual);
      // A context that keeps changing under the page (an import rewriting the leave types
      // over and over) ends with the page as read, less what the last context says is not annual.
      if ((covers(plan, needed) && !otherType) || attempt === PLAN_ATTEMPTS) {
        return read.filter(annual).map((row) => ({ row, type: byId.get(row.leave_type_id)! }));
      }
      plan = otherType ? withTypeFilter(needed) : needed;
    }
  };

  /** The query with a sync's `updated_since` as the stamps stored (../published-stamps.ts). */
  const storedQuery = async (q: LeavePageQuery): Promise<LeavePageQuery> => {
    const since = q.filters.updated_since;
    return since === undefined ? q : { ...q, filters: { ...q.filters, updated_since: await stamps.storedSince(q.organisationId, since) } };
  };

  /**
   * Whether the page of `q` (stored stamps) is empty because nothing it filters on changed
   * since its `updated_since`: no booking of the organisation stamped since, nor, for a
   * restricted client, whose employees' changes also bring bookings in, any employee. A
   * sync poll of an unchanged organisation asks just such a page, and the page's own scan
   * would read every booking of its range (up to 400 days of them) to find none:
   * bench/RESULTS.md, "A sync poll's leave page". One or two index seeks instead.
   */
  const nothingChangedSince = async (q: LeavePageQuery, selection?: EmployeeSelection): Promise<boolean> => {
    const since = q.filters.updated_since;
    // A page after a cursor follows one that found changes: the question would cost a
    // statement (a round trip on Postgres) on every deep page of a sync, to answer no.
    if (since === undefined || q.after !== undefined) return false;
    const values = { organisationId: q.organisationId, since };
    if ((await ctx.replica.rows(bookingChangedQuery, values)).length > 0) return false;
    return selection === undefined || (await ctx.replica.rows(employeeChangedQuery, values)).length === 0;
  };

  const textOf: TextOfRows = async (q, rows) => {
    if (rows.some(({ row }) => row.rendered === null)) return null;
    const shown = await stamps.shownAll(
      q.organisationId,
      rows.map(({ row }) => instant(row.updated_at)),
    );
    const typeText = leaveTypeTexts();
    return listTextOf(
      rows,
      q.limit,
      ({ row }) => [row.start_date, row.id],
      ({ row, type }) => leaveText(row.id, row.employee_id, typeText(type), row.rendered!, shown(instant(row.updated_at))),
    );
  };

  /** The text by rows: two statements. */
  const textByRows = async (q: LeavePageQuery, selection?: EmployeeSelection, fromCopy?: boolean) =>
    textOf(q, await byRows(leaveTextQuery, q, q.limit + 1, selection, fromCopy));

  /** The text in one statement and one row (../one-row-pages.ts); by rows after three contexts that did not cover their page. */
  const textInOneRow = async (q: LeavePageQuery, selection?: EmployeeSelection, fromCopy?: boolean): Promise<ListText | null> => {
    let plan = plans.get(q.organisationId) ?? FIRST_GUESS;
    for (let attempt = 0; attempt < 3; attempt++) {
      const [page] = await ctx.replica.rows(leaveTextRowQuery(q.limit + 1), pageValues(q, plan, selection, fromCopy));
      const types = page!.types ?? [];
      const needed = planOfContext(types, page!.class_spans, page!.someone_deleted);
      plans.set(q.organisationId, needed);
      if (needed.noAnnualTypes) return emptyPageText(q);
      if (!covers(plan, needed)) {
        plan = needed;
        continue;
      }
      const fields = splitRows(page!.texts, Number(page!.rows), LEAVE_TEXT_NAMES.length);
      if (!fields) return null;
      const byId = new Map(types.map((t) => [t.id, t]));
      const rows = firstRows(fields, q.limit + 1).map(([id, employee_id, leave_type_id, start_date, updated_at, rendered]) => ({
        row: {
          id: id!,
          employee_id: employee_id!,
          leave_type_id: leave_type_id!,
          start_date: start_date!,
          updated_at: Number(updated_at),
          rendered: rendered!,
        },
        type: byId.get(leave_type_id!)!,
      }));
      return textOf(q, rows);
    }
    return textByRows(q, selection, fromCopy);
  };

  const readText = ctx.caps.leavePageInOneRow ? textInOneRow : textByRows;

  /** The page's bookings, of the selected employees' when `selection` is given. */
  const listOverlappingLeave = (asked: LeavePageQuery, selection?: EmployeeSelection) =>
    ctx.guard(async (): Promise<LeaveBookingRecord[]> => {
      const q = await storedQuery(asked);
      if (await nothingChangedSince(q, selection)) return [];
      const bookings = (await byRows(leavePageQuery, q, q.limit, selection)).map(({ row, type }) => toLeaveBooking(row, type));
      const shown = await stamps.shownAll(
        q.organisationId,
        bookings.map((b) => b.updated_at),
      );
      return bookings.map((b) => ({ ...b, updated_at: shown(b.updated_at) }));
    });

  return {
    listOverlappingLeave: (asked) => listOverlappingLeave(asked),
    restrictedLeave: (asked, selection) => listOverlappingLeave(asked, selection),

    leaveText: async (asked, selection) =>
      ctx.guard(async () => {
        const q = await storedQuery(asked);
        if (await nothingChangedSince(q, selection)) return emptyPageText(q);
        const fromCopy = selection !== undefined && selectsSome(selection);
        const text = await readText(q, selection, fromCopy);
        if (!fromCopy || text === null || text.hasMore) return text;
        // A page that ends the list may have ended for want of its copy: a token's grant
        // outlives a change of its credential's restriction made by another process by a
        // few seconds (lib/token-grant-cache.ts), and the old selection's copy may be gone.
        // Only then is the page read again, each row checked.
        const [copy] = await ctx.replica.rows(copyExistsQuery, { organisationId: q.organisationId, copyOf: selectionCopyId(q.organisationId, selection) });
        return copy ? text : readText(q, selection, false);
      }),
  };
}
