import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { readXlsx } from "../scripts/import/read-xlsx.ts";
import { excelDate, isDateFormat, numberText } from "../scripts/import/xlsx-values.ts";
import { CsvHeader, FileProblem, UnreadableRecord, type SourceRecord } from "../scripts/import/source.ts";
import { unpackedSize, writeXlsx, writeZip, writeZipBomb, type WriteXlsxOptions, type XlsxCell, type XlsxSheet } from "./xlsx-files.ts";

const dir = mkdtempSync(join(tmpdir(), "leaveapi-read-xlsx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function workbook(sheets: XlsxSheet[] | XlsxCell[][], options?: WriteXlsxOptions): Promise<string> {
  const path = join(dir, `book-${++files}.xlsx`);
  const list = Array.isArray(sheets[0]) || sheets.length === 0 ? [{ name: "Sheet1", rows: sheets as XlsxCell[][] }] : (sheets as XlsxSheet[]);
  await writeXlsx(path, list, options);
  return path;
}

async function readAll(path: string, options?: { sheet?: string }): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  for await (const record of readXlsx(path, options)) records.push(record);
  return records;
}

/** The FileProblem reading stops with. */
async function problemOf(path: string, options?: { sheet?: string }): Promise<FileProblem> {
  const error = await readAll(path, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileProblem);
  return error as FileProblem;
}

/** Counts what every inflate stream made (yauzl inflates with node:zlib's createInflateRaw), while `run` runs. */
async function countInflated<T>(run: () => Promise<T>): Promise<{ result: T; inflated: number }> {
  const original = zlib.createInflateRaw;
  let inflated = 0;
  zlib.createInflateRaw = (options?: zlib.ZlibOptions) => {
    const stream = original(options);
    stream.on("data", (chunk: Uint8Array) => (inflated += chunk.length));
    return stream;
  };
  try {
    return { result: await run(), inflated };
  } finally {
    zlib.createInflateRaw = original;
  }
}

const HEADER = ["id", "value"];

