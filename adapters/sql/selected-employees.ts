/**
 * Whom a restricted client's page keeps (lib/store.ts, `RestrictedReads`), as SQL, in one
 * of two ways, chosen by the selection's size when its values are bound:
 *
 * - led (`leadDepartment0…`, `leadCalendar0…`): one ordered scan per department (or per
 *   calendar) of the selection, of an index that leads with it (migration 0019), merged in
 *   page order as the leave page merges its span classes; the other list, if any, tests
 *   each row's own column. A page then reads about as many rows as an unrestricted one.
 * - checked (`selectedOf`): the page's own scan of its own index, each row's employee
 *   checked with one seek in a covering index (migration 0016). For a list too long to
 *   scan value by value (more than MAX_LEAD_VALUES), whose selection is then most likely a
 *   large part of the organisation, and for an empty list, which selects no one.
 */
import { sql, type Expression, type Kysely } from "kysely";
import type { EmployeeSelection } from "../../lib/restriction.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Slots } from "./compiled-queries.ts";
import type { Tables } from "./tables.ts";

/** The longest list a page scans value by value: each value is an arm of the merge (a seek, and a level of comparison a row). */
export const MAX_LEAD_VALUES = 16;

/** The values a page binds for a selection; none for an unrestricted client, so its statement is the one it always was. */
export interface SelectionValues {
  /** The organisation, bound when each row's employee is checked (the selection not led). */
  selectedOf: string | undefined;
  /** The selection's lists as JSON arrays, absent where it takes any, and absent for the list that leads. */
  selectedDepartments: string | undefined;
  selectedCalendars: string | undefined;
  /** The departments (or calendars) of the selection, one arm each, when it is led by them. */
  [lead: `leadDepartment${number}`]: string | undefined;
  [lead: `leadCalendar${number}`]: string | undefined;
}

/**
 * The members of a JSON array of text bound as `list`, as a set to test a column against.
 * On Postgres the parameter is cast to text first: a parameter whose type the server infers
 * as jsonb is JSON-encoded again by Bun.SQL (a string, so "cannot extract elements from a
 * scalar"), while one inferred as text is sent as it is by both drivers.
 */
function jsonTexts(caps: SqlCapabilities, list: Expression<string>) {
  return caps.dialect === "postgres"
    ? sql<string>`(select jsonb_array_elements_text(cast(cast(${list} as text) as jsonb)))`
    : sql<string>`(select value from json_each(${list}))`;
}

/** `exists` an employee of the organisation, of id `employeeId` (a column of the scanned row), that the selection selects. */
export function isSelected(
  db: Kysely<Tables>,
  caps: SqlCapabilities,
  organisationId: Expression<string>,
  employeeId: string,
  s: Pick<Slots<SelectionValues>, "selectedDepartments" | "selectedCalendars">,
) {
  let selected = db
    .selectFrom("employees as chosen")
    .select(sql.lit(1).as("one"))
    .where("chosen.organisation_id", "=", organisationId)
    .where("chosen.id", "=", sql.ref<string>(employeeId))
    .where("chosen.deleted_at", "is", null);
  if (s.selectedDepartments) selected = selected.where("chosen.department", "in", jsonTexts(caps, s.selectedDepartments));
  if (s.selectedCalendars) selected = selected.where("chosen.holiday_calendar", "in", jsonTexts(caps, s.selectedCalendars));
  // The builder writes its own parentheses.
  return sql<boolean>`exists ${selected}`;
}

/** One arm of a led page: the column it leads with and the value it scans. */
export interface LeadArm {
  column: "department" | "holiday_calendar";
  value: Expression<string>;
}

/** The arms of a led page, from the slots bound; none when the selection is checked (or there is none). */
export function leadArms(s: Slots<SelectionValues>): LeadArm[] {
  const arms: LeadArm[] = [];
  for (let i = 0; i < MAX_LEAD_VALUES; i++) {
    const department = s[`leadDepartment${i}`];
    const calendar = s[`leadCalendar${i}`];
    if (department) arms.push({ column: "department", value: department });
    if (calendar) arms.push({ column: "holiday_calendar", value: calendar });
  }
  return arms;
}

/** In a led arm, the list that does not lead, tested on the row's own `department` and `holiday_calendar` of `alias`. */
export function otherListOf(caps: SqlCapabilities, alias: string, s: Pick<Slots<SelectionValues>, "selectedDepartments" | "selectedCalendars">) {
  const tests: Expression<boolean>[] = [];
  if (s.selectedDepartments) tests.push(sql<boolean>`${sql.ref(`${alias}.department`)} in ${jsonTexts(caps, s.selectedDepartments)}`);
  if (s.selectedCalendars) tests.push(sql<boolean>`${sql.ref(`${alias}.holiday_calendar`)} in ${jsonTexts(caps, s.selectedCalendars)}`);
  return tests;
}

/**
 * A selection as the values a page binds for `organisationId`: led by its shorter list
 * when `led` (the page has an index that leads with its lists) and that list holds 1 to
 * MAX_LEAD_VALUES values; otherwise checked row by row. Nothing for no selection.
 */
export function selectionValues(organisationId: string, selection: EmployeeSelection | undefined, led: boolean): SelectionValues {
  const none: SelectionValues = { selectedOf: undefined, selectedDepartments: undefined, selectedCalendars: undefined };
  if (!selection) return none;
  const list = (values: readonly string[] | null) => (values ? JSON.stringify(values) : undefined);
  const unique = (values: readonly string[] | null) => (values ? [...new Set(values)] : null);
  const departments = unique(selection.departments);
  const calendars = unique(selection.calendars);
  const leadable = (values: readonly string[] | null): values is readonly string[] => values !== null && values.length >= 1 && values.length <= MAX_LEAD_VALUES;
  const byDepartments = leadable(departments) && (calendars === null || departments.length <= calendars.length || !leadable(calendars));
  const byCalendars = !byDepartments && leadable(calendars);
  if (!led || (!byDepartments && !byCalendars)) {
    return { ...none, selectedOf: organisationId, selectedDepartments: list(departments), selectedCalendars: list(calendars) };
  }
  const values: SelectionValues = {
    ...none,
    selectedDepartments: byDepartments ? undefined : list(departments),
    selectedCalendars: byCalendars ? undefined : list(calendars),
  };
  (byDepartments ? departments! : calendars!).forEach((value, i) => {
    if (byDepartments) values[`leadDepartment${i}`] = value;
    else values[`leadCalendar${i}`] = value;
  });
  return values;
}
