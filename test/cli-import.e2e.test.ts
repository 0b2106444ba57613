/**
 * `leaveapi import` as an operator meets it (docs/cli.md, "import", "The import format"):
 * the rules on names (required: missing, null, an empty CSV cell, "" and blanks are
 * refused) and dates, every problem as FILE:LINE: field (CSV syntax and header problems
 * included, a header's at line 1), a closing count equal to the lines printed,
 * a hint for CSV piped without --format, one --json document on failure too, the public
 * holiday calendar-years a file replaces, and --dry-run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, runJson, scratchDir } from "./cli-harness.ts";
import { importColumns } from "../scripts/import/normalise-records.ts";

let scratch: ReturnType<typeof scratchDir>;
let db: string[];
let org: string;

beforeAll(async () => {
  scratch = scratchDir();
  db = ["--db", join(scratch.dir, "import.sqlite")];
  org = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Import Ltd"])).id;
});
afterAll(() => scratch.dispose());

let files = 0;
function file(extension: string, text: string): string {
  const path = join(scratch.dir, `f${++files}.${extension}`);
  writeFileSync(path, text);
  return path;
}
const jsonlFile = (records: object[]) => file("jsonl", records.map((r) => JSON.stringify(r)).join("\n"));
/** The line a name left out, null, empty or blank is refused with. */
const nameRefused = (path: string, line: number, field: "first_name" | "last_name") => `${path}:${line}: ${field}: is required and must not be empty`;
const importing = (kind: string, path: string, ...extra: string[]) => runCli([...db, "import", "--org", org, "--kind", kind, path, ...extra]);

/** The problem lines and the closing line; checks that the closing count is the number of lines printed. */
function problemsOf(stderr: string): string[] {
  const lines = stderr.trimEnd().split("\n");
  const closing = lines.pop()!;
  // "2 header problems and 3 problems in 3 rows": every problem printed is counted once.
  const counts = /import failed: (?:(\d+) header problems?)?(?: and )?(?:(\d+) problems?)?/.exec(closing);
  const count = Number(counts?.[1] ?? 0) + Number(counts?.[2] ?? 0);
  expect(count).toBe(lines.length);
  expect(closing).toContain("nothing was written");
  return lines;
}

describe("rules", () => {
  test("leaving_date before start_date, and an empty or blank first_name or last_name, are refused", async () => {
    const path = jsonlFile([
      { external_id: "R1", first_name: "Ada", last_name: "L", status: "active", start_date: "2024-05-01", leaving_date: "2024-04-30" },
      { external_id: "R2", first_name: "", last_name: "  ", status: "active" },
      { external_id: "R3", first_name: "Ok", last_name: "Fine", status: "active", start_date: "2024-05-01", leaving_date: "2024-05-01" },
    ]);
    const result = await importing("employees", path);
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      `${path}:1: leaving_date: is before start_date 2024-05-01`,
      nameRefused(path, 2, "first_name"),
      nameRefused(path, 2, "last_name"),
    ]);
    expect(result.stderr).toContain("import failed: 3 problems in 2 rows; nothing was written");
  });

  test("JSONL: a null or absent first_name or last_name is refused", async () => {
    const path = jsonlFile([
      { external_id: "N1", first_name: null, last_name: "Lovelace", status: "active" },
      { external_id: "N2", last_name: null, status: "active" },
      { external_id: "N3", first_name: "Grace", status: "active" },
      { external_id: "N4", first_name: "Alan", last_name: "Turing", status: "active" },
    ]);
    const result = await importing("employees", path);
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      nameRefused(path, 1, "first_name"),
      nameRefused(path, 2, "first_name"),
      nameRefused(path, 2, "last_name"),
      nameRefused(path, 3, "last_name"),
    ]);
    expect(result.stderr).toContain("import failed: 4 problems in 3 rows; nothing was written");
  });

  test("CSV: an empty cell (quoted or not) or a missing column for first_name or last_name is refused", async () => {
    const empty = file("csv", 'external_id,first_name,last_name,status\nC1,,Lovelace,active\nC2,Grace,,active\nC3,"",Turing,active\nC4,Ada,Lovelace,active\n');
    const cells = await importing("employees", empty);
    expect(cells.code).toBe(1);
    expect(problemsOf(cells.stderr)).toEqual([nameRefused(empty, 2, "first_name"), nameRefused(empty, 3, "last_name"), nameRefused(empty, 4, "first_name")]);
    const absent = file("csv", "external_id,last_name,status\nC5,Hopper,active\n");
    const columns = await importing("employees", absent);
    expect(columns.code).toBe(1);
    // A column every row needs is told once, at the header, with the map key that gives it.
    expect(problemsOf(columns.stderr)).toEqual([
      `${absent}:1: first_name: every row needs first_name, and the file has no column for it; give one value for every row under a --map file's "defaults", e.g. "defaults": {"first_name": "…"}, or name the column that holds it under "columns"`,
    ]);
    expect(columns.stderr).toContain("import failed: 1 header problem; nothing was written");
    // Nothing was written: named, the same employees would all be new.
    const named = file("csv", "external_id,first_name,last_name,status\nC1,Ada,Lovelace,active\nC5,Grace,Hopper,active\n");
    expect(JSON.parse((await importing("employees", named, "--dry-run", "--json")).stdout)).toMatchObject({ ok: true, created: 2 });
  });
});

