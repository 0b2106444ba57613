/**
 * Whether a row's employee is one a restricted client selects, as SQL (lib/store.ts,
 * `RestrictedReads`): live, with department and calendar in the JSON arrays bound as
 * `selectedDepartments` and `selectedCalendars` (where each is bound). A page tests each
 * row it scans with one seek in a covering index (migration 0016), so the page keeps its
 * own ordered scan of its own index, and no set of the selected employees is built: a
 * set was built again in each span class's arm of the leave page, and cost more than the
 * page (bench/restricted-page-time.ts).
 */
import { sql, type Expression, type Kysely } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";

/** The lists of a selection as a page's values bind them: JSON arrays, absent where the selection takes any. */
export interface SelectionValues {
  selectedDepartments: string | undefined;
  selectedCalendars: string | undefined;
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
  s: { [K in keyof SelectionValues]: Expression<string> | undefined },
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

/** A selection's lists as the values a page binds. */
export function selectionValues(selection: { departments: readonly string[] | null; calendars: readonly string[] | null } | undefined): SelectionValues {
  const list = (values: readonly string[] | null | undefined) => (values ? JSON.stringify(values) : undefined);
  return { selectedDepartments: list(selection?.departments), selectedCalendars: list(selection?.calendars) };
}