describe("cell values, as a person would read them", () => {
  const rows: [XlsxCell, string | null][] = [
    [" text with spaces ", " text with spaces "],
    [12345, "12345"],
    [123456789012345, "123456789012345"],
    [1.5, "1.5"],
    [0.5, "0.5"],
    [0.1 + 0.2, "0.3"],
    [7.000000000000001, "7"],
    [0.0000001, "0.0000001"],
    [-42, "-42"],
    [new Date(Date.UTC(2024, 4, 1)), "2024-05-01"],
    [new Date(Date.UTC(2024, 4, 1, 8, 30)), "2024-05-01T08:30:00Z"],
    [{ date: 45413, format: "dd.mm.yyyy" }, "2024-05-01"],
    [{ date: 45413, format: "yyyy-mm-dd" }, "2024-05-01"],
    [{ date: 45413.75, format: "mm/dd/yyyy hh:mm" }, "2024-05-01T18:00:00Z"],
    [{ date: 45413, format: '#,##0.00 "days"' }, "45413"],
    [{ date: 45413.25, format: "[Red]0.00" }, "45413.25"],
    [true, "true"],
    [false, "false"],
    [{ error: "#N/A" }, "#N/A"],
    [{ formula: 'A1&"x"', result: "1x" }, "1x"],
    [{ formula: "SUM(A1:A3)", result: 6 }, "6"],
    [{ richText: ["bold ", "and not"] }, "bold and not"],
    [{ isoDate: "2024-05-01T10:00:00" }, "2024-05-01T10:00:00"],
    ["", null],
  ];
  const sheet = [HEADER, ...rows.map(([cell], i) => [i + 1, cell])];
  const expected = rows.map(([, text], i) => ({ id: String(i + 1), value: text }));

  for (const options of [{ strings: "shared" }, { strings: "inline" }, { strings: "shared", sharedStringsFirst: true }] as WriteXlsxOptions[]) {
    test(`each kind of cell (${JSON.stringify(options)})`, async () => {
      const records = await readAll(await workbook(sheet, options));
      expect(records[0]).toEqual({ line: 1, record: new CsvHeader(HEADER) });
      expect(records.slice(1).map((r) => r.record)).toEqual(expected);
      expect(records.slice(1).map((r) => r.line)).toEqual(rows.map((_, i) => i + 2));
    });
  }

  test("a cell left out or empty is null; a row of only empty cells is skipped", async () => {
    const records = await readAll(await workbook([["a", "b", "c"], [null, "x"], ["", null, ""], ["y"]]));
    expect(records.slice(1)).toEqual([
      { line: 2, record: { a: null, b: "x", c: null } },
      { line: 4, record: { a: "y", b: null, c: null } },
    ]);
  });

  test("dates of the 1904 date system", async () => {
    const path = await workbook([["d"], [new Date(Date.UTC(2024, 4, 1))], [{ date: 0, format: "dd.mm.yyyy" }]], { date1904: true });
    expect((await readAll(path)).slice(1).map((r) => r.record)).toEqual([{ d: "2024-05-01" }, { d: "1904-01-01" }]);
  });

  test("excelDate: the 1900 system keeps Lotus's 1900-02-29, the 1904 system starts at 0", () => {
    expect(excelDate(1, false)).toBe("1900-01-01");
    expect(excelDate(59, false)).toBe("1900-02-28");
    expect(excelDate(60, false)).toBe("1900-02-29");
    expect(excelDate(61, false)).toBe("1900-03-01");
    expect(excelDate(45413, false)).toBe("2024-05-01");
    expect(excelDate(45413.999999, false)).toBe("2024-05-02");
    expect(excelDate(45413.5 + 1 / 86_400, false)).toBe("2024-05-01T12:00:01Z");
    expect(excelDate(2_958_465, false)).toBe("9999-12-31");
    expect(excelDate(2_958_466, false)).toBeNull();
    expect(excelDate(-1, false)).toBeNull();
    expect(excelDate(0, true)).toBe("1904-01-01");
    expect(excelDate(43951, true)).toBe("2024-05-01");
  });

  test("isDateFormat: d, m, y, h or s outside quotes, brackets and escapes", () => {
    for (const code of ["dd.mm.yyyy", "yyyy-mm-dd", "mm/dd/yyyy hh:mm", "[$-407]d. mmmm yyyy", "h:mm AM/PM", "[h]:mm:ss"])
      expect(isDateFormat(code)).toBe(true);
    for (const code of ["0.00", "#,##0", '0 "days"', "[Red]0.00", "\\d0", "General", "0.00E+00"]) expect(isDateFormat(code)).toBe(false);
  });

  test("numberText: 15 significant digits, no exponent below 1e21", () => {
    expect(numberText("7.0000000000000009")).toBe("7");
    expect(numberText("0.30000000000000004")).toBe("0.3");
    expect(numberText("1.2345678901234567E+19")).toBe("12345678901234600000");
    expect(numberText("1E-10")).toBe("0.0000000001");
    expect(numberText("-2.5E-7")).toBe("-0.00000025");
    expect(numberText("1e21")).toBe("1e+21");
    expect(numberText("not a number")).toBe("not a number");
  });
});

