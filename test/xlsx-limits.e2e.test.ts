/**
 * The hostile workbooks of issue 35 (point 3; test/xlsx-hostile.ts), each imported through
 * the real command line (`leaveapi import --kind employees FILE.xlsx`): refused with a
 * message that names what is wrong and the limit (DECISIONS §11, "Bounded work for any
 * file"), or imported, in seconds and under 300 MB of peak RSS (the command's own, read
 * inside it: test/peak-rss.ts). Some are made smaller than the issue's, where the full
 * size would take long to write; bench/xlsx-hostile.ts runs each at full size.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runJson } from "./cli-harness.ts";
import { runMeasured, type MeasuredRun } from "./peak-rss.ts";
import { employeeRow, HOSTILE_SHAPES, longStrings, writeWorkbook, type HostileShapeName } from "./xlsx-hostile.ts";

const dir = mkdtempSync(join(tmpdir(), "leaveapi-xlsx-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, "limits.sqlite");
let org: Promise<string> | undefined;
const organisation = () => (org ??= runJson<{ id: string }>(["--db", db, "org", "create", "--name", "Limits Ltd"]).then((o) => o.id));

/** Any workbook, accepted or refused, costs at most this (DECISIONS §11). */
const MAX_PEAK_MB = 300;

/** Writes the shape at `scale` and imports it, stopped past 60 s or 1 GB (the reader before this change went far past both). */
async function importShape(name: HostileShapeName, scale = 1): Promise<MeasuredRun & { file: string }> {
  const file = join(dir, `${name}.xlsx`);
  await HOSTILE_SHAPES[name].write(file, scale);
  return importFile(file);
}

async function importFile(file: string, extra: string[] = []): Promise<MeasuredRun & { file: string }> {
  const run = await runMeasured(["--db", db, "import", "--org", await organisation(), "--kind", "employees", ...extra, file], {
    maxSeconds: 60,
    maxRssMb: 1000,
  });
  rmSync(file, { force: true });
  expect(run.stopped).toBeUndefined();
  expect(run.peakMb).toBeLessThan(MAX_PEAK_MB);
  return { ...run, file };
}

/** The problem lines a refused import printed, the file's path as FILE. */
const problems = (run: MeasuredRun & { file: string }) =>
  run.stderr
    .trim()
    .split("\n")
    .map((line) => line.replaceAll(run.file, "FILE"));

/** The import was refused for the one problem `line`, and wrote nothing. */
function expectRefused(run: MeasuredRun & { file: string }, line: string): void {
  expect([run.code, ...problems(run)]).toEqual([1, line, "leaveapi: import failed: 1 problem; nothing was written"]);
}

/** Each hostile shape that is refused: the test's name, the shape and its scale, and the one problem it is refused with. */
const REFUSED: [title: string, shape: HostileShapeName, scale: number, problem: string][] = [
  [
    "at once, a cell reference past XFD1048576: 2,000 rows with a cell at FXSHRXW",
    "far-column",
    1,
    'FILE:2: row: the cell reference "FXSHRXW2" is not one from A1 to XFD1048576, the cells a sheet can have',
  ],
  [
    'at once, a row numbered "abc", named for what it is (not line NaN)',
    "bad-row-number",
    1,
    'FILE: the sheet has a row numbered "abc"; rows are numbered from 1 to 1,048,576',
  ],
  [
    "at once, more than 10,000 zip entries, from the count the zip's end record gives",
    "many-entries",
    10_001 / 300_000,
    "FILE: is refused: its zip lists 10,004 entries; an .xlsx may have at most 10,000 (a workbook has tens: a damaged file or an attack)",
  ],
  [
    "streaming, elements nested more than 64 deep: 60,000,000 of them",
    "deep-nesting",
    1,
    "FILE: is refused: its part xl/worksheets/sheet1.xml nests elements more than 64 deep, which no workbook does (a damaged file or an attack); reading stopped",
  ],
  [
    "streaming, a row of 1,000,000 attributes: a tag over 64 KiB",
    "row-attributes",
    0.2,
    "FILE: is refused: its part xl/worksheets/sheet1.xml has a tag of over 65,536 characters (attributes and all), which no workbook has (a damaged file or an attack); reading stopped",
  ],
  [
    "streaming, a cell of 150 MB, at its first MiB",
    "huge-cell",
    1,
    "FILE:2: row: the cell in column B holds over 1 MiB (1,048,576 bytes); a cell may hold at most 1 MiB",
  ],
  [
    "streaming, the shared strings of the columns read past 64 MiB: 190 strings of 1 MB in first_name",
    "kept-strings",
    1,
    "FILE: is refused: the shared strings of the columns the import reads hold over 64 MiB of text, more than an import keeps (split the workbook, or save it as CSV)",
  ],
];

