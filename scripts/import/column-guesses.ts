/**
 * The field another system's column most likely holds, for the first message an import
 * gives (DECISIONS §11, "Messages for the person importing"): `Vorname` is first_name,
 * `Hire Date` is start_date. A header's unknown columns are told with the `"columns"` a
 * map would need, and read as those fields for the rest of that (failing) run, so that
 * the values in them are checked in the same run, not in the next one.
 *
 * A guess is only ever a suggestion: the unknown columns are still a problem, so nothing
 * is written on a guess; the person confirms it by writing it in their map.
 */
import type { ImportKind } from "./normalise-records.ts";
import { suggestField } from "./field-rules.ts";

/**
 * Header names of common HR exports (Personio, BambooHR, HiBob, DATEV, Excel by hand),
 * compared as letters and digits only, lower-case: `Employee #` is `employee`.
 */
const NAMES: Record<ImportKind, Record<string, string>> = {
  employees: {
    personalnummer: "external_id",
    mitarbeiternummer: "external_id",
    employee: "external_id",
    employeeid: "external_id",
    employeenumber: "external_id",
    employeeno: "external_id",
    vorname: "first_name",
    firstname: "first_name",
    givenname: "first_name",
    nachname: "last_name",
    lastname: "last_name",
    surname: "last_name",
    familyname: "last_name",
    rufname: "preferred_name",
    preferredname: "preferred_name",
    nickname: "preferred_name",
    position: "job_title",
    jobtitle: "job_title",
    title: "job_title",
    stellenbezeichnung: "job_title",
    abteilung: "department",
    department: "department",
    team: "department",
    status: "status",
    employmentstatus: "status",
    eintrittsdatum: "start_date",
    hiredate: "start_date",
    startdate: "start_date",
    austrittsdatum: "leaving_date",
    terminationdate: "leaving_date",
    enddate: "leaving_date",
    leavingdate: "leaving_date",
    feiertagskalender: "holiday_calendar",
  },
  leave: {
    requestid: "external_id",
    antragsid: "external_id",
    abwesenheitsid: "external_id",
    employeeid: "employee_external_id",
    employeenumber: "employee_external_id",
    personalnummer: "employee_external_id",
    mitarbeiternummer: "employee_external_id",
    timeofftype: "leave_type_name",
    leavetype: "leave_type_name",
    abwesenheitstyp: "leave_type_name",
    abwesenheitsart: "leave_type_name",
    type: "leave_type_name",
    startdate: "start_date",
    von: "start_date",
    startdatum: "start_date",
    beginn: "start_date",
    enddate: "end_date",
    bis: "end_date",
    enddatum: "end_date",
    ende: "end_date",
    amountdays: "days",
    days: "days",
    tage: "days",
    status: "status",
  },
  holidays: {
    datum: "date",
    bezeichnung: "name",
    holiday: "name",
    feiertag: "name",
  },
};

const squeeze = (name: string) => name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** The field `column` most likely holds, of `fields`; null when no guess is a good one. */
export function guessField(kind: ImportKind, column: string, fields: readonly string[]): string | null {
  if (column.length > 40) return null;
  const name = squeeze(column);
  const known = NAMES[kind][name];
  if (known !== undefined && fields.includes(known)) return known;
  // A field written as words (`First Name`, `leave-type-name`), or nearly (`Frist_name`).
  const exact = fields.find((f) => squeeze(f) === name);
  if (exact !== undefined) return exact;
  if (name.length < 4) return null;
  const near = suggestField(name, fields.map(squeeze));
  return near === null ? null : fields.find((f) => squeeze(f) === near)!;
}

/**
 * The likely field of each of `unknown` (in their order), leaving out fields that another
 * column gives already (`given`) or that an earlier column was guessed for.
 */
export function guessColumns(kind: ImportKind, unknown: readonly string[], fields: readonly string[], given: readonly string[]): Map<string, string> {
  const taken = new Set(given);
  const guesses = new Map<string, string>();
  for (const column of unknown) {
    const field = guessField(kind, column, fields);
    if (field === null || taken.has(field) || field === "id" || field === "deleted" || field === "updated_at") continue;
    taken.add(field);
    guesses.set(column, field);
  }
  return guesses;
}
