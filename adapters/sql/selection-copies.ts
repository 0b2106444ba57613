/**
 * Copies of the leave page index for restricted credentials' selections (docs/api.md,
 * "Restricted credentials"), so that a restricted leave page reads about as many index
 * entries as an unrestricted one. A page of one department in eight, scanning the whole
 * organisation's page index, reads eight entries (each with its body) for every one it
 * keeps; measured, that made it 3–4× an unrestricted page whatever the check per entry
 * cost. So each distinct selection (organisation, departments, calendars) that some
 * credential holds gets a copy of its employees' live bookings, keyed as the page index
 * is (span class, start date, id) and holding what a page of text reads.
 *
 * Built only for organisations that restrict: the first credential with a selection
 * copies its bookings (once), and the last one to go drops them. The copies are kept by
 * triggers, which exist only while some selection does, so an installation that never
 * restricts a credential pays nothing on import; where one does, a write to an
 * organisation without one pays one lookup of its id (SQLite) or a join of the statement's
 * rows with that short list (Postgres) (selection-copy-triggers.ts).
 */
import { sql, type RawBuilder } from "kysely";
import { sha256Hex } from "../../lib/digest.ts";
import type { EmployeeSelection } from "../../lib/restriction.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { type AnyDb, type Dialect, run } from "./migration-steps.ts";
import { copyColumns, copyTriggers, dropCopyTriggers, selectedBy, spanClassOf } from "./selection-copy-triggers.ts";

/** Migration 0020: the selections and their copies, empty; the triggers come with the first selection. */
export const SELECTION_COPY_TABLES: Record<Dialect, readonly string[]> = {
  sqlite: [
    `create table "restricted_selections" ("id" integer primary key, "organisation_id" text not null, "departments" text, "calendars" text)`,
    `create index "restricted_selections_by_org" on "restricted_selections" ("organisation_id")`,
    // Without rowid, so the rows are stored in page order, each with its body, as the page index is.
    `create table "selection_bookings" ("selection_id" integer not null, "span_class" integer not null, "start_date" text not null,
      "id" text not null, "end_date" text not null, "employee_id" text not null, "leave_type_id" text not null, "status" text not null,
      "updated_at" bigint not null, "rendered" text, primary key ("selection_id", "span_class", "start_date", "id")) without rowid`,
  ],
  postgres: [
    `create table "restricted_selections" ("id" bigint primary key, "organisation_id" text not null, "departments" text, "calendars" text)`,
    `create index "restricted_selections_by_org" on "restricted_selections" ("organisation_id")`,
    `create table "selection_bookings" ("selection_id" bigint not null, "span_class" integer not null, "start_date" date not null,
      "id" text not null, "end_date" date not null, "employee_id" text not null, "leave_type_id" text not null, "status" text not null,
      "updated_at" bigint not null, "rendered" text)`,
    // The key and what a page reads, in one index, so that a page is an index-only scan as
    // on leave_bookings_page, with no second index of the key to write.
    `create unique index "selection_bookings_page" on "selection_bookings" ("selection_id", "span_class", "start_date", "id")
      include ("end_date", "employee_id", "leave_type_id", "status", "updated_at", "rendered")`,
  ],
};

/** A selection's lists as a copy is keyed by: each sorted, so that the same lists in another order share a copy. */
export function canonicalSelection(selection: EmployeeSelection): { departments: string | null; calendars: string | null } {
  const list = (values: readonly string[] | null) => (values === null ? null : JSON.stringify([...new Set(values)].sort()));
  return { departments: list(selection.departments), calendars: list(selection.calendars) };
}

/**
 * The id of the copy of `selection` in the organisation: 48 bits of a digest of the
 * organisation and the canonical lists, so that a page names its copy without reading it.
 */
export function selectionCopyId(organisationId: string, selection: EmployeeSelection): number {
  const { departments, calendars } = canonicalSelection(selection);
  return Number.parseInt(sha256Hex(JSON.stringify([organisationId, departments, calendars])).slice(0, 12), 16);
}

/** Whether a selection leaves anyone out (a restriction of fields alone needs no copy). */
const selectsSome = (s: EmployeeSelection) => s.departments !== null || s.calendars !== null;

interface WantedCopy {
  id: number;
  organisation_id: string;
  departments: string | null;
  calendars: string | null;
}

/** The copies the credentials call for: one per distinct selection of an unrevoked client. */
async function wantedCopies(db: AnyDb): Promise<Map<number, WantedCopy>> {
  const rows = await db
    .selectFrom("client_restrictions as r")
    .innerJoin("api_clients as c", "c.client_id", "r.client_id")
    .select(["c.organisation_id", "r.departments", "r.calendars"])
    .where("c.revoked_at", "is", null)
    .where((eb) => eb.or([eb("r.departments", "is not", null), eb("r.calendars", "is not", null)]))
    .execute();
  const wanted = new Map<number, WantedCopy>();
  for (const row of rows as { organisation_id: string; departments: string | null; calendars: string | null }[]) {
    const selection: EmployeeSelection = {
      departments: row.departments === null ? null : (JSON.parse(row.departments) as string[]),
      calendars: row.calendars === null ? null : (JSON.parse(row.calendars) as string[]),
    };
    if (!selectsSome(selection)) continue;
    const id = selectionCopyId(row.organisation_id, selection);
    wanted.set(id, { id, organisation_id: row.organisation_id, ...canonicalSelection(selection) });
  }
  return wanted;
}

