/**
 * An Excel workbook (.xlsx): one sheet of it, read as read-csv.ts reads a CSV. The first
 * row with a value is the header (a `CsvHeader`), each later row one record of strings,
 * an empty cell `null`; a record's line is the sheet's row number, so that problems name
 * the row Excel shows. Rows without a value are skipped. Cells read as a person sees them:
 * the cached value of a formula, never the formula; numbers without binary noise (15
 * significant digits, as Excel shows them) and never in exponent form; a number in a
 * date format as an ISO date, or date and time. Excel stores no time zone: a date and
 * time is read as UTC (`2024-05-01T08:30:00Z`).
 *
 * An .xlsx is a zip of XML parts. Its central directory is read with yauzl before
 * anything is unpacked, and a file is refused whose parts claim to unpack to over 200 MB
 * in all, or one part to over 1000 times its packed size (deflate cannot do better than
 * about 1032:1: a claim past that is a zip bomb); a part that unpacks to more than it
 * declared is stopped at that point (yauzl's `validateEntrySizes`). The parts are parsed
 * with saxes, which expands no entity a document declares. The shared strings are held
 * (a cell refers to them by number); the sheet is streamed a chunk of XML at a time, and
 * a chunk's rows are handed on before the next is unpacked, so that memory follows the
 * shared strings and not the sheet.
 */
import { checkIsZip, notXlsx, openZip, parsePart, parseWholePart, xmlParser, type Entry, type ZipFile } from "./xlsx-zip.ts";
import { columnIndex, columnLetter, DATE_FORMAT_IDS, excelDate, isDateFormat, numberText, ownCopy, richText } from "./xlsx-values.ts";
import { checkedHeader, CsvHeader, FileProblem, MAX_RECORD_BYTES, UnreadableRecord, type SourceRecord } from "./source.ts";

export { MAX_XLSX_UNPACKED_BYTES } from "./xlsx-zip.ts";

export interface ReadXlsxOptions {
  /** The sheet to read, by its name; the workbook's first sheet when not given. */
  sheet?: string;
}

export async function* readXlsx(path: string, options: ReadXlsxOptions = {}): AsyncIterable<SourceRecord> {
  await checkIsZip(path);
  const { zip, parts } = await openZip(path);
  try {
    const book = await readWorkbook(zip, parts);
    const sheet = chooseSheet(book.sheets, options.sheet);
    const entry = parts.get(sheet.part);
    if (entry === undefined) throw notXlsx(`its sheet "${sheet.name}" should be at ${sheet.part}, which is missing`);
    yield* sheetRecords(sheetRows(zip, entry, book));
  } finally {
    zip.close();
  }
}

// ---- The workbook: its sheets, number formats and shared strings ----------------------

interface Sheet {
  name: string;
  /** The sheet's part in the zip, `xl/worksheets/sheet1.xml`. */
  part: string;
}

interface Workbook {
  sheets: Sheet[];
  date1904: boolean;
  /** By cell style (a cell's `s`): whether it shows its number as a date. */
  dateStyles: boolean[];
  sharedStrings: string[];
}