describe("every problem as FILE:LINE: field", () => {
  test("an unknown CSV column is one problem at line 1, not one per row; row problems still follow", async () => {
    const path = file("csv", "external_id,first_name,last_name,status,colour\nE1,Ada,L,active,red\nE2,Bob,M,Active!,blue\n");
    const result = await importing("employees", path);
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      `${path}:1: column "colour" maps to no field of employees; to leave it out, set "ignore_unmapped": true in a --map file, or name it under "columns": {"colour": null}; the fields are ${importColumns("employees", true).join(", ")}`,
      `${path}:3: status: "Active!" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"Active!": "active"}} in a --map file`,
    ]);
  });

  test("an unclosed CSV quote is named at the line its record starts on, in the same form", async () => {
    const path = file("csv", 'external_id,first_name,last_name,status\nE1,Ada,L,active\nE2,"Bob,M,active\nE3,C,D,active\n');
    const result = await importing("employees", path);
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toEqual([
      `${path}:3: row: is not valid CSV: a quoted field starts here and is never closed (a closing " is missing); reading stopped at this line`,
    ]);
  });

  test("a header problem is at line 1", async () => {
    const path = file("csv", "external_id,first_name,last_name,status,status\nE1,Ada,L,active,active\n");
    const result = await importing("employees", path);
    expect(problemsOf(result.stderr)).toEqual([`${path}:1: header: column "status" appears twice`]);
  });

  test("CSV piped on stdin without --format: the closing line says to pass --format", async () => {
    const result = await runCli([...db, "import", "--org", org, "--kind", "employees", "-"], {
      stdin: "external_id,first_name,last_name,status\nE1,Ada,L,active\n",
    });
    expect(result.code).toBe(1);
    expect(problemsOf(result.stderr)).toHaveLength(2);
    expect(result.stderr).toEndWith("; stdin is read as JSON Lines: pass --format csv or --format json for other formats\n");
  });

  test("--json on failure prints one document with the problems", async () => {
    const path = file("jsonl", `${JSON.stringify({ external_id: "J1", first_name: "Ada", last_name: "L", status: "Active!" })}\n`);
    const result = await importing("employees", path, "--json");
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      problems: [
        `${path}:1: status: "Active!" is not a status; statuses are lower-case letters and "_" (at most 30) such as active or terminated; map it under "values", e.g. "values": {"status": {"Active!": "active"}} in a --map file`,
      ],
      problem_count: 1,
      header_problems: 0,
      invalid_rows: 1,
      codes: ["not_a_word"],
    });
    const missing = await importing("employees", join(scratch.dir, "absent.csv"), "--json");
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, problems: [`${join(scratch.dir, "absent.csv")}: cannot read: no such file`] });
  });

  test("--json prints one document when the organisation is unknown, too", async () => {
    const path = file("jsonl", `${JSON.stringify({ external_id: "J2", first_name: "Ada", last_name: "L", status: "active" })}\n`);
    const unknown = "6f1f3a52-2d53-4d3c-9a43-2b8f0e3f5a10";
    const result = await runCli([...db, "import", "--org", unknown, "--kind", "employees", path, "--json"]);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout) as { ok: boolean; problems: string[] };
    expect(document.ok).toBe(false);
    expect(document.problems).toHaveLength(1);
    expect(document.problems[0]).toContain(unknown);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("public holidays", () => {
  test("the summary names each calendar-year replaced and how many shipped holidays it hides", async () => {
    const path = file("jsonl", `${JSON.stringify({ type: "public", calendar: "GB-ENG", date: "2026-08-03", name: "Not the real one" })}\n`);
    const human = await importing("holidays", path);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      "imported 1 row of holidays into Import Ltd: 1 created, 0 updated, 0 unchanged, 0 deleted\n" +
        "public holidays GB-ENG 2026: replaced by the file's 1 (in place of the 9 shipped holidays; 9 of them no longer holidays for this organisation)\n",
    );
    const back = file("jsonl", `${JSON.stringify({ type: "public", calendar: "GB-ENG", date: "2026-08-03", deleted: true })}\n`);
    const reverted = await runJson<{ public_holidays: unknown[] }>([...db, "import", "--org", org, "--kind", "holidays", back]);
    expect(reverted.public_holidays).toEqual([{ calendar: "GB-ENG", year: 2026, holidays: 0, shipped: 9, shipped_hidden: 0 }]);
  });
});

