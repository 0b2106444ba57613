/**
 * Problems in words for the person importing (DECISIONS §11, docs/cli.md "Reading import
 * problems"): the report alone (codes to words, a missing column told once at the
 * header, header problems counted apart), the one header problem for unmapped columns,
 * a half day in `days` without its flag, and the list of who a prune's dry run would delete.
 */
import { describe, expect, test } from "bun:test";
import type { ImportOutcome } from "../scripts/import/import-file.ts";
import { ProblemReport } from "../scripts/import/problem-report.ts";
import { hintFor } from "../scripts/import/problem-codes.ts";
import { unmappedColumns } from "../scripts/import/shape-records.ts";
import { describeCount } from "../scripts/commands/import.ts";
import { importSetup, landed, scratchFiles } from "./import-kit.ts";

const { file } = scratchFiles("problems");

describe("the report", () => {
  const report = () =>
    new ProblemReport({
      label: "x.csv",
      mapped: true,
      defaults: ["holiday_calendar"],
      describeField: (f) => (f === "status" ? 'status (column "Status")' : f),
    });

  test("a field every row needs that the header lacks is told once, at the header, naming defaults; a present column's empty cell stays the row's", () => {
    const r = report();
    r.header(1, ["external_id", "first_name"], []);
    for (const line of [2, 3]) {
      r.add(line, { field: "last_name", problem: "is required and must not be empty", code: "required" });
      r.add(line, { field: "first_name", problem: "is required and must not be empty", code: "required" });
    }
    expect(r.list.listed()).toEqual([
      'x.csv:1: last_name: every row needs last_name, and the file has no column for it; give one value for every row under the map\'s "defaults", e.g. "defaults": {"last_name": "…"}, or name the column that holds it under "columns"',
      "x.csv:2: first_name: is required and must not be empty",
      "x.csv:3: first_name: is required and must not be empty",
    ]);
    expect({ header: r.headerProblems, rows: r.list.invalidRows, codes: [...r.codes] }).toEqual({ header: 1, rows: 2, codes: ["missing_column", "required"] });
  });

  test("a default or the alternative key counts as a column; without a header (JSON) a required field stays the row's", () => {
    const r = report();
    r.header(1, ["external_id"], []);
    r.add(2, { field: "holiday_calendar", problem: "is required", code: "required" });
    r.add(2, { field: "id", problem: "id or external_id is required", code: "required" });
    expect(r.list.listed()).toEqual(["x.csv:2: holiday_calendar: is required", "x.csv:2: id: id or external_id is required"]);
    const json = report();
    json.add(4, { field: "last_name", problem: "is required", code: "required" });
    expect(json.list.listed()).toEqual(["x.csv:4: last_name: is required"]);
  });

  test("hints come from the code, not the words: a status names values with the value made a word", () => {
    const r = report();
    r.add(2, { field: "status", problem: "(any words)", code: "not_a_word", value: "Onboarding" });
    expect(r.list.listed()).toEqual([
      'x.csv:2: status (column "Status"): (any words); map it under "values", e.g. "values": {"status": {"Onboarding": "onboarding"}}',
    ]);
    expect(hintFor({ field: "start_date", problem: "", code: "date_format" }, { mapped: true })).toContain('"dates"');
    expect(hintFor({ field: "status", problem: "must match", code: "invalid" }, { mapped: true })).toBe("");
    expect(hintFor({ field: "colour", problem: "", code: "unknown_field" }, { mapped: true })).toBe(
      '; to leave it out, set "ignore_unmapped": true in the map, or name it under "columns": {"colour": null}',
    );
    expect(hintFor({ field: "frist_name", problem: "", code: "unknown_field", value: "first_name" }, { mapped: true })).toBe("");
    expect(hintFor({ field: "leave_type.colour", problem: "", code: "unknown_field" }, { mapped: true })).toBe("");
    const allowed = ["pending", "approved", "cancelled"];
    // Another system's word for one of them, where the field takes it ("Requested" is pending).
    expect(hintFor({ field: "status", problem: "", code: "not_allowed", value: "Requested", allowed }, { mapped: true })).toBe(
      '; map the file\'s words under "values", e.g. "values": {"status": {"Requested": "pending"}}',
    );
    expect(hintFor({ field: "status", problem: "", code: "not_allowed", value: "Canceled", allowed }, { mapped: true })).toBe(
      '; map the file\'s words under "values", e.g. "values": {"status": {"Canceled": "cancelled"}}',
    );
    expect(hintFor({ field: "status", problem: "", code: "not_allowed", value: "Denied", allowed }, { mapped: false })).toBe(
      '; map the file\'s words under "values", e.g. "values": {"status": {"Denied": "…"}} in a --map file',
    );
  });

  test("the hints of the first dry run: the encoding, the date format the file's dates fit, the column to map to null, the defaults", () => {
    expect(hintFor({ field: "row", problem: "", code: "encoding" }, { mapped: false })).toBe(
      '; name the encoding with "encoding": "windows-1252" in a --map file (or --encoding windows-1252), or save the file as UTF-8',
    );
    const date = { field: "start_date", problem: "", code: "date_format" as const };
    expect(hintFor(date, { mapped: true, dateFormats: ["MM/DD/YYYY"] })).toEndWith(', e.g. "dates": "MM/DD/YYYY"');
    expect(hintFor(date, { mapped: true, dateFormats: ["DD/MM/YYYY", "MM/DD/YYYY"] })).toEndWith(
      ', e.g. "dates": "DD/MM/YYYY" (or "MM/DD/YYYY", if the month comes first)',
    );
    expect(hintFor({ field: "days", problem: "", code: "half_day" }, { mapped: true, column: "Amount (days)" })).toBe(
      '; to leave the column out, name it under "columns": {"Amount (days)": null}',
    );
    // Without a column of another name there is no map to point to: the message says it all.
    expect(hintFor({ field: "days", problem: "", code: "half_day" }, { mapped: false })).toBe("");
    expect(hintFor({ field: "first_name", problem: "", code: "required" }, { mapped: true, column: "Vorname" })).toBe(
      '; fill the cell, or give empty cells one value under "defaults", e.g. "defaults": {"first_name": "…"}',
    );
    expect(hintFor({ field: "first_name", problem: "", code: "required" }, { mapped: false })).toBe("");
  });

  test("a date hint names the format every wrong date of the file fits, known once all are read", () => {
    const r = new ProblemReport({ label: "x.csv", mapped: true, defaults: [], describeField: (f) => f });
    r.add(2, { field: "start_date", problem: "p", code: "date_format", value: "03/02/2026" });
    r.add(3, { field: "start_date", problem: "p", code: "date_format", value: "12/21/2026" });
    expect(r.list.listed().map((l) => l.slice(l.indexOf("e.g.")))).toEqual(['e.g. "dates": "MM/DD/YYYY"', 'e.g. "dates": "MM/DD/YYYY"']);
  });

  test("the closing count puts header problems apart from rows", () => {
    expect(describeCount(4, 1, 3)).toBe("1 header problem and 3 problems in 3 rows");
    expect(describeCount(3, 3, 0)).toBe("3 header problems");
    expect(describeCount(1, 0, 0)).toBe("1 problem");
    expect(describeCount(2, 0, 1)).toBe("2 problems in 1 row");
  });
});