async function readWorkbook(zip: ZipFile, parts: Map<string, Entry>): Promise<Workbook> {
  const listed: { name: string; id: string }[] = [];
  let date1904 = false;
  await parseWholePart(
    zip,
    parts.get("xl/workbook.xml")!,
    xmlParser({
      open(name, { attributes }) {
        if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
        if (name === "sheet") {
          const id = Object.entries(attributes).find(([key]) => key.endsWith(":id"))?.[1] ?? "";
          listed.push({ name: attributes.name ?? "", id });
        }
      },
    }),
  );
  const rels = new Map<string, { type: string; part: string }>();
  const relsEntry = parts.get("xl/_rels/workbook.xml.rels");
  if (relsEntry !== undefined) {
    await parseWholePart(
      zip,
      relsEntry,
      xmlParser({
        open(name, { attributes }) {
          if (name === "Relationship" && attributes.TargetMode !== "External" && attributes.Id && attributes.Target) {
            rels.set(attributes.Id, { type: attributes.Type ?? "", part: partPath(attributes.Target) });
          }
        },
      }),
    );
  }
  const related = (type: string, fallback: string) => [...rels.values()].find((r) => r.type.endsWith(`/${type}`))?.part ?? fallback;
  const sheets = listed.map(({ name, id }, i) => ({ name, part: rels.get(id)?.part ?? `xl/worksheets/sheet${i + 1}.xml` }));
  const stylesEntry = parts.get(related("styles", "xl/styles.xml"));
  const stringsEntry = parts.get(related("sharedStrings", "xl/sharedStrings.xml"));
  return {
    sheets,
    date1904,
    dateStyles: stylesEntry ? await readDateStyles(zip, stylesEntry) : [],
    sharedStrings: stringsEntry ? await readSharedStrings(zip, stringsEntry) : [],
  };
}

