/**
 * Other systems' exports through the real command line, on SQLite and on the machine's
 * Postgres (docs/cli.md, "Other systems' exports", "Spreadsheets (.xlsx)", "Full exports:
 * --prune"): a BambooHR-style `;` CSV with US dates, a Personio-style workbook with German
 * headers and `DD.MM.YYYY`, a Windows-1252 file, a UTF-16 file from Excel, a zip bomb, and
 * a prune that would delete everyone. Each file is made here, shaped as those systems
 * write them, and what is stored is read back from the database itself.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";
import { queryDatabase, scratchDatabases } from "./pg-scratch.ts";
import { BAMBOO_HEADER, BAMBOO_MAP, PERSONIO_HEADER, PERSONIO_MAP } from "./hr-exports.ts";
import { writeXlsx, writeZipBomb } from "./xlsx-files.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());
let fileCount = 0;
function file(name: string, content: string | Uint8Array): string {
  const path = join(scratch.dir, `${++fileCount}-${name}`);
  writeFileSync(path, content);
  return path;
}
const newDatabase = scratchDatabases("exports");

interface Target {
  args: string[];
  /** The organisation's live employees as stored, by external id. */
  employees(org: string): Promise<Record<string, unknown>[]>;
}

const EMPLOYEE_COLUMNS = "external_id, first_name, last_name, job_title, department, status, holiday_calendar";

