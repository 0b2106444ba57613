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