/** A relationship's target as a part name: relative to xl/, or absolute from the zip's root. */
function partPath(target: string): string {
  const segments = target.startsWith("/") ? [] : ["xl"];
  for (const segment of target.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  return segments.join("/");
}

function chooseSheet(sheets: Sheet[], wanted: string | undefined): Sheet {
  if (wanted === undefined) {
    if (sheets[0] === undefined) throw notXlsx("its workbook lists no sheets");
    return sheets[0];
  }
  // Excel keeps sheet names unique regardless of case, and finds them so.
  const sheet = sheets.find((s) => s.name === wanted) ?? sheets.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
  if (sheet !== undefined) return sheet;
  const names = sheets.map((s) => JSON.stringify(s.name)).join(", ");
  throw new FileProblem(`no sheet named ${JSON.stringify(wanted)}; ${sheets.length === 0 ? "the workbook has no sheets" : `the sheets are ${names}`}`);
}

async function readDateStyles(zip: ZipFile, entry: Entry): Promise<boolean[]> {
  const customDates = new Map<string, boolean>();
  const styles: boolean[] = [];
  let inCellXfs = false;
  await parseWholePart(
    zip,
    entry,
    xmlParser({
      open(name, { attributes }) {
        if (name === "numFmt" && attributes.numFmtId) customDates.set(attributes.numFmtId, isDateFormat(attributes.formatCode ?? ""));
        else if (name === "cellXfs") inCellXfs = true;
        else if (name === "xf" && inCellXfs) {
          const id = attributes.numFmtId ?? "0";
          styles.push(customDates.get(id) ?? DATE_FORMAT_IDS.has(Number(id)));
        }
      },
      close(name) {
        if (name === "cellXfs") inCellXfs = false;
      },
    }),
  );
  return styles;
}

/** The shared strings table, each entry's text runs joined; phonetic guides (`rPh`) left out. */
async function readSharedStrings(zip: ZipFile, entry: Entry): Promise<string[]> {
  const strings: string[] = [];
  const text = richText();
  await parseWholePart(
    zip,
    entry,
    xmlParser({
      open: text.open,
      close(name) {
        if (name === "si") strings.push(ownCopy(text.take()));
        else text.close(name);
      },
      text: text.text,
    }),
  );
  return strings;
}

// ---- The sheet: rows of cells, and cells as text ------------------------------------------

interface SheetRow {
  line: number;
  /** By column (A is 0); a missing or empty cell is absent or null. */
  cells: (string | null)[];
}

/** The sheet's rows in order, each handed on once the chunk of XML it ends in is parsed. */
async function* sheetRows(zip: ZipFile, entry: Entry, book: Workbook): AsyncIterable<SheetRow> {
  const ready: SheetRow[] = [];
  let row: SheetRow = { line: 0, cells: [] };
  let cell = { column: 0, type: "n", style: 0, value: null as string | null };
  let inValue = false;
  let inInline = false;
  const inline = richText();
  const parser = xmlParser({
    open(name, { attributes }) {
      if (name === "row") {
        row = { line: attributes.r ? Number(attributes.r) : row.line + 1, cells: [] };
      } else if (name === "c") {
        const column = attributes.r ? columnIndex(attributes.r) : row.cells.length;
        cell = { column, type: attributes.t ?? "n", style: Number(attributes.s ?? 0), value: null };
      } else if (name === "v") {
        inValue = true;
        cell.value = "";
      } else if (name === "is") {
        inInline = true;
      } else if (inInline) {
        inline.open(name);
      }
    },
    close(name) {
      if (name === "row") ready.push(row);
      else if (name === "c") row.cells[cell.column] = cellText(cell, book, row.line);
      else if (name === "v") inValue = false;
      else if (name === "is") {
        inInline = false;
        cell.value = inline.take();
      } else if (inInline) inline.close(name);
    },
    text(text) {
      if (inValue) cell.value += text;
      else if (inInline) inline.text(text);
    },
  });
  for await (const _ of parsePart(zip, entry, parser)) {
    for (const done of ready) yield done;
    ready.length = 0;
  }
}

/** A cell's value as a person would read it (see the module comment); an empty cell is null. */
function cellText(cell: { type: string; style: number; value: string | null }, book: Workbook, line: number): string | null {
  const { type, style, value } = cell;
  if (value === null || value === "") return null;
  switch (type) {
    case "s": {
      const text = book.sharedStrings[Number(value)];
      if (text === undefined) throw new FileProblem(`row: a cell refers to shared string ${value}, which the workbook does not have`, line);
      return text === "" ? null : text;
    }
    case "b":
      return value === "1" ? "true" : value === "0" ? "false" : value;
    case "n":
      return (book.dateStyles[style] && excelDate(Number(value), book.date1904)) || numberText(value);
    default:
      // str (a formula's text), inlineStr, e (#N/A and the like), d (an ISO date): as written.
      return ownCopy(value);
  }
}

// ---- Rows into records ----------------------------------------------------------------

/** The header and the records, as read-csv.ts yields them (see the module comment). */
async function* sheetRecords(rows: AsyncIterable<SheetRow>): AsyncIterable<SourceRecord> {
  let header: string[] | null = null;
  for await (const { line, cells } of rows) {
    if (!cells.some((cell) => cell != null)) continue;
    if (header === null) {
      header = readHeader(cells, line);
      yield { line, record: new CsvHeader(header) };
      continue;
    }
    const beyond = cells.findIndex((cell, column) => column >= header!.length && cell != null);
    if (beyond !== -1) {
      yield { line, record: new UnreadableRecord(`has a value in column ${columnLetter(beyond)}, which has no header`) };
      continue;
    }
    const record = Object.create(null) as Record<string, string | null>;
    let size = 0;
    for (const [column, name] of header.entries()) {
      const cell = cells[column] ?? null;
      record[name] = cell;
      if (cell !== null) size += Buffer.byteLength(cell);
    }
    // The limit every format keeps (docs/cli.md, "Files"): a row, like a CSV record, is at most 1 MiB.
    if (size > MAX_RECORD_BYTES)
      yield {
        line,
        record: new UnreadableRecord(
          `has ${size.toLocaleString("en")} bytes of cells; a row may be at most 1 MiB (${MAX_RECORD_BYTES.toLocaleString("en")} bytes)`,
        ),
      };
    else yield { line, record };
  }
}

/** The header's names, from column A to its last value; a column without a name, or a name twice, is a FileProblem naming the column by its letter. */
function readHeader(cells: (string | null)[], line: number): string[] {
  const last = cells.findLastIndex((cell) => cell != null);
  return checkedHeader(
    Array.from({ length: last + 1 }, (_, i) => cells[i] ?? ""),
    line,
    columnLetter,
  );
}
