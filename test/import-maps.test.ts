/**
 * Other systems' exports (docs/cli.md, "Other systems' exports"): a `--map`
 * checked whole (each mistake named where it is), columns renamed or skipped, values
 * translated, dates read in the map's format, defaults for empty cells, problems naming
 * the source column beside the field; CSV delimiters detected from the header; files in
 * windows-1252, iso-8859-1 and UTF-16 converted; and `--prune`, which takes the file for
 * the complete set, with its guards. Through importFile on the test store (SQLite, and
 * Postgres in the second run).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EmployeeRecord } from "../lib/records.ts";
import { importFile, type ImportKind, type ImportOutcome } from "../scripts/import/import-file.ts";
import { checkImportMap, MapProblem, NO_MAP } from "../scripts/import/import-map.ts";
import { importColumns } from "../scripts/import/normalise-records.ts";
import { toIsoDate } from "../scripts/import/source-dates.ts";
import { UuidSet } from "../scripts/import/uuid-set.ts";
import { anEmployee } from "../testing/record-builders.ts";
import { BAMBOO_HEADER, BAMBOO_MAP } from "./hr-exports.ts";
import { createOrganisation, createWorld } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "leaveapi-maps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
function tempFile(extension: string, content: string | Uint8Array): string {
  const path = join(dir, `file-${++fileCount}.${extension}`);
  writeFileSync(path, content);
  return path;
}

const EMPLOYEE_COLUMNS = importColumns("employees", true);
const employeeMap = (raw: object, overrides = {}) => checkImportMap(raw, EMPLOYEE_COLUMNS, overrides, "map.json", "employees");

async function setup() {
  const world = await createWorld();
  const org = await createOrganisation(world);
  const run = (kind: ImportKind, file: string, extra: Partial<Parameters<typeof importFile>[1]> = {}) =>
    importFile(world.store, { organisationId: org, kind, file, now: world.clock.now(), ...extra });
  const employees = async () => {
    world.clock.advance(5_000);
    return world.store.listEmployees({ organisationId: org, filters: {}, limit: 500 });
  };
  return { world, org, run, employees };
}

function expectOk(outcome: ImportOutcome) {
  if (!outcome.ok) throw new Error(`import failed:\n${outcome.errors.join("\n")}`);
  return outcome;
}
const errorsOf = (outcome: ImportOutcome) => (outcome.ok ? [] : outcome.errors);

describe("the map file is checked whole", () => {
  test("every mistake is named where it is: a target that is no field, a field two columns give, a date format, a setting", () => {
    let problem: MapProblem | null = null;
    try {
      employeeMap({ columns: { A: "strt_date", B: "status", C: "status", D: null }, dates: "DD-MM-YYYY", defaults: { colour: "red" }, ignore_unmaped: true });
    } catch (error) {
      problem = error as MapProblem;
    }
    expect(problem).toBeInstanceOf(MapProblem);
    expect(problem!.problems).toEqual([
      "map.json: ignore_unmaped: is not a map setting; did you mean ignore_unmapped?",
      'map.json: columns."A": "strt_date" is not a field of employees; did you mean start_date?',
      'map.json: columns."C": maps to status, as column "B" already does; a field takes one column',
      `map.json: defaults."colour": "colour" is not a field of employees; the fields are ${EMPLOYEE_COLUMNS.join(", ")}`,
      'map.json: dates: "DD-MM-YYYY" is not a date format; use one of YYYY-MM-DD, DD/MM/YYYY, MM/DD/YYYY, DD.MM.YYYY, YYYY/MM/DD, D/M/YYYY, M/D/YYYY',
    ]);
  });

  test("wrong types are named too; a flag's mistake names the flag", () => {
    expect(() => employeeMap({ columns: ["a"] })).toThrow("map.json: columns: must be an object of column → field");
    expect(() => employeeMap({ ignore_unmapped: "yes" })).toThrow("map.json: ignore_unmapped: must be true or false");
    expect(() => employeeMap({}, { delimiter: ":" })).toThrow('map.json: --delimiter: ":" is not a delimiter; use one of ",", ";", "tab", "|"');
    expect(() => employeeMap({}, { encoding: "ebcdic" })).toThrow('map.json: --encoding: "ebcdic" is not an encoding this reads');
    expect(() => employeeMap({}, { dateFormat: "DD/MM/YY" })).toThrow('map.json: --date-format: "DD/MM/YY" is not a date format');
  });

  test("flags override the file's settings", () => {
    const map = employeeMap(
      { delimiter: ";", encoding: "utf-8", sheet: "Data", dates: "DD/MM/YYYY" },
      { delimiter: "tab", encoding: "windows-1252", sheet: "Other", dateFormat: "M/D/YYYY" },
    );
    expect(map).toMatchObject({ delimiter: "\t", encoding: "windows-1252", sheet: "Other", dates: "M/D/YYYY" });
  });
});

describe("dates in other formats", () => {
  test("each format reads its own way; a date that is not real is refused; ISO is always taken", () => {
    expect(toIsoDate("03/01/2021", "MM/DD/YYYY")).toBe("2021-03-01");
    expect(toIsoDate("03/01/2021", "DD/MM/YYYY")).toBe("2021-01-03");
    expect(toIsoDate("24.12.2021", "DD.MM.YYYY")).toBe("2021-12-24");
    expect(toIsoDate("2021/12/24", "YYYY/MM/DD")).toBe("2021-12-24");
    expect(toIsoDate("1/3/2021", "D/M/YYYY")).toBe("2021-03-01");
    expect(toIsoDate("1/3/2021", "M/D/YYYY")).toBe("2021-01-03");
    expect(toIsoDate("1/3/2021", "DD/MM/YYYY")).toBeNull();
    expect(toIsoDate("31/02/2021", "DD/MM/YYYY")).toBeNull();
    expect(toIsoDate("2021-02-28", "DD.MM.YYYY")).toBe("2021-02-28");
    expect(toIsoDate("2021-02-30", "DD.MM.YYYY")).toBeNull();
    expect(toIsoDate("24.12.21", "DD.MM.YYYY")).toBeNull();
  });
});

describe("a BambooHR-style export through a map", () => {
  test("columns renamed and skipped, statuses translated, US dates read, a default for the calendar", async () => {
    const { run, employees } = await setup();
    const file = tempFile(
      "csv",
      [
        BAMBOO_HEADER,
        "1001;Ada;Lovelace;Engineer;Engineering;Active;03/01/2021;;London;ada@example.com",
        '1002;Grace;Hopper;"Head of Research; Data";Research;Inactive;11/15/2019;06/30/2025;NYC;grace@example.com',
      ].join("\r\n"),
    );
    const outcome = expectOk(await run("employees", file, { format: "csv", map: employeeMap(BAMBOO_MAP), describe: true }));
    expect(outcome.counts.created).toBe(2);
    expect(outcome.mapping!.skipped).toEqual(["Location", "Work Email"]);
    expect(outcome.mapping!.read.find((r) => r.column === "Hire Date")).toEqual({ column: "Hire Date", field: "start_date" });
    const withoutIdAndStamp = ({ id: _, updated_at: __, ...e }: EmployeeRecord) => e;
    const stored = (await employees()).map(withoutIdAndStamp);
    const ada = anEmployee({
      first_name: "Ada",
      last_name: "Lovelace",
      preferred_name: null,
      job_title: "Engineer",
      department: "Engineering",
      status: "active",
      start_date: "2021-03-01",
      leaving_date: null,
      holiday_calendar: "US",
    });
    expect(stored).toContainEqual(withoutIdAndStamp(ada));
    expect(stored).toContainEqual(
      expect.objectContaining({
        first_name: "Grace",
        job_title: "Head of Research; Data",
        status: "terminated",
        start_date: "2019-11-15",
        leaving_date: "2025-06-30",
      }),
    );
  });

  test("problems name the line, the field and the source column; a value the map does not list is validated as usual", async () => {
    const { run } = await setup();
    const file = tempFile(
      "csv",
      [BAMBOO_HEADER, "1001;Ada;Lovelace;Engineer;Engineering;On Leave;13/01/2021;;London;a@x", "1002;;Hopper;;;Active;1/5/2020;;;"].join("\n"),
    );
    expect(errorsOf(await run("employees", file, { format: "csv", map: employeeMap(BAMBOO_MAP) }))).toEqual([
      `${file}:2: start_date (column "Hire Date"): must be a real date MM/DD/YYYY, not "13/01/2021"; set the map's "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "DD/MM/YYYY"`,
      `${file}:2: status (column "Status"): "On Leave" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"On Leave": "on_leave"}}`,
      `${file}:3: start_date (column "Hire Date"): must be a real date MM/DD/YYYY, not "1/5/2020" (for days and months of one digit, use M/D/YYYY); set the map's "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "D/M/YYYY" (or "M/D/YYYY", if the month comes first)`,
      `${file}:3: first_name (column "First Name"): is required and must not be empty; fill the cell, or give empty cells one value under "defaults", e.g. "defaults": {"first_name": "…"}`,
    ]);
  });

  test("without a map the columns that are no fields are ONE header problem, split at the right delimiter, naming the map keys that fix it", async () => {
    const { run } = await setup();
    const file = tempFile("csv", [BAMBOO_HEADER, "1001;Ada;Lovelace;Engineer;Engineering;Active;03/01/2021;;London;a@x"].join("\n"));
    const outcome = await run("employees", file, { format: "csv" });
    const header = errorsOf(outcome).filter((e) => e.startsWith(`${file}:1: `));
    expect(header[0]).toBe(
      `${file}:1: columns "Employee #", "First Name", "Last Name", "Job Title", "Department", "Status", "Hire Date", "Termination Date", "Location", "Work Email" map to no field of employees; they look like these fields (read so here, to check the values): "columns": {"Employee #": "external_id", "First Name": "first_name", "Last Name": "last_name", "Job Title": "job_title", "Department": "department", "Status": "status", "Hire Date": "start_date", "Termination Date": "leaving_date"}; to leave the others ("Location", "Work Email") out, set "ignore_unmapped": true in a --map file, or name each under "columns": {"Location": null, "Work Email": null}; the fields are ${importColumns("employees", true).join(", ")}`,
    );
    // The columns of a likely field are read as it: no field every row needs is missing, and their values are checked now.
    expect(header.slice(1)).toEqual([]);
    expect(errorsOf(outcome).slice(1)).toEqual([
      `${file}:2: status (column "Status"): "Active" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"Active": "active"}} in a --map file`,
      `${file}:2: start_date (column "Hire Date"): must be a real date YYYY-MM-DD, not "03/01/2021"; set the map's "dates" (or --date-format) to the format the file writes its dates in, e.g. "dates": "DD/MM/YYYY" (or "MM/DD/YYYY", if the month comes first)`,
    ]);
    expect(outcome).toMatchObject({ ok: false, headerProblems: 1, invalidRows: 1 });
  });

  test("a header of unguessable columns names the fields every row needs once each, at the header", async () => {
    const { run } = await setup();
    const file = tempFile("csv", ["Nr;Wer;Was", "1001;Ada;x"].join("\n"));
    const header = errorsOf(await run("employees", file, { format: "csv" })).filter((e) => e.startsWith(`${file}:1: `));
    expect(header[0]).toStartWith(
      `${file}:1: columns "Nr", "Wer", "Was" map to no field of employees; to leave them out, set "ignore_unmapped": true in a --map file, or name each under "columns": {"Nr": null, "Wer": null, "Was": null}; the fields are`,
    );
    // The fields every row needs and the file has no column for: once each, at the header, not on every row.
    expect(header.slice(1)).toEqual([
      `${file}:1: status: every row needs status, and the file has no column for it; give one value for every row under a --map file's "defaults", e.g. "defaults": {"status": "…"}, or name the column that holds it under "columns"`,
      `${file}:1: first_name: every row needs first_name, and the file has no column for it; give one value for every row under a --map file's "defaults", e.g. "defaults": {"first_name": "…"}, or name the column that holds it under "columns"`,
      `${file}:1: last_name: every row needs last_name, and the file has no column for it; give one value for every row under a --map file's "defaults", e.g. "defaults": {"last_name": "…"}, or name the column that holds it under "columns"`,
      `${file}:1: id: every row needs id or external_id, and the file has a column for neither; name the column that holds it under a --map file's "columns", e.g. "columns": {"Nr": "external_id"}`,
    ]);
  });

  test("a column named like a field is read as it without being mapped; a mapped column and a same-named one cannot both give it", async () => {
    const { run, employees } = await setup();
    const good = tempFile("csv", "Emp;first_name;Surname;status\nX1;Ada;Lovelace;active\n");
    expectOk(await run("employees", good, { map: employeeMap({ columns: { Emp: "external_id", Surname: "last_name" } }) }));
    expect((await employees()).map((e) => e.last_name)).toEqual(["Lovelace"]);
    const clash = tempFile("csv", "Emp;first_name;Surname;last_name;status\nX1;Ada;Lovelace;L;active\n");
    expect(errorsOf(await run("employees", clash, { map: employeeMap({ columns: { Emp: "external_id", Surname: "last_name" } }) }))).toEqual([
      `${clash}:1: last_name: gives last_name, as column "Surname" does; under "columns", map one of them to another field or to null`,
    ]);
  });

  test("a JSON export is mapped by its keys; keys neither mapped nor fields are still refused unless ignored", async () => {
    const { run, employees } = await setup();
    const file = tempFile("jsonl", `${JSON.stringify({ EmpId: 7, Given: "Ada", Family: "Lovelace", State: "Active", Hired: "01.02.2020", Extra: 1 })}\n`);
    const map = {
      columns: { EmpId: "external_id", Given: "first_name", Family: "last_name", State: "status", Hired: "start_date" },
      values: { status: { Active: "active" } },
      dates: "DD.MM.YYYY",
    };
    const json = importColumns("employees", false);
    expect(errorsOf(await run("employees", file, { map: checkImportMap(map, json) }))).toEqual([expect.stringContaining(`${file}:1: Extra: unknown field;`)]);
    expectOk(await run("employees", file, { map: checkImportMap({ ...map, ignore_unmapped: true }, json) }));
    expect(await employees()).toEqual([expect.objectContaining({ first_name: "Ada", status: "active", start_date: "2020-02-01" })]);
  });
});

describe("CSV delimiters", () => {
  const rows = (d: string) => [["external_id", "first_name", "last_name", "status"].join(d), ["D1", '"Lee, Ann"', "Smith", "active"].join(d)].join("\n");

  test.each([
    [",", "comma"],
    [";", "semicolon"],
    ["\t", "tab"],
    ["|", "pipe"],
  ])("%p (%s) is detected from the header", async (d) => {
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", rows(d))));
    expect((await employees()).map((e) => e.first_name)).toEqual(["Lee, Ann"]);
  });

  test("a delimiter given that leaves the header one column names the one that splits it", async () => {
    const { run } = await setup();
    const file = tempFile("csv", rows(";"));
    expect(errorsOf(await run("employees", file, { map: { ...NO_MAP, delimiter: "," } }))).toEqual([
      `${file}:1: header: is one column when split at ","; it looks separated by ";": pass --delimiter ';'`,
    ]);
    expect(errorsOf(await run("employees", tempFile("csv", rows("\t")), { map: { ...NO_MAP, delimiter: ";" } }))[0]).toContain("pass --delimiter tab");
  });
});

describe("encodings", () => {
  const text = "external_id,first_name,last_name,status\nW1,Zoë,Müller-Łukasz,active\nW2,José,O’Brien – “Jr”,active\n";
  const windows1252 = (s: string) => {
    const table: Record<string, number> = { "’": 0x92, "–": 0x96, "“": 0x93, "”": 0x94, "€": 0x80 };
    return Uint8Array.from([...s].map((c) => table[c] ?? c.charCodeAt(0)));
  };
  const names = async (employees: () => Promise<EmployeeRecord[]>) =>
    (await employees())
      .map((e) => `${e.first_name} ${e.last_name}`)
      .sort()
      .join(" / ");

  test("windows-1252 is read when named; unnamed, it is refused at its line with the flag to pass", async () => {
    const { run, employees } = await setup();
    const file = tempFile("csv", windows1252(text.replace("Łukasz", "Lukas")));
    expect(errorsOf(await run("employees", file))).toEqual([
      `${file}:2: row: is not valid UTF-8; save the file as UTF-8, or name its encoding with --encoding windows-1252|iso-8859-1|utf-16le or "encoding" in a --map file (reading stopped at this line; --dry-run reads on to find the other problems)`,
    ]);
    expectOk(await run("employees", file, { map: employeeMap({ encoding: "windows-1252" }) }));
    expect(await names(employees)).toBe("José O’Brien – “Jr” / Zoë Müller-Lukas");
    // iso-8859-1 is read as windows-1252, its superset: the same letters.
    const { run: run2, employees: employees2 } = await setup();
    expectOk(await run2("employees", file, { map: employeeMap({ encoding: "iso-8859-1" }) }));
    expect(await names(employees2)).toBe("José O’Brien – “Jr” / Zoë Müller-Lukas");
  });

  test("UTF-16 little-endian with a BOM is recognised unasked, without one when named; big-endian is refused", async () => {
    const utf16 = (s: string, bom: boolean) => {
      const body = Buffer.from(s, "utf16le");
      return bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body;
    };
    const tabbed = text.replaceAll(",", "\t");
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", utf16(tabbed, true))));
    expect(await names(employees)).toBe("José O’Brien – “Jr” / Zoë Müller-Łukasz");
    const { run: run2, employees: employees2 } = await setup();
    expectOk(await run2("employees", tempFile("csv", utf16(tabbed, false)), { map: employeeMap({ encoding: "utf-16le" }) }));
    expect(await names(employees2)).toBe("José O’Brien – “Jr” / Zoë Müller-Łukasz");
    const bigEndian = tempFile("csv", Buffer.from([0xfe, 0xff, 0x00, 0x61]));
    expect(errorsOf(await run("employees", bigEndian))).toEqual([
      `${bigEndian}: is UTF-16 big-endian, which import does not read; save it as UTF-8 (or UTF-16 little-endian)`,
    ]);
  });

  test("a UTF-8 byte-order mark is allowed, as before", async () => {
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", `\ufeff${text}`)));
    expect(await names(employees)).toBe("José O’Brien – “Jr” / Zoë Müller-Łukasz");
  });
});

describe("--prune", () => {
  const people = (ids: string[]) => `external_id,first_name,last_name,status\n${ids.map((id) => `${id},F${id},L${id},active`).join("\n")}\n`;
  const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `P${String(i + from).padStart(5, "0")}`);

  test("live employees the file leaves out are deleted and counted; a dry run counts them and deletes nothing", async () => {
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", people(ids(8)))));
    const without = tempFile("csv", people([...ids(6), "NEW"]));
    const dry = expectOk(await run("employees", without, { prune: { maxPercent: 25 }, dryRun: true }));
    expect(dry).toMatchObject({ pruned: 2, dryRun: true, counts: { created: 1, unchanged: 6 } });
    expect(await employees()).toHaveLength(8);
    expect(expectOk(await run("employees", without, { prune: { maxPercent: 25 } })).pruned).toBe(2);
    const left = (await employees()).map((e) => e.first_name).sort();
    expect(left).toEqual([...ids(6).map((id) => `F${id}`), "FNEW"].sort());
    // The same file again prunes nothing.
    expect(expectOk(await run("employees", without, { prune: { maxPercent: 25 } })).pruned).toBe(0);
  });

  test("more than 25% is refused with the count and the flag that allows it; an empty file is always refused", async () => {
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", people(ids(4)))));
    const one = tempFile("csv", people(ids(1)));
    expect(errorsOf(await run("employees", one, { prune: { maxPercent: 25 } }))).toEqual([
      `${one}: --prune would delete 3 of the 4 live employees (75%), those the file leaves out; it deletes at most 25% unless --prune-max allows more (--prune-max 75)`,
    ]);
    expect(await employees()).toHaveLength(4);
    const empty = tempFile("csv", "external_id,first_name,last_name,status\n");
    expect(errorsOf(await run("employees", empty, { prune: { maxPercent: 100 } }))).toEqual([
      `${empty}: --prune: the file has no rows, and an empty file is never taken for the complete set`,
    ]);
    expect(expectOk(await run("employees", one, { prune: { maxPercent: 75 } })).pruned).toBe(3);
    expect((await employees()).map((e) => e.first_name)).toEqual(["FP00000"]);
  });

  test("a row error stops the prune with the rest: nothing is deleted", async () => {
    const { run, employees } = await setup();
    expectOk(await run("employees", tempFile("csv", people(ids(4)))));
    const bad = tempFile("csv", "external_id,first_name,last_name,status\nP00000,F,L,active\nP00001,,L,active\nP00002,F,L,active\n");
    expect(errorsOf(await run("employees", bad, { prune: { maxPercent: 100 } }))).toEqual([`${bad}:3: first_name: is required and must not be empty`]);
    expect(await employees()).toHaveLength(4);
  });

  test("thousands of employees: pages of live ids are compared exactly, ids that differ in one digit included", async () => {
    const { run, world, org } = await setup();
    const all = ids(2600);
    expectOk(await run("employees", tempFile("csv", people(all))));
    const kept = all.filter((_, i) => i % 5 !== 3);
    expect(expectOk(await run("employees", tempFile("csv", people(kept)), { prune: { maxPercent: 25 } })).pruned).toBe(520);
    world.clock.advance(5_000);
    const left = await world.store.listEmployees({ organisationId: org, filters: {}, limit: 5_000 });
    expect(left.map((e) => e.first_name).sort()).toEqual(kept.map((id) => `F${id}`).sort());
  });

  test("leave: the bookings starting within the range are the set; those outside it stay", async () => {
    const { run, world, org } = await setup();
    expectOk(await run("employees", tempFile("csv", people(["E1"]))));
    const header = "external_id,employee_external_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,status";
    const booking = (id: string, start: string) => `${id},E1,Annual leave,annual,true,${start},${start},approved`;
    const starts = ["2026-01-05", "2026-02-02", "2026-03-02", "2026-04-06", "2026-05-04", "2026-06-01", "2026-07-06", "2026-08-03", "2026-12-31", "2027-01-04"];
    expectOk(await run("leave", tempFile("csv", [header, ...starts.map((s, i) => booking(`B${i}`, s))].join("\n"))));
    // The 2026 export without B1 and B2; B9 starts in 2027, outside the range, and stays though the file leaves it out.
    const export2026 = tempFile("csv", [header, ...starts.slice(0, 9).flatMap((s, i) => (i === 1 || i === 2 ? [] : [booking(`B${i}`, s)]))].join("\n"));
    const range = { from: "2026-01-01", to: "2026-12-31" };
    expect(expectOk(await run("leave", export2026, { prune: { maxPercent: 25, range } })).pruned).toBe(2);
    world.clock.advance(5_000);
    const left = await world.store.listOverlappingLeave({ organisationId: org, filters: { from: "2026-01-01", to: "2027-12-31" }, limit: 500 });
    expect(left.map((b) => b.start_date).sort()).toEqual(starts.filter((_, i) => i !== 1 && i !== 2));
  });
});

describe("UuidSet", () => {
  test("holds every id exactly, ids that differ in one word or one digit included, across growth", () => {
    const set = new UuidSet();
    const id = (n: number) => `00000000-0000-0000-0000-${n.toString(16).padStart(12, "0")}`;
    for (let n = 0; n < 50_000; n += 2) set.add(id(n));
    set.add(id(0));
    expect(set.size).toBe(25_000);
    for (let n = 0; n < 50_000; n++) if (set.has(id(n)) !== (n % 2 === 0)) throw new Error(`wrong answer for ${id(n)}`);
    expect(set.has("ffffffff-0000-0000-0000-000000000000")).toBe(false);
  });
});