test("columns that map to no field are ONE problem naming ignore_unmapped and each column as null", () => {
  expect(unmappedColumns("employees", ["E-Mail", "Standort", "Wochenstunden"], true)).toEqual([
    {
      field: "header",
      code: "unknown_columns",
      problem: expect.stringContaining(
        'columns "E-Mail", "Standort", "Wochenstunden" map to no field of employees; to leave them out, set "ignore_unmapped": true in the map, or name each under "columns": {"E-Mail": null, "Standort": null, "Wochenstunden": null}; the fields are id, external_id,',
      ),
    },
  ]);
  expect(unmappedColumns("employees", [], true)).toEqual([]);
});

const setup = importSetup;
const ok = landed;
const errorsOf = (outcome: ImportOutcome) => (outcome.ok ? [] : outcome.errors);

test("days with half a day need a half-day flag; with one, or whole days, they are taken", async () => {
  const { run } = await setup();
  ok(await run("employees", file("csv", "external_id,first_name,last_name,status\nE1,Ada,Lovelace,active\n")));
  const header =
    "external_id,employee_external_id,leave_type_name,leave_type_category,leave_type_is_paid,start_date,end_date,days,start_half_day,start_half_period,status";
  const bad = file(
    "csv",
    `${header}\nB1,E1,Annual,annual,true,2026-03-02,2026-03-02,0.5,,,approved\nB2,E1,Annual,annual,true,2026-03-03,2026-03-04,1.5,false,,approved\n`,
  );
  expect(errorsOf(await run("leave", bad))).toEqual(
    [2, 3].map(
      (line, i) =>
        `${bad}:${line}: days: ${["0.5", "1.5"][i]} includes half a day, but neither start_half_day nor end_half_day is true; mark the half day (start_half_day true and start_half_period am or pm, or the same for the end), or leave days out to have it worked out`,
    ),
  );
  ok(
    await run(
      "leave",
      file(
        "csv",
        `${header}\nB1,E1,Annual,annual,true,2026-03-02,2026-03-02,0.5,true,am,approved\nB2,E1,Annual,annual,true,2026-03-03,2026-03-04,2,,,approved\n`,
      ),
    ),
  );
});

test("a dry run of --prune lists who would go, by external id and name; the import itself deletes them", async () => {
  const { world, org, run } = await setup();
  const everyone = [
    ["E1", "Ada", "Lovelace"],
    ["E2", "Grace", "Hopper"],
    ["E3", "Alan", "Turing"],
    ["E4", "Edsger", "Dijkstra"],
    ["E5", "Barbara", "Liskov"],
  ];
  const csv = (rows: string[][]) => file("csv", `external_id,first_name,last_name,status\n${rows.map((r) => `${r.join(",")},active`).join("\n")}\n`);
  ok(await run("employees", csv(everyone)));
  const dry = ok(await run("employees", csv(everyone.filter(([id]) => id !== "E3")), { dryRun: true, prune: { maxPercent: 25 } }));
  expect(dry.pruned).toBe(1);
  expect(dry.prunedList?.map(({ external_id, name }) => ({ external_id, name }))).toEqual([{ external_id: "E3", name: "Alan Turing" }]);
  expect(await world.store.listEmployees({ organisationId: org, filters: {}, limit: 10 })).toHaveLength(5);
});
