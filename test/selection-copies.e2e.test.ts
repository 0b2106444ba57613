/**
 * The copies of restricted selections' bookings (adapters/sql/selection-copies.ts) through
 * the real command line, on SQLite and Postgres: none and no triggers until a credential
 * selects employees; then, through imports that move people between departments and
 * calendars, change and delete bookings and delete people, each copy holds exactly what a
 * fresh copy of its selection would; and when the last such credential goes, so do the
 * copies and the triggers, so that imports pay nothing again.
 */
import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { join } from "node:path";
import { copyColumns, selectedBy, spanClassOf } from "../adapters/sql/selection-copy-triggers.ts";
import { runJson, scratchDir } from "./cli-harness.ts";
import { onBothStores } from "./sync-harness.ts";

type Row = Record<string, unknown>;

/** Runs a read-only statement on the store `dbArgs` names. */
async function query(dbArgs: string[], text: string): Promise<Row[]> {
  if (dbArgs[0] === "--db") {
    const db = new Database(dbArgs[1]!, { readonly: true });
    try {
      return db.query(text).all() as Row[];
    } finally {
      db.close();
    }
  }
  const pg = new Bun.SQL(dbArgs[1]!);
  try {
    return (await pg.unsafe(text)) as Row[];
  } finally {
    await pg.close();
  }
}

/** Rows of each copy that a fresh copy would not hold, and rows a fresh copy would hold that the copy lacks. */
async function copyDifferences(dbArgs: string[]): Promise<number> {
  const caps = { dialect: dbArgs[0] === "--db" ? "sqlite" : "postgres" } as const;
  const fresh = `select s.id as selection_id, ${copyColumns(spanClassOf(caps as never, "b"), "b")}
    from restricted_selections s join leave_bookings b on b.organisation_id = s.organisation_id
    join employees e on e.organisation_id = b.organisation_id and e.id = b.employee_id
    where b.deleted_at is null and e.deleted_at is null and ${selectedBy(caps as never, "s", "e")}`;
  const kept = "select selection_id, span_class, start_date, id, end_date, employee_id, leave_type_id, status, updated_at, rendered from selection_bookings";
  const [extra] = await query(dbArgs, `select count(*) as n from (${kept} except ${fresh}) x`);
  const [missing] = await query(dbArgs, `select count(*) as n from (${fresh} except ${kept}) x`);
  return Number(extra!.n) + Number(missing!.n);
}

async function triggers(dbArgs: string[]): Promise<number> {
  const text =
    dbArgs[0] === "--db"
      ? `select count(*) as n from sqlite_master where type = 'trigger' and name like 'selection_copy_%'`
      : `select count(*) as n from pg_trigger where tgname like 'selection_copy_%' and tgrelid::regclass::text in ('leave_bookings', 'employees')`;
  return Number((await query(dbArgs, text))[0]!.n);
}

const copied = async (dbArgs: string[]) => Number((await query(dbArgs, "select count(*) as n from selection_bookings"))[0]!.n);

const DEPARTMENTS = ["Sales", "Ops", "Legal"];
const CALENDARS = ["GB-ENG", "DE-BY", "FR"];

function employeesFile(round: number, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    // Each round moves some people: the department and calendar turn with the round.
    const turn = i % 3 === 0 ? round : 0;
    lines.push(
      JSON.stringify({
        external_id: `E${i}`,
        first_name: `First${i}`,
        last_name: `Last${i}`,
        department: i % 7 === 0 ? null : DEPARTMENTS[(i + turn) % 3],
        status: "active",
        holiday_calendar: CALENDARS[(i + 2 * turn) % 3],
      }),
    );
  }
  return lines.join("\n");
}