describe("--dry-run", () => {
  test("checks, prints what would change, and writes nothing", async () => {
    const path = join(import.meta.dir, "..", "examples", "import", "employees.csv");
    const fresh = (await runJson<{ id: string }>([...db, "org", "create", "--name", "Dry Ltd"])).id;
    const dry = await runJson<Record<string, unknown>>([...db, "import", "--org", fresh, "--kind", "employees", path, "--dry-run"]);
    const { columns, first_rows, ...counts } = dry as { columns: { column: string; field: string }[]; first_rows: { external_id: string }[] };
    expect(counts).toEqual({ ok: true, dry_run: true, rows: 3, created: 3, updated: 0, unchanged: 0, deleted: 0, public_holidays: [], skipped_columns: [] });
    // The columns as read, and the first rows as they would be stored (ids derived from external_id).
    expect(columns[0]).toEqual({ column: "external_id", field: "external_id" });
    expect(first_rows.map((r) => r.external_id)).toEqual(["E001", "E002", "E003"]);
    const human = await runCli([...db, "import", "--org", fresh, "--kind", "employees", path, "--dry-run"]);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("would import 3 rows of employees into Dry Ltd: 3 created, 0 updated, 0 unchanged, 0 deleted");
    expect(lines).toContain("columns:");
    expect(lines.slice(-5, -1)[0]).toBe("first rows as they would be stored:");
    expect(lines.at(-1)).toBe("dry run: nothing was written");
    // Nothing was written: the real import still creates all three.
    expect((await runJson<{ created: number }>([...db, "import", "--org", fresh, "--kind", "employees", path])).created).toBe(3);
    const again = await runJson<{ unchanged: number }>([...db, "import", "--org", fresh, "--kind", "employees", path, "--dry-run"]);
    expect(again.unchanged).toBe(3);

    const bad = await runCli([
      ...db,
      "import",
      "--org",
      fresh,
      "--kind",
      "employees",
      file("jsonl", '{"external_id":"X","first_name":"Ada","last_name":"L"}\n'),
      "--dry-run",
    ]);
    expect(bad.code).toBe(1);
    expect(problemsOf(bad.stderr)).toEqual([expect.stringContaining(":1: status: is required")]);
  });

  test("--help shows --dry-run; a typo of it gets the nearest flag", async () => {
    expect((await runCli(["import", "--help"])).stdout).toContain("--dry-run");
    const typo = await runCli([...db, "import", "--org", org, "--kind", "employees", "--dryrun", "x.csv"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr.split("\n")[0]).toBe("leaveapi: unknown option --dryrun; did you mean --dry-run?");
  });
});