describe("rows and the header", () => {
  test("row numbers are the sheet's, blank rows and all; the header is the first row with a value", async () => {
    const path = await workbook([[], [null, null], [" id ", "name"], [1, "a"], [], [], [3, "c"]]);
    expect(await readAll(path)).toEqual([
      { line: 3, record: new CsvHeader(["id", "name"]) },
      { line: 4, record: { id: "1", name: "a" } },
      { line: 7, record: { id: "3", name: "c" } },
    ]);
  });

  test("a value in a column without a header is an unreadable row, named by its letter", async () => {
    const path = await workbook([
      ["id", "name"],
      [1, "a", null, null, null, "stray"],
      [2, "b"],
    ]);
    expect((await readAll(path)).slice(1)).toEqual([
      { line: 2, record: new UnreadableRecord("has a value in column F, which has no header") },
      { line: 3, record: { id: "2", name: "b" } },
    ]);
  });

  test("a row of over 1 MiB of cells is an unreadable row, as a CSV record would be; reading goes on", async () => {
    const half = "x".repeat(524_288);
    const path = await workbook([
      ["a", "b", "c"],
      [half, half, "y"],
      [half, half, null],
    ]);
    expect((await readAll(path)).slice(1)).toEqual([
      { line: 2, record: new UnreadableRecord("has 1,048,577 bytes of cells; a row may be at most 1 MiB (1,048,576 bytes)") },
      { line: 3, record: { a: half, b: half, c: null } },
    ]);
  });

  test("a header column without a name, or a name twice, stops reading at the header's row", async () => {
    let problem = await problemOf(await workbook([[], ["id", null, "name"], [1, 2, 3]]));
    expect([problem.message, problem.line]).toEqual(["header: column B has no name", 2]);
    problem = await problemOf(await workbook([["id", "name", " id"]]));
    expect([problem.message, problem.line]).toEqual(['header: column "id" appears twice', 1]);
  });

  test("--sheet picks a sheet by name, as Excel does regardless of case; the first sheet is the default", async () => {
    const path = await workbook([
      { name: "Sheet1", rows: [["a"], ["first"]] },
      { name: "Data", rows: [["b"], ["second"]] },
    ]);
    expect((await readAll(path)).map((r) => r.record)).toEqual([new CsvHeader(["a"]), { a: "first" }]);
    expect((await readAll(path, { sheet: "Data" })).map((r) => r.record)).toEqual([new CsvHeader(["b"]), { b: "second" }]);
    expect((await readAll(path, { sheet: "data" })).map((r) => r.record)).toEqual([new CsvHeader(["b"]), { b: "second" }]);
    const problem = await problemOf(path, { sheet: "Staff" });
    expect([problem.message, problem.line]).toEqual(['no sheet named "Staff"; the sheets are "Sheet1", "Data"', null]);
  });

  test("prefixed element names, cells and rows without references, relationships by absolute path", async () => {
    const ns =
      'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    const path = join(dir, "prefixed.xlsx");
    await writeZip(path, [
      ["xl/workbook.xml", `<x:workbook ${ns}><x:sheets><x:sheet name="S" sheetId="1" r:id="rId7"/></x:sheets></x:workbook>`],
      [
        "xl/_rels/workbook.xml.rels",
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/xl/sheets/../worksheets/data.xml"/></Relationships>',
      ],
      [
        "xl/worksheets/data.xml",
        `<x:worksheet ${ns}><x:sheetData><x:row><x:c t="inlineStr"><x:is><x:t>h1</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t><![CDATA[h&2]]></x:t></x:is></x:c></x:row>` +
          '<x:row><x:c><x:v>1</x:v></x:c><x:c t="str"><x:f>A2</x:f><x:v>a &amp; b</x:v></x:c></x:row></x:sheetData></x:worksheet>',
      ],
    ]);
    expect(await readAll(path)).toEqual([
      { line: 1, record: new CsvHeader(["h1", "h&2"]) },
      { line: 2, record: { h1: "1", "h&2": "a & b" } },
    ]);
  });
});

describe("shared strings: only those of the columns read are kept", () => {
  /** A sheet of shared strings only: 2,000 strings, the header's after the first 1,024 (where the scan keeps no text). */
  async function stringsBook(): Promise<string> {
    const path = join(dir, `strings-${++files}.xlsx`);
    const strings = Array.from({ length: 2000 }, (_, i) => `<si><t>s${i}</t></si>`);
    const row = (r: number, indices: (number | string)[]) => `<row r="${r}">${indices.map((i) => `<c t="s"><v>${i}</v></c>`).join("")}</row>`;
    await writeZip(path, [
      ["xl/workbook.xml", '<workbook xmlns:r="urn:r"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>'],
      ["xl/worksheets/sheet1.xml", `<worksheet><sheetData>${row(1, [1500, 1501, 1502])}${row(2, [7, 8, 9])}${row(3, [10, 11, 1999])}</sheetData></worksheet>`],
      ["xl/sharedStrings.xml", `<sst>${strings.join("")}</sst>`],
    ]);
    return path;
  }

  test("a header of strings past the first 1,024 is read; every column by default", async () => {
    expect((await readAll(await stringsBook())).map((r) => r.record)).toEqual([
      new CsvHeader(["s1500", "s1501", "s1502"]),
      { s1500: "s7", s1501: "s8", s1502: "s9" },
      { s1500: "s10", s1501: "s11", s1502: "s1999" },
    ]);
  });

  test("columnsRead: records have the columns read and leave the others out", async () => {
    const records: SourceRecord[] = [];
    for await (const record of readXlsx(await stringsBook(), { columnsRead: (names) => new Set(names.filter((n) => n !== "s1501")) })) records.push(record);
    expect(records.map((r) => r.record)).toEqual([new CsvHeader(["s1500", "s1501", "s1502"]), { s1500: "s7", s1502: "s9" }, { s1500: "s10", s1502: "s1999" }]);
  });

  test("a cell that refers to a string the table does not have stops reading at its row", async () => {
    const path = join(dir, "bad-index.xlsx");
    await writeZip(path, [
      ["xl/workbook.xml", '<workbook xmlns:r="urn:r"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>'],
      [
        "xl/worksheets/sheet1.xml",
        '<worksheet><sheetData><row r="1"><c t="s"><v>0</v></c></row><row r="2"><c t="s"><v>99</v></c></row></sheetData></worksheet>',
      ],
      ["xl/sharedStrings.xml", "<sst><si><t>a</t></si></sst>"],
    ]);
    const problem = await problemOf(path);
    expect([problem.message, problem.line]).toEqual(["row: a cell refers to shared string 99, which the workbook does not have", 2]);
  });
});

