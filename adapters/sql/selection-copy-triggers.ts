/**
 * The triggers that keep the selections' copies of bookings (selection-copies.ts) as the
 * bookings and employees they copy change, whatever writes them (an import, an erasure, a
 * sweep of tombstones). They exist only while some copy does.
 *
 * - SQLite: row triggers whose `when` looks the row's organisation up among the selections'
 *   (one seek), so a write to an organisation without a selection does nothing more.
 * - Postgres: statement triggers over the statement's rows (transition tables), joined
 *   with the selections once a statement: a row trigger would call its function for every
 *   row of every organisation.
 *
 * A booking's copy is taken out by its old key and written again from its new row; an
 * employee whose department, calendar or deletion changed has every booking's copy taken
 * out and written again for the selections that now select them.
 */
import type { SqlCapabilities } from "./capabilities.ts";
import { spanClassExpression } from "./leave-page/leave-span-classes.ts";

/** The columns a copy holds, from a booking row `b` (its span class from `spanClass`). */
export function copyColumns(spanClass: string, b: string): string {
  return `${spanClass}, ${b}.start_date, ${b}.id, ${b}.end_date, ${b}.employee_id, ${b}.leave_type_id, ${b}.status, ${b}.updated_at, ${b}.rendered`;
}

/** The span class expression of the page index (leave-page/leave-span-classes.ts) on the columns of `alias`. */
export function spanClassOf(caps: SqlCapabilities, alias: string): string {
  return spanClassExpression(caps).replace(/\b(start_date|end_date)\b/g, `${alias}.$1`);
}

const COPY_COLUMNS = "selection_id, span_class, start_date, id, end_date, employee_id, leave_type_id, status, updated_at, rendered";

/** Whether the selection `s` selects the employee `e` (a row of employees, or a trigger's). */
export function selectedBy(caps: SqlCapabilities, s: string, e: string): string {
  const members = (list: string) =>
    caps.dialect === "postgres" ? `(select jsonb_array_elements_text(cast(${list} as jsonb)))` : `(select value from json_each(${list}))`;
  return `(${s}.departments is null or ${e}.department in ${members(`${s}.departments`)})
    and (${s}.calendars is null or ${e}.holiday_calendar in ${members(`${s}.calendars`)})`;
}

const SQLITE_TRIGGERS = ["selection_copy_booking_insert", "selection_copy_booking_update", "selection_copy_booking_delete", "selection_copy_employee_update"];
const PG_TRIGGERS: [name: string, table: string][] = [
  ["selection_copy_booking_insert", "leave_bookings"],
  ["selection_copy_booking_update", "leave_bookings"],
  ["selection_copy_booking_delete", "leave_bookings"],
  ["selection_copy_employee_update", "employees"],
];

/** The statements that drop the triggers (and, on Postgres, their functions), where they exist. */
export function dropCopyTriggers(caps: SqlCapabilities): string[] {
  if (caps.dialect === "sqlite") return SQLITE_TRIGGERS.map((name) => `drop trigger if exists "${name}"`);
  return PG_TRIGGERS.flatMap(([name, table]) => [`drop trigger if exists "${name}" on "${table}"`, `drop function if exists "${name}"()`]);
}

/** Writes the copies of booking `b` (a row of leave_bookings, or a trigger's) for the selections that select its employee. */
function insertCopies(caps: SqlCapabilities, from: string, b: string): string {
  const conflict = caps.dialect === "postgres" ? " on conflict do nothing" : "";
  return `insert ${caps.dialect === "sqlite" ? "or replace " : ""}into selection_bookings (${COPY_COLUMNS})
    select s.id, ${copyColumns(spanClassOf(caps, b), b)} ${from}
    join restricted_selections s on s.organisation_id = ${b}.organisation_id
    join employees e on e.organisation_id = ${b}.organisation_id and e.id = ${b}.employee_id
    where ${b}.deleted_at is null and e.deleted_at is null and ${selectedBy(caps, "s", "e")}${conflict}`;
}

