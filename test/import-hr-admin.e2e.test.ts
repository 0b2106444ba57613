/**
 * Issue 37, as an HR administrator meets it: two realistic exports made here, imported
 * through the real command line with only what docs/cli.md shows, each attempt's map
 * written from the previous attempt's messages alone. Every message met is asserted: it
 * names the column and the value, says what is allowed in words, and points to the map
 * key that fixes it. Then a changed re-export of each (absent columns keep their stored
 * values) and a --prune of each, whose dry run names who would go. On SQLite and on
 * Postgres alike.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";
import { queryDatabase, scratchDatabases } from "./pg-scratch.ts";
import { writeXlsx } from "./xlsx-files.ts";
import { importColumns } from "../scripts/import/normalise-records.ts";
import { PERSONIO_MAP } from "./hr-exports.ts";

// A dozen runs of the command line each, on a machine that may be busy.
setDefaultTimeout(120_000);

const scratch = scratchDir();
afterAll(() => scratch.dispose());
let count = 0;
const file = (name: string, content: string | Uint8Array) => {
  const path = join(scratch.dir, `${++count}-${name}`);
  writeFileSync(path, content);
  return path;
};
/** Windows-1252, as BambooHR's "Excel (Windows)" CSV saves it. */
const cp1252 = (text: string) => Uint8Array.from([...text].map((c) => ({ "’": 0x92, "–": 0x96, é: 0xe9, ü: 0xfc, ß: 0xdf })[c] ?? c.charCodeAt(0)));

const PERSONIO_COLUMNS = [
  "Personalnummer",
  "Vorname",
  "Nachname",
  "E-Mail",
  "Position",
  "Abteilung",
  "Standort",
  "Status",
  "Eintrittsdatum",
  "Austrittsdatum",
  "Wochenstunden",
];
const EMPLOYEE_FIELDS = importColumns("employees", true).join(", ");
const LEAVE_FIELDS = importColumns("leave", true).join(", ");
const BAMBOO_COLUMNS = "Request ID;Employee ID;Employee Name;Time Off Type;Start Date;End Date;Amount (days);Status;Comment";

/** Where the imports land: a SQLite file, or a Postgres database of its own; `rows` reads a table back as the other store would give it. */
interface Target {
  args: string[];
  rows(table: string, columns: string[], org: string): Promise<unknown[]>;
}

const live = (table: string, columns: string[]) =>
  `select ${columns.join(", ")} from ${table} where organisation_id = $1 and deleted_at is null order by external_id`;

function sqliteTarget(): Target {
  const db = join(scratch.dir, `hr-${++count}.sqlite`);
  return {
    args: ["--db", db],
    async rows(table, columns, org) {
      const d = new Database(db, { readonly: true });
      try {
        return d.query(live(table, columns).replace("$1", "?")).all(org);
      } finally {
        d.close();
      }
    },
  };
}

const newDatabase = scratchDatabases("hr-admin");

async function postgresTarget(): Promise<Target> {
  const url = await newDatabase();
  // Dates as text and days as a number, as SQLite gives them.
  const cast = (c: string) => (c.endsWith("_date") ? `${c}::text as ${c}` : c === "days" ? `${c}::float8 as ${c}` : c);
  return { args: ["--database-url", url], rows: (table, columns, org) => queryDatabase(url, live(table, columns.map(cast)), [org]) };
}