describe("refused", () => {
  for (const [title, shape, scale, problem] of REFUSED) {
    test(`${title}, in seconds`, async () => {
      const run = await importShape(shape, scale);
      expectRefused(run, problem);
      expect(run.seconds).toBeLessThan(15);
    }, 60_000);
  }

  test("a row of more than 16,384 cells", async () => {
    const file = join(dir, "wide-row.xlsx");
    await writeWorkbook(file, [`<row r="1">${"<c><v>1</v></c>".repeat(16_385)}</row>`]);
    const run = await importFile(file);
    expectRefused(run, "FILE:1: row: has more than 16,384 cells, the most a row of a sheet can have");
  }, 30_000);

  test("a shared string of over 1 MiB", async () => {
    const file = join(dir, "long-string.xlsx");
    await writeWorkbook(file, ['<row r="1"><c t="s"><v>0</v></c></row>'], {
      strings: ["<si><t>external_id</t></si><si><t>", ..."abcdefgh".split("").map((c) => c.repeat(150_000)), "</t></si>"],
    });
    const run = await importFile(file);
    expectRefused(run, "FILE: is refused: its shared string 1 holds over 1 MiB (1,048,576 bytes); a cell may hold at most 1 MiB");
  }, 30_000);
});

describe("bounded success: what is held follows what is read", () => {
  test("the shared strings of a column the map skips are not kept: 180 of 1 MB under E-Mail, the rows imported", async () => {
    const file = join(dir, "skipped-column.xlsx");
    const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
    const header = `<row r="1">${["external_id", "first_name", "last_name", "status", "E-Mail"].map((name, i) => inline(`${"ABCDE"[i]}1`, name)).join("")}</row>`;
    const rows = Array.from({ length: 180 }, (_, i) => employeeRow(i + 2, `<c r="E${i + 2}" t="s"><v>${i}</v></c>`));
    await writeWorkbook(file, [header, ...rows], { strings: longStrings(180) });
    const map = join(dir, "skip-map.json");
    writeFileSync(map, JSON.stringify({ columns: { "E-Mail": null } }));
    const run = await importFile(file, ["--map", map]);
    expect([run.code, run.stdout.trim().split("\n")]).toEqual([
      0,
      [expect.stringMatching(/^imported 180 rows of employees into Limits Ltd: /), 'skipped columns: "E-Mail"'],
    ]);
  }, 60_000);

  test("50 shared strings of 1 MB in first_name (50 MB) are kept and read, each row's first_name then too long", async () => {
    const run = await importShape("kept-strings", 50 / 190);
    const lines = problems(run);
    expect(lines[0]).toBe("FILE:2: first_name: must be at most 255 characters, not 1,040,001");
    expect(lines).toHaveLength(51);
  }, 60_000);

  test("100,000 rows with a cell at XFD: one problem a row, in time that does not follow the column letters", async () => {
    const run = await importShape("xfd-rows");
    const lines = problems(run);
    expect(lines[0]).toBe("FILE:2: row: has a value in column XFD, which has no header");
    expect(lines.at(-2)).toBe("FILE: 99000 more problems not listed (100000 in all, in 100000 rows)");
    expect(run.seconds).toBeLessThan(15);
  }, 60_000);

  test("9,000,000 shared strings that no cell uses: none kept, the row imported", async () => {
    const run = await importShape("many-strings");
    expect([run.code, run.stdout]).toEqual([0, expect.stringMatching(/^imported 1 row of employees into Limits Ltd: /)]);
  }, 60_000);

  test("38,000,000 empty shared strings", async () => {
    const run = await importShape("empty-strings");
    expect([run.code, run.stdout]).toEqual([0, expect.stringMatching(/^imported 1 row of employees into Limits Ltd: /)]);
  }, 60_000);
});