function leaveFile(round: number, count: number, people: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    if ((i + round) % 11 === 0) continue; // left out: deleted by --prune
    const start = new Date(Date.UTC(2025, 0, 1 + ((i * 5) % 300)));
    const days = i % 5 === 0 ? (i + round) % 20 : 0; // some change their span, so their span class
    const iso = (d: Date) => d.toISOString().slice(0, 10);
    lines.push(
      JSON.stringify({
        external_id: `L${i}`,
        employee_external_id: `E${(i * 7) % people}`,
        leave_type: { name: "Annual leave", category: "annual", is_paid: true },
        start_date: iso(start),
        end_date: iso(new Date(start.getTime() + days * 86_400_000)),
        status: (i + round) % 4 === 0 ? "cancelled" : "approved",
      }),
    );
  }
  return lines.join("\n");
}

async function proveCopiesStayExact(_label: string, db: string[]): Promise<void> {
  const scratch = scratchDir();
  try {
    const org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Copies"])).id;
    const other = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Other"])).id;
    const importRound = async (round: number, people: number) => {
      const employees = join(scratch.dir, `employees-${round}.jsonl`);
      const leave = join(scratch.dir, `leave-${round}.jsonl`);
      await Bun.write(employees, employeesFile(round, people));
      await Bun.write(leave, leaveFile(round, 400, people));
      await runJson([...db, "import", "--org", org, "--kind", "employees", "--prune", "--prune-max", "100", employees]);
      await runJson([...db, "import", "--org", org, "--kind", "leave", "--prune", "--range", "2025-01-01,2025-12-31", "--prune-max", "100", leave]);
    };
    await importRound(0, 60);
    // No credential selects anyone: nothing is copied and no trigger runs on import.
    await runJson([...db, "credentials", "create", "--org", org, "--fields", "first_name"]);
    expect({ copied: await copied(db), triggers: await triggers(db) }).toEqual({ copied: 0, triggers: 0 });

    const credential = (organisationId: string, ...flags: string[]) =>
      runJson<{ client_id: string }>([...db, "credentials", "create", "--org", organisationId, ...flags]);
    const sales = await credential(org, "--departments", "Sales");
    const calendars = await credential(org, "--calendars", "GB-ENG,DE-BY", "--departments", "Ops,Sales");
    // The same selection in another order shares the copy; another organisation's has its own.
    const twin = await credential(org, "--calendars", "DE-BY,GB-ENG", "--departments", "Sales,Ops");
    await credential(other, "--departments", "Sales");
    expect(Number((await query(db, "select count(*) as n from restricted_selections"))[0]!.n)).toBe(3);
    expect(await copied(db)).toBeGreaterThan(0);
    expect(await copyDifferences(db)).toBe(0);

    // Imports that move people, change, delete and add bookings, and drop people (the last round has fewer).
    for (const [round, people] of [
      [1, 60],
      [2, 60],
      [3, 45],
    ] as const) {
      await importRound(round, people);
      expect({ round, differences: await copyDifferences(db) }).toEqual({ round, differences: 0 });
    }

    // A restriction changed is a new selection's copy; the old one goes when nobody holds it.
    await runJson([...db, "credentials", "restrict", sales.client_id, "--departments", "Legal"]);
    expect(await copyDifferences(db)).toBe(0);
    await runJson([...db, "credentials", "revoke", calendars.client_id]);
    expect(Number((await query(db, "select count(*) as n from restricted_selections"))[0]!.n)).toBe(3);
    await runJson([...db, "credentials", "revoke", twin.client_id]);
    await runJson([...db, "credentials", "restrict", sales.client_id, "--clear"]);
    expect(Number((await query(db, "select count(*) as n from restricted_selections"))[0]!.n)).toBe(1);
    expect(await triggers(db)).toBe(4);
    // The last selection goes with its organisation, and the triggers with it.
    await runJson([...db, "org", "delete", other, "--yes"]);
    expect({ copied: await copied(db), triggers: await triggers(db) }).toEqual({ copied: 0, triggers: 0 });
  } finally {
    scratch.dispose();
  }
}

onBothStores("restricted selections' copies of bookings", "selection_copies", proveCopiesStayExact, 240_000);