describe.each([
  ["SQLite", async () => sqliteTarget()],
  ["Postgres", postgresTarget],
])("on %s", (_store, makeTarget) => {
  async function setup() {
    const target = await makeTarget();
    const org = (await runJson<{ id: string }>([...target.args, "org", "create", "--name", "Müller & Söhne GmbH"])).id;
    const importing = (...args: string[]) => runCli([...target.args, "import", "--org", org, ...args]);
    const rows = (table: string, columns: string) => target.rows(table, columns.split(", "), org);
    return { importing, rows };
  }

  /** The `"columns": {…}` a header's message gives for the columns of a likely field, read as the person would copy it. */
  const suggestedColumns = (message: string): Record<string, string | null> => JSON.parse(/"columns": (\{[^}]*\})/.exec(message)![1]!);

  /** The problem lines and the closing line of a failed import. */
  const problems = (result: { code: number; stderr: string }) => {
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    return { lines: lines.slice(0, -1), closing: lines.at(-1)! };
  };

  test("a Personio-like workbook: one dry run from the messages alone, then a working map, a re-export of fewer columns, and a prune", async () => {
    const { importing, rows } = await setup();
    const xlsx = file("personio-export.xlsx", new Uint8Array());
    await writeXlsx(xlsx, [
      {
        name: "Mitarbeiter",
        rows: [
          PERSONIO_COLUMNS,
          [3001, "Jürgen", "Weiß", "j.weiss@example.de", "Entwickler", "Technik", "München", "Aktiv", { date: 44652, format: "dd.mm.yyyy" }, null, 40],
          ["3002", "Anna", "Groß", "a.gross@example.de", "Leiterin Vertrieb", "Vertrieb", "Berlin", "Inaktiv", "15.01.2020", "31.03.2025", 20],
          ["3003", "Lena", "Fuchs", "l.fuchs@example.de", "Werkstudentin", "Technik", "München", "Onboarding", "01.12.2026", null, 20],
        ],
      },
    ]);

    // 1. A dry run without a map: ONE problem for the columns, giving the "columns" of their likely fields and how to leave the rest out;
    //    the columns of a likely field are read as it, so the values in them are checked in this same run.
    const first = problems(await importing("--kind", "employees", "--dry-run", xlsx));
    const statusWords =
      '; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": ';
    const dates = '; set the map\'s "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "DD.MM.YYYY"';
    expect(first.lines).toEqual([
      `${xlsx}:1: columns "Personalnummer", "Vorname", "Nachname", "E-Mail", "Position", "Abteilung", "Standort", "Status", "Eintrittsdatum", "Austrittsdatum" and 1 more map to no field of employees; they look like these fields (read so here, to check the values): "columns": {"Personalnummer": "external_id", "Vorname": "first_name", "Nachname": "last_name", "Position": "job_title", "Abteilung": "department", "Status": "status", "Eintrittsdatum": "start_date", "Austrittsdatum": "leaving_date"}; to leave the others ("E-Mail", "Standort", "Wochenstunden") out, set "ignore_unmapped": true in a --map file, or name each under "columns": {"E-Mail": null, "Standort": null, "Wochenstunden": null}; the fields are ${EMPLOYEE_FIELDS}`,
      `${xlsx}:2: status (column "Status"): "Aktiv" is not a status${statusWords}{"Aktiv": "aktiv"}} in a --map file`,
      `${xlsx}:3: status (column "Status"): "Inaktiv" is not a status${statusWords}{"Inaktiv": "inaktiv"}} in a --map file`,
      `${xlsx}:3: start_date (column "Eintrittsdatum"): must be a real date YYYY-MM-DD, not "15.01.2020"${dates}`,
      `${xlsx}:3: leaving_date (column "Austrittsdatum"): must be a real date YYYY-MM-DD, not "31.03.2025"${dates}`,
      `${xlsx}:4: status (column "Status"): "Onboarding" is not a status${statusWords}{"Onboarding": "onboarding"}} in a --map file`,
      `${xlsx}:4: start_date (column "Eintrittsdatum"): must be a real date YYYY-MM-DD, not "01.12.2026"${dates}`,
    ]);
    expect(first.closing).toBe(
      `leaveapi: import failed: 1 header problem and 6 problems in 3 rows; nothing was written; another system's columns can be mapped to these fields with --map FILE (docs/cli.md, "Other systems' exports")`,
    );

    // 2. A map of exactly what those messages say ("Inaktiv" and "Onboarding" are the admin's own words to choose): it passes, and lands.
    // The "columns" are copied from the first message as it gives them.
    const columns = suggestedColumns(first.lines[0]!);
    expect(columns).toEqual(PERSONIO_MAP.columns);
    const map = file(
      "personio-map.json",
      JSON.stringify({
        columns,
        ignore_unmapped: true,
        values: { status: { Aktiv: "active", Inaktiv: "terminated", Onboarding: "onboarding" } },
        dates: "DD.MM.YYYY",
      }),
    );
    const dry = await importing("--kind", "employees", "--dry-run", "--map", map, xlsx);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: "" });
    expect(dry.stdout).toStartWith("would import 3 rows of employees into Müller & Söhne GmbH: 3 created, 0 updated, 0 unchanged, 0 deleted\n");
    expect(dry.stdout).toContain('skipped columns: "E-Mail", "Standort", "Wochenstunden"');
    expect((await importing("--kind", "employees", "--map", map, xlsx)).code).toBe(0);
    expect(await rows("employees", "external_id, job_title, status, start_date, leaving_date")).toEqual([
      { external_id: "3001", job_title: "Entwickler", status: "active", start_date: "2022-04-01", leaving_date: null },
      { external_id: "3002", job_title: "Leiterin Vertrieb", status: "terminated", start_date: "2020-01-15", leaving_date: "2025-03-31" },
      { external_id: "3003", job_title: "Werkstudentin", status: "onboarding", start_date: "2026-12-01", leaving_date: null },
    ]);

    // A changed re-export of fewer columns (no Position, no dates): Lena starts; what the file does not carry is kept, and the dry run says so.
    const reexport = file("personio-export-2.xlsx", new Uint8Array());
    await writeXlsx(reexport, [
      {
        name: "Mitarbeiter",
        rows: [
          ["Personalnummer", "Vorname", "Nachname", "Abteilung", "Status", "E-Mail"],
          [3001, "Jürgen", "Weiß", "Technik", "Aktiv", "j.weiss@example.de"],
          [3003, "Lena", "Fuchs", "Technik", "Aktiv", "l.fuchs@example.de"],
        ],
      },
    ]);
    // Without Anna, a prune would delete one of three (34%): refused, saying what allows it.
    const refused = problems(await importing("--kind", "employees", "--map", map, "--prune", "--dry-run", reexport));
    expect(refused.lines).toEqual([
      `${reexport}: --prune would delete 1 of the 3 live employees (34%), those the file leaves out; it deletes at most 25% unless --prune-max allows more (--prune-max 34)`,
    ]);
    const pruneDry = await importing("--kind", "employees", "--map", map, "--prune", "--prune-max", "34", "--dry-run", reexport);
    expect(pruneDry.stderr).toBe("");
    expect(pruneDry.stdout).toStartWith(
      [
        "would import 2 rows of employees into Müller & Söhne GmbH: 0 created, 1 updated, 1 unchanged, 0 deleted, 1 pruned (absent from the file)",
        "would prune (absent from the file):",
        '  "3002"  Anna Groß',
        "not in the file, so they would keep their stored values: preferred_name, job_title, start_date, leaving_date, holiday_calendar (an empty cell or null clears a field)",
      ].join("\n"),
    );
    expect((await importing("--kind", "employees", "--map", map, "--prune", "--prune-max", "34", reexport)).stdout).toStartWith(
      "imported 2 rows of employees into Müller & Söhne GmbH: 0 created, 1 updated, 1 unchanged, 0 deleted, 1 pruned (absent from the file)",
    );
    expect(await rows("employees", "external_id, job_title, status, start_date")).toEqual([
      { external_id: "3001", job_title: "Entwickler", status: "active", start_date: "2022-04-01" },
      { external_id: "3003", job_title: "Werkstudentin", status: "active", start_date: "2026-12-01" },
    ]);
  });

  test("a BambooHR-like ';' Windows-1252 absences CSV: US dates, its own status words, a half day; a changed re-export and a prune of the year", async () => {
    const { importing, rows } = await setup();
    const employees = file(
      "employees.csv",
      "external_id,first_name,last_name,status,holiday_calendar\n3001,Jürgen,Weiß,active,DE-BY\n3003,Zoë,Fuchs,active,DE-BY\n",
    );
    expect((await importing("--kind", "employees", employees)).code).toBe(0);
    const csv = (lines: string[]) => file("timeoff.csv", cp1252(`${[BAMBOO_COLUMNS, ...lines].join("\r\n")}\r\n`));
    const export1 = csv([
      "B-101;3001;Weiß, Jürgen;Vacation;03/02/2026;03/06/2026;5;Approved;Skiurlaub – Tirol",
      "B-102;3003;Fuchs, Zoë;Vacation;04/07/2026;04/07/2026;0.5;Requested;Arzttermin",
      "B-103;3001;Weiß, Jürgen;Vacation;12/21/2026;12/23/2026;3;Denied;",
    ]);

    // 1. A dry run as it is: the encoding (read on as Windows-1252, for this run only), the columns with their likely fields,
    //    the two defaults, and every value of the columns read: all in one run.
    const first = problems(await importing("--kind", "leave", "--dry-run", export1));
    const needs = (field: string, example: string) =>
      `${export1}:1: ${field}: every row needs ${field}, and the file has no column for it; give one value for every row under a --map file's "defaults", e.g. "defaults": {"${field}": ${example}}, or name the column that holds it under "columns"`;
    const dates = '; set the map\'s "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "MM/DD/YYYY"';
    const statuses = "must be one of pending, approved, rejected, cancelled, cancellation_requested, not";
    const values = '; map the file\'s words under "values", e.g. "values": {"status": ';
    expect(first.lines).toEqual([
      `${export1}:1: columns "Request ID", "Employee ID", "Employee Name", "Time Off Type", "Start Date", "End Date", "Amount (days)", "Status", "Comment" map to no field of leave; they look like these fields (read so here, to check the values): "columns": {"Request ID": "external_id", "Employee ID": "employee_external_id", "Time Off Type": "leave_type_name", "Start Date": "start_date", "End Date": "end_date", "Amount (days)": "days", "Status": "status"}; to leave the others ("Employee Name", "Comment") out, set "ignore_unmapped": true in a --map file, or name each under "columns": {"Employee Name": null, "Comment": null}; the fields are ${LEAVE_FIELDS}`,
      needs("leave_type_category", '"annual"'),
      needs("leave_type_is_paid", "true"),
      `${export1}:2: row: is not valid UTF-8, and reads as Windows-1252 ("Weiß"); this dry run read it so, to find the other problems; name the encoding with "encoding": "windows-1252" in a --map file (or --encoding windows-1252), or save the file as UTF-8`,
      `${export1}:2: start_date (column "Start Date"): must be a real date YYYY-MM-DD, not "03/02/2026"${dates}`,
      `${export1}:2: end_date (column "End Date"): must be a real date YYYY-MM-DD, not "03/06/2026"${dates}`,
      `${export1}:2: status (column "Status"): ${statuses} "Approved"${values}{"Approved": "approved"}} in a --map file`,
      `${export1}:3: start_date (column "Start Date"): must be a real date YYYY-MM-DD, not "04/07/2026"${dates}`,
      `${export1}:3: end_date (column "End Date"): must be a real date YYYY-MM-DD, not "04/07/2026"${dates}`,
      `${export1}:3: status (column "Status"): ${statuses} "Requested"${values}{"Requested": "pending"}} in a --map file`,
      `${export1}:3: days (column "Amount (days)"): 0.5 includes half a day, but neither start_half_day nor end_half_day is true; mark the half day (start_half_day true and start_half_period am or pm, or the same for the end), or leave days out to have it worked out; to leave the column out, name it under "columns": {"Amount (days)": null}`,
      `${export1}:4: start_date (column "Start Date"): must be a real date YYYY-MM-DD, not "12/21/2026"${dates}`,
      `${export1}:4: end_date (column "End Date"): must be a real date YYYY-MM-DD, not "12/23/2026"${dates}`,
      `${export1}:4: status (column "Status"): ${statuses} "Denied"${values}{"Denied": "rejected"}} in a --map file`,
    ]);
    expect(first.closing).toBe(
      `leaveapi: import failed: 3 header problems and 11 problems in 3 rows; nothing was written; another system's columns can be mapped to these fields with --map FILE (docs/cli.md, "Other systems' exports")`,
    );

    // 2. A map of exactly what those messages say (days left out, as the export has no half-day column): it passes, and lands.
    const mapping = {
      // The "columns" as the first message gives them, less the days (the export has no half-day column).
      columns: { ...suggestedColumns(first.lines[0]!), "Amount (days)": null },
      ignore_unmapped: true,
      defaults: { leave_type_category: "annual", leave_type_is_paid: true },
      encoding: "windows-1252",
      dates: "MM/DD/YYYY",
      values: { status: { Approved: "approved", Requested: "pending", Denied: "rejected" } },
    };
    const map = file("bamboo-map.json", JSON.stringify(mapping));
    const dry = await importing("--kind", "leave", "--dry-run", "--map", map, export1);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: "" });
    expect((await importing("--kind", "leave", "--map", map, export1)).stdout).toStartWith("imported 3 rows of leave into Müller & Söhne GmbH: 3 created");
    expect(await rows("leave_bookings", "external_id, start_date, end_date, days, status")).toEqual([
      { external_id: "B-101", start_date: "2026-03-02", end_date: "2026-03-06", days: 5, status: "approved" },
      { external_id: "B-102", start_date: "2026-04-07", end_date: "2026-04-07", days: 1, status: "pending" },
      { external_id: "B-103", start_date: "2026-12-21", end_date: "2026-12-23", days: 3, status: "rejected" },
    ]);

    // A changed re-export of the year: B-102 approved, B-103 withdrawn (gone from the export). The prune's dry run names it.
    const export2 = csv([
      "B-101;3001;Weiß, Jürgen;Vacation;03/02/2026;03/06/2026;5;Approved;Skiurlaub – Tirol",
      "B-102;3003;Fuchs, Zoë;Vacation;04/07/2026;04/07/2026;0.5;Approved;Arzttermin",
    ]);
    const year = ["--prune", "--range", "01/01/2026,12/31/2026", "--prune-max", "34"];
    const pruneDry = await importing("--kind", "leave", "--map", map, ...year, "--dry-run", export2);
    expect(pruneDry.stderr).toBe("");
    expect(pruneDry.stdout).toStartWith(
      [
        "would import 2 rows of leave into Müller & Söhne GmbH: 0 created, 1 updated, 1 unchanged, 0 deleted, 1 pruned (absent from the file)",
        "would prune (absent from the file):",
        '  "B-103"  Jürgen Weiß, 2026-12-21 to 2026-12-23',
      ].join("\n"),
    );
    expect((await importing("--kind", "leave", "--map", map, ...year, export2)).stdout).toStartWith(
      "imported 2 rows of leave into Müller & Söhne GmbH: 0 created, 1 updated, 1 unchanged, 0 deleted, 1 pruned (absent from the file)",
    );
    expect(await rows("leave_bookings", "external_id, status")).toEqual([
      { external_id: "B-101", status: "approved" },
      { external_id: "B-102", status: "approved" },
    ]);
  });
});