/** Employees a statement of a Postgres fill copies the bookings of: each statement must end within the store's statement timeout. */
const FILL_EMPLOYEES = 200;
/** Rows a statement of a Postgres drop of a copy deletes, for the same reason. */
const DROP_ROWS = 20_000;

/**
 * Copies the selection's employees' live bookings (a new copy). SQLite reads the
 * organisation's page index once, in order, which a measure on a million bookings found
 * twice as fast as each employee's bookings by their index. Postgres, whose statements
 * time out (adapters/postgres.ts, `statementTimeoutMs`), copies a few employees' bookings
 * a statement.
 */
async function fillCopy(db: AnyDb, caps: SqlCapabilities, copy: WantedCopy): Promise<void> {
  const insert = (from: string, where: RawBuilder<unknown> = sql``) =>
    sql`${sql.raw(`insert into selection_bookings (selection_id, span_class, start_date, id, end_date, employee_id, leave_type_id, status, updated_at, rendered)
      select s.id, ${copyColumns(spanClassOf(caps, "b"), "b")} ${from}
      where s.id = ${Number(copy.id)} and b.deleted_at is null and e.deleted_at is null and ${selectedBy(caps, "s", "e")}`)} ${where}`;
  if (caps.dialect === "sqlite") {
    await insert(`from restricted_selections s join leave_bookings b on b.organisation_id = s.organisation_id
      join employees e on e.organisation_id = b.organisation_id and e.id = b.employee_id`).execute(db);
    return;
  }
  const { rows } = await sql<{ id: string }>`select e.id from restricted_selections s join employees e on e.organisation_id = s.organisation_id
    where s.id = ${copy.id} and e.deleted_at is null and ${sql.raw(selectedBy(caps, "s", "e"))} order by e.id`.execute(db);
  for (let i = 0; i < rows.length; i += FILL_EMPLOYEES) {
    const ids = rows.slice(i, i + FILL_EMPLOYEES).map((r) => r.id);
    await insert(
      `from restricted_selections s join employees e on e.organisation_id = s.organisation_id
      join leave_bookings b on b.organisation_id = e.organisation_id and b.employee_id = e.id`,
      sql`and e.id in (${sql.join(ids)})`,
    ).execute(db);
  }
}

/** Deletes a copy's rows, a bounded number a statement on Postgres (as fillCopy). */
async function dropCopy(db: AnyDb, caps: SqlCapabilities, id: number): Promise<void> {
  if (caps.dialect === "sqlite") {
    await db.deleteFrom("selection_bookings").where("selection_id", "=", id).execute();
    return;
  }
  for (;;) {
    await sql`delete from selection_bookings where (selection_id, span_class, start_date, id) in
      (select selection_id, span_class, start_date, id from selection_bookings where selection_id = ${id} limit ${DROP_ROWS})`.execute(db);
    const { rows } = await sql`select 1 from selection_bookings where selection_id = ${id} limit 1`.execute(db);
    if (rows.length === 0) return;
  }
}

/**
 * Makes the copies match the credentials (after a client's restriction is written, a
 * client revoked, an organisation deleted, and by migration 0020): a copy for each
 * selection some unrevoked client holds, filled from the bookings; none for one no
 * client holds any longer; and the triggers that keep them while there is any. Runs in
 * the caller's transaction, so a credential never exists without its copy.
 */
export async function refreshSelectionCopies(db: AnyDb, caps: SqlCapabilities): Promise<void> {
  const wanted = await wantedCopies(db);
  const existing = (await db.selectFrom("restricted_selections").select("id").execute()) as { id: number | string }[];
  const have = new Set(existing.map((r) => Number(r.id)));
  for (const id of have) {
    if (wanted.has(id)) continue;
    await dropCopy(db, caps, id);
    await db.deleteFrom("restricted_selections").where("id", "=", id).execute();
  }
  // The triggers exist exactly while some copy does: made with the first, dropped with the last.
  if (wanted.size === 0) {
    if (have.size > 0) await run(dropCopyTriggers(caps))(db);
    return;
  }
  if (have.size === 0) await run([...dropCopyTriggers(caps), ...copyTriggers(caps)])(db);
  let toFill = [...wanted.values()].filter((copy) => !have.has(copy.id));
  // On Postgres an import committing while a copy is filled would be in neither: its
  // triggers cannot see the new selection, nor the fill its rows. So writers wait for
  // this transaction (reads go on), and so does another such refresh, which may have
  // made one of these copies meanwhile. SQLite has one writer at a time already.
  if (caps.dialect === "postgres" && toFill.length > 0) {
    await sql`lock table leave_bookings, employees in share row exclusive mode`.execute(db);
    const made = new Set((await db.selectFrom("restricted_selections").select("id").execute()).map((r: { id: number | string }) => Number(r.id)));
    toFill = toFill.filter((copy) => !made.has(copy.id));
  }
  for (const copy of toFill) {
    await db.insertInto("restricted_selections").values(copy).execute();
    await fillCopy(db, caps, copy);
  }
}

/**
 * The typed store's Kysely (or a transaction of it) as the untyped one the copies are
 * written with. Typed `object`, not `Kysely<T>`: Deno's checker cannot infer `T` from a
 * `Transaction<Tables>` (`fn.any`'s overloads do not unify).
 */
export const anyDb = (db: object): AnyDb => db as AnyDb;