function sqliteTriggers(caps: SqlCapabilities): string[] {
  const restricts = (row: string) => `exists (select 1 from restricted_selections where organisation_id = ${row}.organisation_id)`;
  const insertNew = `${insertCopies(caps, "from (select 1)", "new")};`;
  const deleteOld = `delete from selection_bookings where selection_id in (select id from restricted_selections where organisation_id = old.organisation_id)
      and span_class = ${spanClassOf(caps, "old")} and start_date = old.start_date and id = old.id;`;
  const moved = `(old.department is not new.department or old.holiday_calendar is not new.holiday_calendar or old.deleted_at is not new.deleted_at)`;
  return [
    `create trigger "selection_copy_booking_insert" after insert on leave_bookings when ${restricts("new")} begin ${insertNew} end`,
    `create trigger "selection_copy_booking_update" after update on leave_bookings when ${restricts("new")} or ${restricts("old")}
      begin ${deleteOld} ${insertNew} end`,
    `create trigger "selection_copy_booking_delete" after delete on leave_bookings when ${restricts("old")} begin ${deleteOld} end`,
    `create trigger "selection_copy_employee_update" after update of department, holiday_calendar, deleted_at on employees
      when ${restricts("new")} and ${moved}
      begin
        delete from selection_bookings where selection_id in (select id from restricted_selections where organisation_id = new.organisation_id)
          and (span_class, start_date, id) in (select ${spanClassOf(caps, "b")}, b.start_date, b.id from leave_bookings b
            where b.organisation_id = new.organisation_id and b.employee_id = new.id);
        ${insertCopies(caps, "from leave_bookings b", "b").replace("where b.deleted_at", "where b.organisation_id = new.organisation_id and b.employee_id = new.id and b.deleted_at")};
      end`,
  ];
}

function postgresTriggers(caps: SqlCapabilities): string[] {
  const deleteOf = (rows: string) => `delete from selection_bookings c using ${rows} o join restricted_selections s on s.organisation_id = o.organisation_id
      where c.selection_id = s.id and c.span_class = ${spanClassOf(caps, "o")} and c.start_date = o.start_date and c.id = o.id;`;
  const insertOf = (rows: string) => `${insertCopies(caps, `from ${rows} n`, "n")};`;
  const moved = `from new_rows n join old_rows o on o.organisation_id = n.organisation_id and o.id = n.id
      join leave_bookings b on b.organisation_id = n.organisation_id and b.employee_id = n.id
      where (o.department is distinct from n.department or o.holiday_calendar is distinct from n.holiday_calendar
        or o.deleted_at is distinct from n.deleted_at)`;
  const bodies: Record<string, string> = {
    selection_copy_booking_insert: insertOf("new_rows"),
    selection_copy_booking_update: `${deleteOf("old_rows")} ${insertOf("new_rows")}`,
    selection_copy_booking_delete: deleteOf("old_rows"),
    selection_copy_employee_update: `delete from selection_bookings c using restricted_selections s, (select b.organisation_id, b.start_date, b.end_date, b.id ${moved}) b
        where s.organisation_id = b.organisation_id and c.selection_id = s.id and c.span_class = ${spanClassOf(caps, "b")}
          and c.start_date = b.start_date and c.id = b.id;
      ${insertCopies(caps, `from (select b.* ${moved}) b`, "b")};`,
  };
  const transitions: Record<string, string> = {
    selection_copy_booking_insert: "after insert on leave_bookings referencing new table as new_rows",
    selection_copy_booking_update: "after update on leave_bookings referencing old table as old_rows new table as new_rows",
    selection_copy_booking_delete: "after delete on leave_bookings referencing old table as old_rows",
    selection_copy_employee_update: "after update on employees referencing old table as old_rows new table as new_rows",
  };
  return PG_TRIGGERS.flatMap(([name]) => [
    `create function "${name}"() returns trigger language plpgsql set search_path from current as $body$ begin ${bodies[name]} return null; end $body$`,
    `create trigger "${name}" ${transitions[name]} for each statement execute function "${name}"()`,
  ]);
}

/** The statements that make the triggers (run after dropCopyTriggers). */
export function copyTriggers(caps: SqlCapabilities): string[] {
  return caps.dialect === "sqlite" ? sqliteTriggers(caps) : postgresTriggers(caps);
}
