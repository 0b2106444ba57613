/**
 * Restricted credentials (docs/api.md, "Restricted credentials"): a credential limited to
 * the employees of some departments and/or holiday calendars, and to some employee fields,
 * so that a tool for one department receives that department and no more (data
 * minimisation). What a restriction is, how the command line states it, whom it selects
 * and what it leaves of an employee's JSON.
 */
import type { EmployeeJson } from "./api-schemas.ts";
import { CALENDAR_KEY_PATTERN } from "./public-holidays.ts";
import { apiKeys, EMPLOYEE_FIELDS } from "./record-fields.ts";

/** The employee fields a client reads; `id` and `updated_at` always. */
export type EmployeeFieldName = keyof EmployeeJson;

/** Fields every restricted client reads whatever `fields` says: without them it could not page or sync. */
export const ALWAYS_READ_FIELDS: readonly EmployeeFieldName[] = ["id", "updated_at"];

/** The employee fields a restriction may name, in the API's order. */
export const RESTRICTABLE_FIELDS = apiKeys(EMPLOYEE_FIELDS) as EmployeeFieldName[];

/** Which employees a restricted client reads: those whose department and calendar are in the lists given (null: any). */
export interface EmployeeSelection {
  departments: readonly string[] | null;
  calendars: readonly string[] | null;
}

/** A credential's restriction, as a store keeps it and a grant carries it. */
export interface CredentialRestriction extends EmployeeSelection {
  /** The employee fields the client reads (`id` and `updated_at` among them); null: every field. */
  fields: readonly EmployeeFieldName[] | null;
  /**
   * When the restriction was last changed: syncs from before it answer 410 `sync_expired`
   * and cursors from before it are refused, since what they were made under has changed.
   * 0 for one that has held since the credential was made, under which every sync was.
   */
  set_at: number;
}

/** The longest department name an import takes (docs/cli.md, "The import format"). */
const MAX_TEXT = 255;

/** What a list flag of the command line holds: comma-separated, each item trimmed, none empty, no repeats. */
function listOf(flag: string, text: string): string[] {
  const items = text.split(",").map((s) => s.trim());
  if (items.some((s) => s === "")) throw new Error(`${flag} takes a comma-separated list with no empty item; got '${text}'`);
  return [...new Set(items)];
}

/** The restriction's lists as the command line gives them (`--departments`, `--calendars`, `--fields`); throws an Error naming the flag and the bad value. */
export function parseRestriction(given: { departments?: string; calendars?: string; fields?: string }, now: number): CredentialRestriction {
  const departments = given.departments === undefined ? null : listOf("--departments", given.departments);
  const tooLong = departments?.find((d) => d.length > MAX_TEXT);
  if (tooLong !== undefined) throw new Error(`--departments: '${tooLong.slice(0, 40)}…' is longer than ${MAX_TEXT} characters, which no department can be`);
  const calendars = given.calendars === undefined ? null : listOf("--calendars", given.calendars);
  const badKey = calendars?.find((c) => !CALENDAR_KEY_PATTERN.test(c));
  if (badKey !== undefined)
    throw new Error(`--calendars: '${badKey}' is not a calendar key; keys are a country code such as GB, or country and region such as GB-ENG`);
  let fields: EmployeeFieldName[] | null = null;
  if (given.fields !== undefined) {
    const named = listOf("--fields", given.fields);
    const unknown = named.find((f) => !(RESTRICTABLE_FIELDS as string[]).includes(f));
    if (unknown !== undefined) throw new Error(`--fields: '${unknown}' is not an employee field; the fields are ${RESTRICTABLE_FIELDS.join(", ")}`);
    fields = RESTRICTABLE_FIELDS.filter((f) => ALWAYS_READ_FIELDS.includes(f) || named.includes(f));
  }
  if (departments === null && calendars === null && fields === null) {
    throw new Error("a restriction needs --departments, --calendars or --fields (or --clear to remove one)");
  }
  return { departments, calendars, fields, set_at: now };
}

/** A restriction that restricts nothing, set at `now`: what clearing one leaves, so that syncs from before it still start afresh. */
export function clearedRestriction(now: number): CredentialRestriction {
  return { departments: null, calendars: null, fields: null, set_at: now };
}

/** Whether an employee of this department and calendar is within the selection. */
export function selects(selection: EmployeeSelection, employee: { department: string | null; holiday_calendar: string | null }): boolean {
  const { departments, calendars } = selection;
  if (departments !== null && (employee.department === null || !departments.includes(employee.department))) return false;
  if (calendars !== null && (employee.holiday_calendar === null || !calendars.includes(employee.holiday_calendar))) return false;
  return true;
}

/** Whether the selection leaves anyone out: a restriction of fields alone selects everyone. */
export function selectsSome(selection: EmployeeSelection): boolean {
  return selection.departments !== null || selection.calendars !== null;
}

/** Whether the client may read `field` of an employee. */
export function readsField(restriction: Pick<CredentialRestriction, "fields"> | undefined, field: EmployeeFieldName): boolean {
  return !restriction?.fields || restriction.fields.includes(field);
}

/** The employee's JSON with every field the client may not read as null (docs/api.md, "Restricted credentials"). */
export function restrictedEmployeeJson(restriction: Pick<CredentialRestriction, "fields">, employee: EmployeeJson): EmployeeJson {
  const { fields } = restriction;
  if (fields === null) return employee;
  const out: Record<string, unknown> = {};
  for (const key of RESTRICTABLE_FIELDS) out[key] = fields.includes(key) ? employee[key] : null;
  return out as unknown as EmployeeJson;
}

/** The restriction as one line of `credentials list`: what it selects and reads. */
export function describeRestriction(restriction: CredentialRestriction | undefined): string {
  if (!restriction) return "unrestricted";
  if (!selectsSome(restriction) && restriction.fields === null) return `unrestricted (restriction cleared ${new Date(restriction.set_at).toISOString()})`;
  const parts: string[] = [];
  if (restriction.departments) parts.push(`departments ${restriction.departments.join(",")}`);
  if (restriction.calendars) parts.push(`calendars ${restriction.calendars.join(",")}`);
  if (restriction.fields) parts.push(`fields ${restriction.fields.join(",")}`);
  return `restricted to ${parts.join("; ")}`;
}

/** The restriction as `credentials list --json` and `credentials restrict --json` show it; null when there is none. */
export function restrictionJson(restriction: CredentialRestriction | undefined) {
  if (!restriction) return null;
  return {
    departments: restriction.departments,
    calendars: restriction.calendars,
    fields: restriction.fields,
    set_at: restriction.set_at === 0 ? null : new Date(restriction.set_at).toISOString(),
  };
}

/** The restriction as one text column keeps it (lists as JSON), and back. */
export function encodeRestrictionLists(r: CredentialRestriction): { departments: string | null; calendars: string | null; fields: string | null } {
  const json = (list: readonly string[] | null) => (list === null ? null : JSON.stringify(list));
  return { departments: json(r.departments), calendars: json(r.calendars), fields: json(r.fields) };
}

export function decodeRestrictionLists(row: {
  departments: string | null;
  calendars: string | null;
  fields: string | null;
  set_at: number;
}): CredentialRestriction {
  const list = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]));
  return { departments: list(row.departments), calendars: list(row.calendars), fields: list(row.fields) as EmployeeFieldName[] | null, set_at: row.set_at };
}