describe("files that are not workbooks", () => {
  test("a missing file, a directory", async () => {
    expect((await problemOf(join(dir, "missing.xlsx"))).message).toBe("cannot read: no such file");
    mkdirSync(join(dir, "folder.xlsx"));
    expect((await problemOf(join(dir, "folder.xlsx"))).message).toBe("is a directory, not a file");
  });

  test("a CSV named .xlsx, a zip without a workbook", async () => {
    writeFileSync(join(dir, "csv.xlsx"), "id,name\n1,a\n");
    expect((await problemOf(join(dir, "csv.xlsx"))).message).toStartWith("is not an .xlsx workbook (it is not a zip archive");
    await writeZip(join(dir, "other.xlsx"), [["content.xml", "<office:document/>"]]);
    expect((await problemOf(join(dir, "other.xlsx"))).message).toBe("is not an .xlsx workbook (it is a zip archive without xl/workbook.xml)");
  });

  test("a password-protected workbook (an OLE compound file)", async () => {
    const ole = new Uint8Array(4096);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    writeFileSync(join(dir, "protected.xlsx"), ole);
    expect((await problemOf(join(dir, "protected.xlsx"))).message).toStartWith(
      "is not an .xlsx workbook; if it is password-protected, save it without a password",
    );
  });

  test("malformed XML in the sheet", async () => {
    const path = join(dir, "malformed.xlsx");
    await writeZip(path, [
      ["xl/workbook.xml", '<workbook><sheets><sheet name="S" r:id="rId1" xmlns:r="urn:r"/></sheets></workbook>'],
      ["xl/worksheets/sheet1.xml", "<worksheet><sheetData><row r='1'><c><v>1</v></row></sheetData></worksheet>"],
    ]);
    expect((await problemOf(path)).message).toStartWith("is not an .xlsx workbook (its part xl/worksheets/sheet1.xml cannot be read: ");
  });
});

describe("the workbook's lists are capped", () => {
  test("more than 65,536 cell formats; sheet names over 1 MiB in all", async () => {
    const book = '<workbook xmlns:r="urn:r"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>';
    const sheet = ["xl/worksheets/sheet1.xml", "<worksheet><sheetData/></worksheet>"] as [string, string];
    await writeZip(join(dir, "styles.xlsx"), [
      ["xl/workbook.xml", book],
      sheet,
      ["xl/styles.xml", `<styleSheet><cellXfs>${"<xf/>".repeat(65_537)}</cellXfs></styleSheet>`],
    ]);
    expect((await problemOf(join(dir, "styles.xlsx"))).message).toBe(
      "is refused: its styles hold more than 65,536 cell formats, which no workbook has (a damaged file or an attack)",
    );
    const names = Array.from({ length: 1100 }, (_, i) => `<sheet name="${"n".repeat(1000)}${i}" r:id="rId${i}"/>`).join("");
    await writeZip(join(dir, "sheets.xlsx"), [["xl/workbook.xml", `<workbook xmlns:r="urn:r"><sheets>${names}</sheets></workbook>`], sheet]);
    expect((await problemOf(join(dir, "sheets.xlsx"))).message).toBe(
      "is refused: its list of sheets and parts is over 1 MiB, which no workbook has (a damaged file or an attack)",
    );
  });
});

