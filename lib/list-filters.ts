/**
 * The filters of the list endpoints, declared once as the valibot schemas of their query
 * parameters (docs/api.md, "Query parameters"). Everything else derives from them: the
 * parameters' types (request-params.ts), what a cursor is bound to (keyset-page.ts), the
 * `filters` of a Store page query (store.ts) and, in `EMPLOYEE_FILTER_RULES` and
 * `LEAVE_FILTER_RULES`, what each filter means for a record: the memory store filters by
 * them and the Store contract (testing/store-contract.ts) checks every store against them,
 * so a filter a store ignores fails the contract.
 *
 * A filter's parameter is named as the API names it, and so is its key everywhere.
 */
import * as v from "valibot";
import { isDate, parseInstantCeil } from "./dates.ts";
import { isUuid } from "./ids.ts";
import { LEAVE_STATUSES, type EmployeeRecord, type LeaveBookingRecord } from "./records.ts";

export const dateParam = (name: string) =>
  v.pipe(
    v.string(`'${name}' is required: a date as YYYY-MM-DD.`),
    v.check(isDate, `'${name}' must be a real calendar date as YYYY-MM-DD.`),
    v.metadata({ format: "date", examples: ["2026-03-01"] }),
  );

/** A space where the offset's `+` stood: an unencoded `+` in a query string arrives as a space. */
const restorePlus = (text: string) => text.replace(/ (\d{2}:\d{2})$/, "+$1");

export const updatedSinceParam = v.pipe(
  v.string(),
  // Before the first transform: the document describes what the client sends.
  v.metadata({ format: "date-time", examples: ["2026-03-01T09:30:00Z"] }),
  v.description(
    "Only records changed at or after this instant: an RFC 3339 date-time with `Z` or a ±hh:mm offset. " +
      "For incremental sync, pass the moment your previous sync started, less a few seconds.",
  ),
  v.transform(restorePlus),
  v.check((s) => parseInstantCeil(s) !== null, "'updated_since' must be an RFC 3339 date-time with an offset, e.g. 2026-03-01T09:30:00Z."),
  v.transform((s) => parseInstantCeil(s)!),
);

const uuidParam = (name: string) =>
  v.pipe(
    v.string(),
    v.check(isUuid, `'${name}' must be a UUID.`),
    v.metadata({ format: "uuid" }),
    v.description("Any letter case is accepted."),
    v.transform((s) => s.toLowerCase()),
  );

export const MAX_RANGE_DAYS = 400;

export const fromParam = v.pipe(dateParam("from"), v.description("Start of the date range, inclusive, as YYYY-MM-DD."));
export const toParam = v.pipe(
  dateParam("to"),
  v.description(`End of the date range, inclusive: not before \`from\` and at most ${MAX_RANGE_DAYS} days after it.`),
);

/** The filters of GET /v1/employees, in the order a cursor binds them. */
export const employeeFilterEntries = {
  status: v.optional(
    v.pipe(v.string(), v.regex(/^[a-z_]{1,30}$/, "'status' must match ^[a-z_]{1,30}$."), v.description("Exact employment status."), v.examples(["active"])),
  ),
  updated_since: v.optional(updatedSinceParam),
};

/** The filters of GET /v1/leave-requests, in the order a cursor binds them: the date range, then the optional ones. */
export const leaveFilterEntries = {
  from: fromParam,
  to: toParam,
  status: v.optional(
    v.pipe(v.picklist(LEAVE_STATUSES, `'status' must be one of ${LEAVE_STATUSES.join(", ")}.`), v.description("Only bookings with this status.")),
  ),
  employee_id: v.optional(uuidParam("employee_id")),
  updated_since: v.optional(updatedSinceParam),
};

type FiltersOf<E extends v.ObjectEntries> = v.InferOutput<v.ObjectSchema<E, undefined>>;

/** What a page of employees is filtered by, as the request's parameters say it (instants as epoch ms). */
export type EmployeeFilters = FiltersOf<typeof employeeFilterEntries>;
/** What a page of leave is filtered by: the range it must overlap, and the optional filters. */
export type LeaveFilters = FiltersOf<typeof leaveFilterEntries>;

/** The filters a request may leave out: each narrows the list when given. */
export type OptionalFilter<F> = { [K in keyof F]-?: undefined extends F[K] ? K : never }[keyof F];

/**
 * What each optional filter means: whether a record passes it with this value. Keyed by
 * every optional filter (a missing one does not compile), so adding a filter to the
 * entries above means saying here what it keeps.
 */
export type FilterRules<F, R> = { [K in OptionalFilter<F>]-?: (record: R, value: Exclude<F[K], undefined>) => boolean };

export const EMPLOYEE_FILTER_RULES: FilterRules<EmployeeFilters, EmployeeRecord> = {
  status: (e, status) => e.status === status,
  updated_since: (e, since) => e.updated_at >= since,
};

export const LEAVE_FILTER_RULES: FilterRules<LeaveFilters, LeaveBookingRecord> = {
  status: (b, status) => b.status === status,
  employee_id: (b, id) => b.employee_id === id,
  updated_since: (b, since) => b.updated_at >= since,
};

/** Whether a record passes every optional filter given in `filters`, by `rules`: the filters given are found once, not once a record. */
export function filterPredicate<F extends object, R>(rules: FilterRules<F, R>, filters: F): (record: R) => boolean {
  const given: [(record: R, value: unknown) => boolean, unknown][] = [];
  for (const [name, rule] of Object.entries(rules) as [keyof F & string, (record: R, value: unknown) => boolean][]) {
    if (filters[name] !== undefined) given.push([rule, filters[name]]);
  }
  return (record) => given.every(([rule, value]) => rule(record, value));
}
