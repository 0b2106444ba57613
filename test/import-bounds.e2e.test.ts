/**
 * Bounded work for any file (docs/cli.md, "Limits"; issue 35): an import's dates lie in
 * 1900–2199, in every date field and every date format; a booking spans at most 1,000
 * days. Through the real command line: a booking 0001-01-01 → 9999-12-31 used to
 * count its days for 87 s under the write lock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";
import { writeXlsx } from "./xlsx-files.ts";

const scratch = scratchDir();
afterAll(() => scratch.dispose());
const db = join(scratch.dir, "bounds.sqlite");
let org = "";
let fileCount = 0;

function file(extension: string, content: string): string {
  const path = join(scratch.dir, `file-${++fileCount}.${extension}`);
  writeFileSync(path, content);
  return path;
}

const jsonl = (...records: object[]) => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
const importArgs = (kind: string, path: string, ...more: string[]) => ["--db", db, "import", "--org", org, "--kind", kind, path, ...more];
const leaveType = { name: "Annual leave", category: "annual", is_paid: true };
const booking = (external_id: string, start_date: string, end_date: string) => ({
  external_id,
  employee_external_id: "E1",
  leave_type: leaveType,
  start_date,
  end_date,
  status: "approved",
});

beforeAll(async () => {
  org = (await runJson<{ id: string }>(["--db", db, "org", "create", "--name", "Bounds Ltd"])).id;
  const people = file("jsonl", jsonl({ external_id: "E1", first_name: "Ann", last_name: "Lee", status: "active", holiday_calendar: "GB-ENG" }));
  await runJson(importArgs("employees", people));
});

describe("dates lie in 1900–2199", () => {
  test("a booking 0001-01-01 → 9999-12-31 is refused at once, each date named with its value, nothing written", async () => {
    const path = file("jsonl", jsonl(booking("L1", "0001-01-01", "9999-12-31")));
    const started = performance.now();
    const result = await runCli(importArgs("leave", path));
    // It counted days for 87 s before; refused while reading, it takes what starting the command takes.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: [
        `${path}:1: start_date: must be a date in the years 1900 to 2199, not "0001-01-01"`,
        `${path}:1: end_date: must be a date in the years 1900 to 2199, not "9999-12-31"`,
        "leaveapi: import failed: 2 problems in 1 row; nothing was written",
        "",
      ].join("\n"),
    });
  });

  test("the first and last days of the range are taken; a day either side is refused, in employees, leave and holidays", async () => {
    const people = file(
      "jsonl",
      jsonl(
        { external_id: "E2", first_name: "Bo", last_name: "Lee", status: "active", start_date: "1900-01-01", leaving_date: "2199-12-31" },
        { external_id: "E3", first_name: "Cy", last_name: "Lee", status: "active", start_date: "1899-12-31", leaving_date: "2200-01-01" },
      ),
    );
    const refused = await runCli(importArgs("employees", people));
    expect(refused.code).toBe(1);
    expect(refused.stderr.split("\n").slice(0, 2)).toEqual([
      `${people}:2: start_date: must be a date in the years 1900 to 2199, not "1899-12-31"`,
      `${people}:2: leaving_date: must be a date in the years 1900 to 2199, not "2200-01-01"`,
    ]);
    const holidays = file(
      "jsonl",
      jsonl({ type: "company", date: "2200-01-01", name: "Far off" }, { type: "public", calendar: "GB-ENG", date: "1899-06-01", name: "Old" }),
    );
    const told = await runCli(importArgs("holidays", holidays));
    expect(told.stderr.split("\n").slice(0, 2)).toEqual([
      `${holidays}:1: date: must be a date in the years 1900 to 2199, not "2200-01-01"`,
      `${holidays}:2: date: must be a date in the years 1900 to 2199, not "1899-06-01"`,
    ]);
    const edges = file("jsonl", jsonl(booking("L2", "1900-01-01", "1900-01-02"), booking("L3", "2199-12-30", "2199-12-31")));
    expect(await runJson(importArgs("leave", edges))).toMatchObject({ ok: true, created: 2 });
  });

  test("a map's date format is told as the file wrote it, with the source column", async () => {
    const map = file(
      "json",
      JSON.stringify({
        columns: { Ref: "external_id", First: "first_name", Last: "last_name", Hired: "start_date" },
        dates: "DD/MM/YYYY",
        defaults: { status: "active" },
      }),
    );
    const csv = file("csv", "Ref,First,Last,Hired\nE4,Di,Lee,01/01/0001\nE5,Ed,Lee,31/12/2199\n");
    const result = await runCli(importArgs("employees", csv, "--map", map));
    expect(result.stderr).toBe(
      `${csv}:2: start_date (column "Hired"): must be a date in the years 1900 to 2199, not "01/01/0001"\nleaveapi: import failed: 1 problem in 1 row; nothing was written\n`,
    );
  });

  test("a CSV of our own format, through the text reading, is refused the same way", async () => {
    const csv = file(
      "csv",
      "external_id,employee_external_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,status\nL4,E1,Annual leave,annual,true,2026-01-05,2300-01-01,approved\n",
    );
    const result = await runCli(importArgs("leave", csv));
    expect(result.stderr.split("\n")[0]).toBe(`${csv}:2: end_date: must be a date in the years 1900 to 2199, not "2300-01-01"`);
  });
});

describe("a booking spans at most 1,000 days", () => {
  test("1,000 days, first and last included, are taken; 1,001 are refused with the length and the rule in words", async () => {
    // 2024-01-01 + 999 days = 2026-09-26.
    const taken = file("jsonl", jsonl(booking("L10", "2024-01-01", "2026-09-26")));
    expect(await runJson(importArgs("leave", taken))).toMatchObject({ ok: true, created: 1 });
    const long = file("jsonl", jsonl(booking("L11", "2024-01-01", "2026-09-27")));
    const result = await runCli(importArgs("leave", long));
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `${long}:1: end_date: is 1,001 days from start_date 2024-01-01, first and last included; a booking spans at most 1,000 days, so split a longer absence into several bookings\nleaveapi: import failed: 1 problem in 1 row; nothing was written\n`,
    });
  });
});

describe("the map's own problems are capped like the file's", () => {
  test("a map of 300,000 wrong columns prints the first thousand and one line with the total, quickly; --json the same", async () => {
    const columns: Record<string, string> = {};
    for (let n = 0; n < 300_000; n++) columns[`Column ${n}`] = `field_${n}`;
    const map = file("json", JSON.stringify({ columns }));
    const people = file("csv", "external_id,first_name,last_name,status\nE9,Ann,Lee,active\n");
    const started = performance.now();
    const result = await runCli(importArgs("employees", people, "--map", map));
    const seconds = (performance.now() - started) / 1000;
    const lines = result.stderr.trimEnd().split("\n");
    expect(result.code).toBe(1);
    expect(lines).toHaveLength(1002);
    expect(lines[0]).toStartWith(`${map}: columns."Column 0": "field_0" is not a field of employees;`);
    expect(lines[999]).toStartWith(`${map}: columns."Column 999": "field_999" is not a field of employees;`);
    expect(lines.slice(1000)).toEqual([
      `${map}: 299,000 more problems not listed (300,000 in all)`,
      "leaveapi: the map cannot be used (300,000 problems); nothing was read",
    ]);
    console.info(`a map of 300,000 wrong columns refused in ${seconds.toFixed(2)} s`);
    expect(seconds).toBeLessThan(15);

    const json = await runCli(importArgs("employees", people, "--map", map, "--json"));
    const document = JSON.parse(json.stdout) as { ok: boolean; problems: string[]; problem_count: number };
    expect({ ok: document.ok, listed: document.problems.length, count: document.problem_count, last: document.problems.at(-1) }).toEqual({
      ok: false,
      listed: 1001,
      count: 300_000,
      last: `${map}: 299,000 more problems not listed (300,000 in all)`,
    });
  }, 60_000);

  test("a map of a few mistakes lists each, then one closing line counting them", async () => {
    const map = file("json", JSON.stringify({ columns: { A: "strt_date", B: 7 }, delimiter: "constructor", sheet: "" }));
    const people = file("csv", "external_id,first_name,last_name,status\nE9,Ann,Lee,active\n");
    const result = await runCli(importArgs("employees", people, "--map", map));
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      `${map}: columns."B": must be a field name (text) or null`,
      `${map}: sheet: must not be empty`,
      `${map}: columns."A": "strt_date" is not a field of employees; did you mean start_date?`,
      `${map}: delimiter: "constructor" is not a delimiter; use one of ",", ";", "tab", "|"`,
      "leaveapi: the map cannot be used (4 problems); nothing was read",
    ]);
  });
});

describe("map keys and cells named like Object's own properties are data like any other", () => {
  const names = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"];

  test("CSV columns so named are mapped, and their values translated by values keyed the same way", async () => {
    const map = file(
      "json",
      // Written by hand: JSON.stringify of an object literal would lose the __proto__ key.
      `{"columns": {"__proto__": "external_id", "constructor": "first_name", "prototype": "last_name", "hasOwnProperty": "status", "toString": "job_title", "valueOf": null},
        "values": {"status": {"__proto__": "active", "constructor": "terminated"}, "job_title": {"toString": "Engineer"}}}`,
    );
    const csv = file("csv", `${names.join(",")}\nP1,Ada,Lee,__proto__,toString,x\nP2,Bo,Ng,constructor,valueOf,y\n`);
    expect(await runJson(importArgs("employees", csv, "--map", map))).toMatchObject({ ok: true, created: 2, skipped_columns: ["valueOf"] });
    const dry = await runJson<{ first_rows: Record<string, unknown>[] }>(importArgs("employees", csv, "--map", map, "--dry-run"));
    expect(
      dry.first_rows.map(({ external_id, first_name, last_name, status, job_title }) => ({ external_id, first_name, last_name, status, job_title })),
    ).toEqual([
      { external_id: "P1", first_name: "Ada", last_name: "Lee", status: "active", job_title: "Engineer" },
      { external_id: "P2", first_name: "Bo", last_name: "Ng", status: "terminated", job_title: "valueOf" },
    ]);
  });

  test("JSON records with such keys are mapped too; unmapped, such a key or column is an unknown field, never dropped", async () => {
    const map = file("json", `{"columns": {"__proto__": "external_id", "constructor": "first_name"}, "defaults": {"last_name": "Lee", "status": "active"}}`);
    const records = file("jsonl", '{"__proto__": "P3", "constructor": "Cy"}\n');
    expect(await runJson(importArgs("employees", records, "--map", map))).toMatchObject({ ok: true, created: 1 });
    const plain = file(
      "jsonl",
      '{"external_id": "P4", "first_name": "Di", "last_name": "Lee", "status": "active", "__proto__": {"x": 1}, "constructor": "y"}\n',
    );
    expect((await runCli(importArgs("employees", plain))).stderr.split("\n").slice(0, 2)).toEqual([
      `${plain}:1: __proto__: unknown field; the fields are ${(await employeeFields()).join(", ")}; to leave it out, set "ignore_unmapped": true in a --map file, or name it under "columns": {"__proto__": null}`,
      `${plain}:1: constructor: unknown field; the fields are ${(await employeeFields()).join(", ")}; to leave it out, set "ignore_unmapped": true in a --map file, or name it under "columns": {"constructor": null}`,
    ]);
    const csv = file("csv", "external_id,first_name,last_name,status,__proto__\nP5,Ed,Lee,active,x\n");
    expect((await runCli(importArgs("employees", csv))).stderr.split("\n")[0]).toStartWith(`${csv}:1: column "__proto__" maps to no field of employees;`);
  });
});

test("an .xlsx workbook's columns so named are mapped the same way", async () => {
  const map = file(
    "json",
    '{"columns": {"__proto__": "external_id", "constructor": "first_name", "hasOwnProperty": "last_name"}, "defaults": {"status": "active"}}',
  );
  const workbook = join(scratch.dir, "proto.xlsx");
  await writeXlsx(workbook, [
    {
      name: "People",
      rows: [
        ["__proto__", "constructor", "hasOwnProperty"],
        ["X1", "Eve", "Lee"],
      ],
    },
  ]);
  const dry = await runJson<{ first_rows: Record<string, unknown>[] }>(importArgs("employees", workbook, "--map", map, "--dry-run"));
  expect(dry.first_rows).toMatchObject([{ external_id: "X1", first_name: "Eve", last_name: "Lee", status: "active" }]);
});

async function employeeFields(): Promise<readonly string[]> {
  const { importColumns } = await import("../scripts/import/normalise-records.ts");
  return importColumns("employees", false);
}

describe("the --prune guard counts every record the import would delete", () => {
  test("1 live row and 7 marked deleted of 8 is refused (88%) and writes nothing; --prune-max 90 lets it through", async () => {
    const pruneDb = join(scratch.dir, "prune.sqlite");
    const pruneOrg = (await runJson<{ id: string }>(["--db", pruneDb, "org", "create", "--name", "Prune Ltd"])).id;
    const ids = ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"];
    const args = (path: string, ...more: string[]) => ["--db", pruneDb, "import", "--org", pruneOrg, "--kind", "employees", path, ...more];
    await runJson(args(file("jsonl", jsonl(...ids.map((id) => ({ external_id: id, first_name: "F", last_name: id, status: "active" }))))));
    const deleting = file(
      "jsonl",
      jsonl({ external_id: "E1", first_name: "F", last_name: "E1", status: "active" }, ...ids.slice(1).map((id) => ({ external_id: id, deleted: true }))),
    );
    const refused = await runCli(args(deleting, "--prune"));
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `${deleting}: --prune would delete 7 of the 8 live employees (88%), those the file marks "deleted": true; it deletes at most 25% unless --prune-max allows more (--prune-max 88)\nleaveapi: import failed: 1 problem; nothing was written\n`,
    });
    // Nothing was written: all eight are still there, unchanged.
    const everyone = file("jsonl", jsonl(...ids.map((id) => ({ external_id: id, first_name: "F", last_name: id, status: "active" }))));
    expect(await runJson(args(everyone, "--dry-run"))).toMatchObject({ unchanged: 8, created: 0 });
    // Left out and marked deleted add up: 2 + 2 of 8 is 50%.
    const both = file(
      "jsonl",
      jsonl(
        ...ids.slice(0, 4).map((id) => ({ external_id: id, first_name: "F", last_name: id, status: "active" })),
        { external_id: "E5", deleted: true },
        { external_id: "E6", deleted: true },
      ),
    );
    expect((await runCli(args(both, "--prune"))).stderr).toStartWith(
      `${both}: --prune would delete 4 of the 8 live employees (50%), 2 the file leaves out and 2 it marks "deleted": true;`,
    );
    expect(await runJson(args(deleting, "--prune", "--prune-max", "90"))).toMatchObject({ ok: true, deleted: 7, pruned: 0 });
  });
});

describe("--range takes the map's date format too", () => {
  test("--date-format DD/MM/YYYY reads the range as the file's dates; a range in no format is bad usage naming both", async () => {
    const leaveDb = join(scratch.dir, "range.sqlite");
    const rangeOrg = (await runJson<{ id: string }>(["--db", leaveDb, "org", "create", "--name", "Range Ltd"])).id;
    const args = (kind: string, path: string, ...more: string[]) => ["--db", leaveDb, "import", "--org", rangeOrg, "--kind", kind, path, ...more];
    await runJson(args("employees", file("jsonl", jsonl({ external_id: "E1", first_name: "Ann", last_name: "Lee", status: "active" }))));
    await runJson(
      args(
        "leave",
        file("jsonl", jsonl(booking("R1", "2026-03-02", "2026-03-03"), booking("R2", "2026-05-04", "2026-05-05"), booking("R3", "2025-06-02", "2025-06-03"))),
      ),
    );
    const onlyFirst = file(
      "csv",
      "external_id,employee_external_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,status\nR1,E1,Annual leave,annual,true,02/03/2026,03/03/2026,approved\n",
    );
    const pruning = ["--prune", "--range", "01/01/2026,31/12/2026", "--date-format", "DD/MM/YYYY", "--prune-max", "50"];
    // R2 starts within 2026 and is left out; R3, in 2025, is outside the range.
    expect(await runJson(args("leave", onlyFirst, ...pruning))).toMatchObject({ ok: true, unchanged: 1, pruned: 1 });
    const bad = await runCli(args("leave", onlyFirst, "--prune", "--range", "2026-01-01,31.12.2026", "--date-format", "DD/MM/YYYY"));
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe(
      "leaveapi: --range must be FROM,TO as two dates DD/MM/YYYY (the map's date format) or YYYY-MM-DD, not '2026-01-01,31.12.2026'",
    );
  });
});