describe("zip bombs are refused with next to nothing inflated", () => {
  test("a part that inflates to more than its header declares is stopped there", async () => {
    const path = join(dir, "lying.xlsx");
    await writeZipBomb(path, "lying");
    const { result: problem, inflated } = await countInflated(() => problemOf(path));
    expect(problem.message).toBe(
      "is refused: its part xl/worksheets/sheet1.xml unpacks to more than the 300,000 bytes it declares (a damaged file or a zip bomb); reading stopped",
    );
    expect(inflated).toBeLessThan(1_000_000);
  });

  test("a part that claims to unpack to over 1000 times its packed size", async () => {
    const path = join(dir, "dense.xlsx");
    await writeZipBomb(path, "dense");
    const { result: problem, inflated } = await countInflated(() => problemOf(path));
    expect(problem.message).toMatch(/^is refused: its part xl\/worksheets\/sheet1\.xml claims to unpack [\d,]+ bytes to 50,000,000, over 1000 times as many/);
    expect(inflated).toBe(0);
  });

  test("parts that claim over 200 MB in all", async () => {
    const path = join(dir, "huge.xlsx");
    await writeZipBomb(path, "huge");
    const { result: problem, inflated } = await countInflated(() => problemOf(path));
    expect(problem.message).toBe("unpacks to 301 MB; an .xlsx may unpack to at most 200 MB (split it, or save it as CSV)");
    expect(inflated).toBe(0);
  });
});

describe("a large sheet is streamed", () => {
  /** Rows of 8 columns, about 560 bytes of XML each with inline strings. */
  function* largeRows(count: number): Iterable<XlsxCell[]> {
    yield ["Personalnummer", "Vorname", "Nachname", "Eintrittsdatum", "Austrittsdatum", "Abteilung", "Status", "E-Mail"];
    for (let i = 0; i < count; i++) {
      yield [
        100_000 + i,
        `Vorname ${i % 977}`,
        `Nachname ${i}`,
        { date: 40_179 + (i % 5000), format: "dd.mm.yyyy" },
        null,
        `Abteilung ${i % 13}`,
        "aktiv",
        `person.${i}@beispiel.de`,
      ];
    }
  }
  let written: Promise<string> | undefined;
  const largeWorkbook = () => (written ??= workbook([{ name: "Large", rows: largeRows(300_000) }], { strings: "inline" }));

  test("reading the first rows of a large sheet unpacks only the start of it", async () => {
    const path = await largeWorkbook();
    const { result: first, inflated } = await countInflated(async () => {
      const records = readXlsx(path)[Symbol.asyncIterator]();
      const taken = [await records.next(), await records.next()];
      await records.return?.();
      return taken.map((r) => r.value as SourceRecord);
    });
    expect(first[1]).toEqual({
      line: 2,
      record: {
        Personalnummer: "100000",
        Vorname: "Vorname 0",
        Nachname: "Nachname 0",
        Eintrittsdatum: "2010-01-01",
        Austrittsdatum: null,
        Abteilung: "Abteilung 0",
        Status: "aktiv",
        "E-Mail": "person.0@beispiel.de",
      },
    });
    expect(inflated).toBeLessThan(1_000_000);
  }, 60_000);

  test("300,000 rows × 8 columns: what the reader keeps alive grows by far less than the sheet unpacks to", async () => {
    const path = await largeWorkbook();
    const sheetBytes = unpackedSize(path);
    expect(sheetBytes).toBeGreaterThan(150_000_000);
    // The live heap after a full collection, not RSS: other test files in the same run leave
    // garbage and a grown heap behind, which RSS would count; what is live is the reader's.
    const live = () => {
      Bun.gc(true);
      return process.memoryUsage().heapUsed;
    };
    const before = live();
    let peak = before;
    let rows = 0;
    let last: SourceRecord | undefined;
    for await (const record of readXlsx(path)) {
      if (++rows % 25_000 === 0) peak = Math.max(peak, live());
      last = record;
    }
    expect(rows).toBe(300_001);
    expect(last).toMatchObject({ line: 300_001, record: { Personalnummer: "399999", "E-Mail": "person.299999@beispiel.de" } });
    expect(peak - before).toBeLessThan(sheetBytes / 10);
  }, 120_000);
});