async function sqliteTarget(): Promise<Target> {
  const path = join(scratch.dir, `db-${++fileCount}.sqlite`);
  return {
    args: ["--db", path],
    async employees(org) {
      const db = new Database(path, { readonly: true });
      try {
        return db
          .query(`select ${EMPLOYEE_COLUMNS}, start_date, leaving_date from employees where organisation_id = ? and deleted_at is null order by external_id`)
          .all(org) as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
  };
}

async function postgresTarget(): Promise<Target> {
  const url = await newDatabase();
  return {
    args: ["--database-url", url],
    employees: (org) =>
      queryDatabase(
        url,
        `select ${EMPLOYEE_COLUMNS}, start_date::text as start_date, leaving_date::text as leaving_date from employees where organisation_id = $1 and deleted_at is null order by external_id`,
        [org],
      ),
  };
}

const person = (external_id: string, first_name: string, last_name: string, more: Record<string, unknown> = {}) => ({
  external_id,
  first_name,
  last_name,
  job_title: null,
  department: null,
  status: "active",
  holiday_calendar: null,
  start_date: null,
  leaving_date: null,
  ...more,
});

describe.each([
  ["SQLite", sqliteTarget],
  ["Postgres", postgresTarget],
])("on %s", (_name, makeTarget) => {
  async function setup() {
    const target = await makeTarget();
    const org = (await runJson<{ id: string }>([...target.args, "org", "create", "--name", "Exports GmbH"])).id;
    const importing = (...args: string[]) => runCli([...target.args, "import", "--org", org, ...args]);
    return { target, org, importing };
  }

  test("a BambooHR-style report: ';', US dates, words for statuses, its own column names, through a map", async () => {
    const { target, org, importing } = await setup();
    const csv = file(
      "bamboo.csv",
      [
        BAMBOO_HEADER,
        "1001;Ada;Lovelace;Engineer;Engineering;Active;03/01/2021;;London;ada@example.com",
        '1002;Grace;Hopper;"Head of Research; Data";Research;Inactive;11/15/2019;06/30/2025;New York;grace@example.com',
        "1003;Alan;Turing;Analyst;Research;Active;12/31/2020;;London;alan@example.com",
      ].join("\r\n"),
    );
    const map = file("bamboo-map.json", JSON.stringify(BAMBOO_MAP));

    // Without the map: every column unknown, at the header, split at ';' so that the names are real, and a hint.
    const bare = await importing("--kind", "employees", csv);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(
      `they look like these fields (read so here, to check the values): "columns": {"Employee #": "external_id", "First Name": "first_name",`,
    );
    expect(bare.stderr).toContain(
      `start_date (column "Hire Date"): must be a real date YYYY-MM-DD, not "03/01/2021"; set the map's "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "MM/DD/YYYY"`,
    );
    expect(bare.stderr).toContain("can be mapped to these fields with --map FILE");

    const dry = await importing("--kind", "employees", "--map", map, csv, "--dry-run");
    expect(dry.code).toBe(0);
    const lines = dry.stdout.split("\n");
    expect(lines).toContain('  "Hire Date"        -> start_date');
    expect(lines).toContain('skipped columns: "Location", "Work Email"');
    expect(lines.find((l) => l.includes('"external_id":"1001"'))).toContain('"start_date":"2021-03-01"');
    expect(await target.employees(org)).toEqual([]);

    const done = await importing("--kind", "employees", "--map", map, csv);
    expect(done.stdout).toBe(
      'imported 3 rows of employees into Exports GmbH: 3 created, 0 updated, 0 unchanged, 0 deleted\nskipped columns: "Location", "Work Email"\n',
    );
    expect(await target.employees(org)).toEqual([
      person("1001", "Ada", "Lovelace", { job_title: "Engineer", department: "Engineering", holiday_calendar: "US", start_date: "2021-03-01" }),
      person("1002", "Grace", "Hopper", {
        job_title: "Head of Research; Data",
        department: "Research",
        status: "terminated",
        holiday_calendar: "US",
        start_date: "2019-11-15",
        leaving_date: "2025-06-30",
      }),
      person("1003", "Alan", "Turing", { job_title: "Analyst", department: "Research", holiday_calendar: "US", start_date: "2020-12-31" }),
    ]);
    // The same export again changes nothing.
    expect((await importing("--kind", "employees", "--map", map, csv)).stdout).toStartWith(
      "imported 3 rows of employees into Exports GmbH: 0 created, 0 updated, 3 unchanged",
    );
  });

  test("a Personio-style workbook: German headers, date cells and DD.MM.YYYY text, the sheet by name", async () => {
    const { target, org, importing } = await setup();
    const header = PERSONIO_HEADER;
    const xlsx = file("personio.xlsx", new Uint8Array());
    await writeXlsx(xlsx, [
      { name: "Hinweise", rows: [["Export aus Personio"], ["Stand", "27.11.2026"]] },
      {
        name: "Mitarbeiter",
        rows: [
          header,
          // A real date cell (Excel's serial 44652 is 2022-04-01) shown as dd.mm.yyyy, and a number as the id.
          [2001, "Jürgen", "Weiß", "Entwickler", "Technik", "aktiv", { date: 44652, format: "dd.mm.yyyy" }, null],
          [],
          // Dates typed as text, a formula for the position whose cached value is what counts.
          [
            "2002",
            "Anna",
            "Groß",
            { formula: 'CONCAT("Leiterin ","Vertrieb")', result: "Leiterin Vertrieb" },
            "Vertrieb",
            "inaktiv",
            "15.01.2020",
            "31.03.2025",
          ],
        ],
      },
    ]);
    const map = file("personio-map.json", JSON.stringify(PERSONIO_MAP));
    const done = await importing("--kind", "employees", "--map", map, xlsx);
    expect(done.stderr).toBe("");
    expect(done.stdout).toStartWith("imported 2 rows of employees into Exports GmbH: 2 created");
    expect(await target.employees(org)).toEqual([
      person("2001", "Jürgen", "Weiß", { job_title: "Entwickler", department: "Technik", holiday_calendar: "DE-BY", start_date: "2022-04-01" }),
      person("2002", "Anna", "Groß", {
        job_title: "Leiterin Vertrieb",
        department: "Vertrieb",
        status: "terminated",
        holiday_calendar: "DE-BY",
        start_date: "2020-01-15",
        leaving_date: "2025-03-31",
      }),
    ]);

    // Line numbers are row numbers: the bad date is on row 5 (row 4 is blank).
    const bad = file("personio-bad.xlsx", new Uint8Array());
    await writeXlsx(bad, [
      {
        name: "Mitarbeiter",
        rows: [header, ["2001", "J", "W", null, null, "aktiv", "01.04.2022", null], [], [], ["2002", "A", "G", null, null, "aktiv", "2020-15-01", null]],
      },
    ]);
    const failed = await importing("--kind", "employees", "--map", map, bad);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`${bad}:5: start_date (column "Eintrittsdatum"): must be a real date DD.MM.YYYY, not "2020-15-01"`);
    const unknownSheet = await importing("--kind", "employees", "--map", map, "--sheet", "Staff", xlsx);
    expect(unknownSheet.code).toBe(1);
    expect(unknownSheet.stderr).toContain('no sheet named "Staff"');
  });

  test("Windows-1252 and UTF-16 files, as older systems and Excel's 'Unicode text' save them", async () => {
    const { target, org, importing } = await setup();
    const text = "external_id;first_name;last_name;status\nW1;Zoë;Müller;active\nW2;François;D’Arcy – Snr;active\n";
    const cp1252 = Uint8Array.from([...text].map((c) => ({ "’": 0x92, "–": 0x96 })[c] ?? c.charCodeAt(0)));
    const windows = file("hr-export.csv", cp1252);
    const refused = await importing("--kind", "employees", windows);
    expect(refused.stderr).toContain(`${windows}:2: row: is not valid UTF-8; save the file as UTF-8, or name its encoding with --encoding`);
    expect((await importing("--kind", "employees", "--encoding", "windows-1252", windows)).code).toBe(0);
    const utf16 = file(
      "unicode-text.txt",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("external_id\tfirst_name\tlast_name\tstatus\r\nU1\tŁucja\t王\tactive\r\n", "utf16le")]),
    );
    expect((await importing("--kind", "employees", "--format", "csv", utf16)).code).toBe(0);
    expect((await target.employees(org)).map((e) => `${e.first_name} ${e.last_name}`)).toEqual(["Łucja 王", "Zoë Müller", "François D’Arcy – Snr"]);
  });

  test("a zip bomb is refused before it is unpacked, and so is a workbook that claims too much", async () => {
    const { target, org, importing } = await setup();
    const bomb = file("bomb.xlsx", new Uint8Array());
    await writeZipBomb(bomb, "lying");
    const result = await importing("--kind", "employees", bomb);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^.*bomb\.xlsx: .*(zip bomb|unpack|declared|compress)/m);
    const huge = file("huge.xlsx", new Uint8Array());
    await writeZipBomb(huge, "huge");
    const tooLarge = await importing("--kind", "employees", huge);
    expect(tooLarge.code).toBe(1);
    expect(tooLarge.stderr).toContain("200 MB");
    expect(await target.employees(org)).toEqual([]);
  });

  test("--prune: leavers missing from the next full export are deleted; a file that would delete everyone is refused", async () => {
    const { target, org, importing } = await setup();
    const everyone = ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"];
    const csv = (ids: string[]) => file("full.csv", `external_id,first_name,last_name,status\n${ids.map((id) => `${id},F,${id},active`).join("\n")}\n`);
    await importing("--kind", "employees", csv(everyone));
    const wrongFile = csv(["E1"]);
    const refused = await importing("--kind", "employees", "--prune", wrongFile);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `${wrongFile}: --prune would delete 7 of the 8 live employees (88%), those the file leaves out; it deletes at most 25% unless --prune-max allows more (--prune-max 88)\nleaveapi: import failed: 1 problem; nothing was written\n`,
    );
    const empty = file("empty.csv", "external_id,first_name,last_name,status\n");
    expect((await importing("--kind", "employees", "--prune", "--prune-max", "100", empty)).stderr).toContain(
      "an empty file is never taken for the complete set",
    );
    expect(await target.employees(org)).toHaveLength(8);

    const next = csv(everyone.filter((id) => id !== "E3" && id !== "E6"));
    const dry = await runJson<{ pruned: number; dry_run: boolean }>([
      ...target.args,
      "import",
      "--org",
      org,
      "--kind",
      "employees",
      "--prune",
      next,
      "--dry-run",
    ]);
    expect(dry).toMatchObject({ pruned: 2, dry_run: true });
    expect(await target.employees(org)).toHaveLength(8);
    const done = await importing("--kind", "employees", "--prune", next);
    expect(done.stdout).toBe("imported 6 rows of employees into Exports GmbH: 0 created, 0 updated, 6 unchanged, 0 deleted, 2 pruned (absent from the file)\n");
    expect((await target.employees(org)).map((e) => e.external_id)).toEqual(["E1", "E2", "E4", "E5", "E7", "E8"]);

    const usage = await importing("--kind", "leave", "--prune", next);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--prune of leave needs --range FROM,TO");
  });
});
