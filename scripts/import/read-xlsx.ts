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
 * An .xlsx is a zip of XML parts (xlsx-zip.ts: zip bombs, and zips of over 10,000
 * entries, are refused before anything is unpacked), each streamed through xlsx-xml.ts's
 * bounded tokenizer, the sheet's rows with xlsx-sheet.ts's limits (DECISIONS §11, "Bounded
 * work for any file"). What is held does not follow the file: the shared strings of the
 * columns the import reads (`columnsRead`), compactly (xlsx-strings.ts), and a row at a
 * time. To know which strings those are, the sheet is read twice: once to find its header
 * and mark the strings its read columns refer to, then, once those strings are read, for
 * its records (a workbook without shared strings is read once). The shared strings part is
 * read up to three times (xlsx-strings.ts).
 */
import { checkIsZip, notXlsx, openZip, parseWholePart, type Entry, type ZipFile } from "./xlsx-zip.ts";
import { columnLetter, DATE_FORMAT_IDS, excelDate, isDateFormat, numberText, ownCopy } from "./xlsx-values.ts";
import { rawRows, type RawCell, type RawRow } from "./xlsx-sheet.ts";
import { BitSet, keepSharedStrings, scanSharedStrings, type StringsScan } from "./xlsx-strings.ts";
import { checkedHeader, CsvHeader, FileProblem, MAX_RECORD_BYTES, UnreadableRecord, type SourceRecord } from "./source.ts";

export { MAX_XLSX_UNPACKED_BYTES } from "./xlsx-zip.ts";

export interface ReadXlsxOptions {
  /** The sheet to read, by its name; the workbook's first sheet when not given. */
  sheet?: string;
  /** The columns the import reads, given the header's names; every column when not given. Only their shared strings are kept, and records leave the other columns out. */
  columnsRead?: (names: readonly string[]) => ReadonlySet<string>;
}

export async function* readXlsx(path: string, options: ReadXlsxOptions = {}): AsyncIterable<SourceRecord> {
  await checkIsZip(path);
  const { zip, parts } = await openZip(path);
  try {
    const book = await readWorkbook(zip, parts);
    const sheet = chooseSheet(book.sheets, options.sheet);
    const entry = parts.get(sheet.part);
    if (entry === undefined) throw notXlsx(`its sheet "${sheet.name}" should be at ${sheet.part}, which is missing`);
    const strings = book.stringsEntry === undefined ? null : await scanSharedStrings(zip, book.stringsEntry);
    const header = await findHeader(zip, entry, book, strings);
    if (header === null) return;
    const read = options.columnsRead?.(header.names);
    const reads = header.names.map((name) => read === undefined || read.has(name));
    yield { line: header.line, record: new CsvHeader(header.names) };
    const lookup = strings === null || strings.count === 0 ? NO_STRINGS : await keptStrings(zip, entry, book.stringsEntry!, strings, header.rowIndex, reads);
    yield* sheetRecords(
      rawRows(zip, entry, (column, type) => type === "s" || reads[column] === true),
      header,
      reads,
      { ...book, strings: lookup },
    );
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
  /** By cell style (a cell's `s`): 1 when it shows its number as a date. */
  dateStyles: Uint8Array;
  stringsEntry: Entry | undefined;
}

/** What a sheet's cells are read with: a shared string's text by index (undefined when not kept), and the count of strings. */
interface Strings {
  count: number;
  empty: BitSet | null;
  get(index: number): string | undefined;
}
const NO_STRINGS: Strings = { count: 0, empty: null, get: () => undefined };

/**
 * The workbook's lists (sheets, relationships, cell styles) are small in any real
 * workbook; past these a file is refused rather than held: no workbook has them.
 */
const MAX_LISTED_CHARS = 1024 * 1024;
const MAX_CELL_STYLES = 65_536;
const tooMuch = (what: string) => new FileProblem(`is refused: its ${what}, which no workbook has (a damaged file or an attack)`);

async function readWorkbook(zip: ZipFile, parts: Map<string, Entry>): Promise<Workbook> {
  const listed: { name: string; id: string }[] = [];
  let date1904 = false;
  let chars = 0;
  const count = (text: string) => {
    chars += text.length;
    if (chars > MAX_LISTED_CHARS) throw tooMuch("list of sheets and parts is over 1 MiB");
    return text;
  };
  await parseWholePart(zip, parts.get("xl/workbook.xml")!, {
    open(name, attributes) {
      if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
      if (name === "sheet") {
        const id = Object.entries(attributes).find(([key]) => key.endsWith(":id"))?.[1] ?? "";
        listed.push({ name: count(attributes.name ?? ""), id: count(id) });
      }
    },
  });
  const rels = new Map<string, { type: string; part: string }>();
  const relsEntry = parts.get("xl/_rels/workbook.xml.rels");
  if (relsEntry !== undefined) {
    await parseWholePart(zip, relsEntry, {
      open(name, attributes) {
        if (name === "Relationship" && attributes.TargetMode !== "External" && attributes.Id && attributes.Target) {
          rels.set(count(attributes.Id), { type: count(attributes.Type ?? ""), part: count(partPath(attributes.Target)) });
        }
      },
    });
  }
  const related = (type: string, fallback: string) => [...rels.values()].find((r) => r.type.endsWith(`/${type}`))?.part ?? fallback;
  const sheets = listed.map(({ name, id }, i) => ({ name, part: rels.get(id)?.part ?? `xl/worksheets/sheet${i + 1}.xml` }));
  const stylesEntry = parts.get(related("styles", "xl/styles.xml"));
  return {
    sheets,
    date1904,
    dateStyles: stylesEntry ? await readDateStyles(zip, stylesEntry) : new Uint8Array(0),
    stringsEntry: parts.get(related("sharedStrings", "xl/sharedStrings.xml")),
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

async function readDateStyles(zip: ZipFile, entry: Entry): Promise<Uint8Array> {
  const customDates = new Map<number, boolean>();
  const styles = new Uint8Array(MAX_CELL_STYLES);
  let count = 0;
  let inCellXfs = false;
  await parseWholePart(zip, entry, {
    open(name, attributes) {
      if (name === "numFmt" && attributes.numFmtId) {
        if (customDates.size >= MAX_CELL_STYLES) throw tooMuch(`styles hold more than ${MAX_CELL_STYLES.toLocaleString("en")} number formats`);
        customDates.set(Number(attributes.numFmtId), isDateFormat(attributes.formatCode ?? ""));
      } else if (name === "cellXfs") inCellXfs = true;
      else if (name === "xf" && inCellXfs) {
        if (count >= MAX_CELL_STYLES) throw tooMuch(`styles hold more than ${MAX_CELL_STYLES.toLocaleString("en")} cell formats`);
        const id = Number(attributes.numFmtId ?? "0");
        styles[count++] = (customDates.get(id) ?? DATE_FORMAT_IDS.has(id)) ? 1 : 0;
      }
    },
    close(name) {
      if (name === "cellXfs") inCellXfs = false;
    },
  });
  return styles.slice(0, count);
}

// ---- The header, and the shared strings of the columns read -----------------------------

interface Header {
  line: number;
  /** Which of the sheet's rows it is, the first being 0. */
  rowIndex: number;
  names: string[];
}

/** A shared string cell's index; a FileProblem when the workbook has no such string. */
function stringIndex(value: string | null, strings: Strings | StringsScan | null, line: number): number {
  const index = value !== null && /^[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(index < (strings?.count ?? 0))) throw new FileProblem(`row: a cell refers to shared string ${value}, which the workbook does not have`, line);
  return index;
}

/** Whether a cell has a value: text, or a shared string that is not empty. */
function hasValue(cell: RawCell, strings: Strings | StringsScan | null, line: number): boolean {
  if (cell.type !== "s") return cell.filled;
  if (!cell.filled) return false;
  return !strings?.empty?.has(stringIndex(cell.value, strings, line));
}

/** The first row with a value, and its names (a header too large, a name missing or twice, is a FileProblem); null when no row has one. */
async function findHeader(zip: ZipFile, entry: Entry, book: Workbook, strings: StringsScan | null): Promise<Header | null> {
  let rowIndex = -1;
  for await (const row of rawRows(zip, entry, () => true)) {
    rowIndex++;
    if (row.bytes > MAX_RECORD_BYTES) throw new FileProblem(`header: the header row holds over 1 MiB; it may hold at most 1 MiB`, row.line);
    if (!row.cells.some((cell) => hasValue(cell, strings, row.line))) continue;
    // The strings the header uses: among the first the scan kept, or read for it now.
    const missing = new BitSet(strings?.count ?? 0);
    let more = false;
    for (const cell of row.cells) {
      if (cell.type === "s" && cell.filled && strings !== null) {
        const index = stringIndex(cell.value, strings, row.line);
        if (index >= strings.first.length) {
          missing.add(index);
          more = true;
        }
      }
    }
    const resolved = more && book.stringsEntry ? await keepSharedStrings(zip, book.stringsEntry, missing) : null;
    const lookup: Strings = {
      count: strings?.count ?? 0,
      empty: strings?.empty ?? null,
      get: (i) => strings?.first[i] ?? resolved?.get(i),
    };
    const cells: string[] = [];
    for (const cell of row.cells) cells[cell.column] = cellText(cell, { ...book, strings: lookup }, row.line) ?? "";
    const last = cells.findLastIndex((cell) => cell !== "");
    const names = checkedHeader(
      Array.from({ length: last + 1 }, (_, i) => cells[i] ?? ""),
      row.line,
      columnLetter,
    );
    return { line: row.line, rowIndex, names };
  }
  return null;
}

/**
 * The shared strings the read columns refer to below the header (a pass over the sheet
 * that keeps only their indices, as bits), then those strings (xlsx-strings.ts). Memory:
 * one bit per string of the table, and the strings kept.
 */
async function keptStrings(zip: ZipFile, sheet: Entry, entry: Entry, scan: StringsScan, headerRow: number, reads: boolean[]): Promise<Strings> {
  const wanted = new BitSet(scan.count);
  let marked = 0;
  let rowIndex = -1;
  for await (const row of rawRows(zip, sheet, (column, type) => type === "s" && reads[column] === true)) {
    if (++rowIndex <= headerRow) continue;
    for (const cell of row.cells) {
      if (cell.value === null || cell.type !== "s") continue;
      const index = stringIndex(cell.value, scan, row.line);
      if (!scan.empty.has(index) && !wanted.has(index)) {
        wanted.add(index);
        marked++;
      }
    }
  }
  const kept = marked === 0 ? null : await keepSharedStrings(zip, entry, wanted);
  return { count: scan.count, empty: scan.empty, get: (i) => kept?.get(i) };
}

// ---- Rows into records ----------------------------------------------------------------

interface Book {
  date1904: boolean;
  dateStyles: Uint8Array;
  strings: Strings;
}

/** A cell's value as a person would read it (see the module comment); an empty cell is null. */
function cellText(cell: RawCell, book: Book, line: number): string | null {
  const { type, style, value } = cell;
  if (value === null || value === "") return null;
  switch (type) {
    case "s": {
      const index = stringIndex(value, book.strings, line);
      if (book.strings.empty?.has(index)) return null;
      const text = book.strings.get(index);
      if (text === undefined) throw new Error(`shared string ${index} was not kept`);
      return text === "" ? null : text;
    }
    case "b":
      return value === "1" ? "true" : value === "0" ? "false" : value;
    case "n":
      return (book.dateStyles[style] === 1 && excelDate(Number(value), book.date1904)) || numberText(value);
    default:
      // str (a formula's text), inlineStr, e (#N/A and the like), d (an ISO date): as written.
      return ownCopy(value);
  }
}

/**
 * The records below the header, as read-csv.ts yields them (see the module comment). A
 * record has the read columns only, the others left out; what a row costs follows the
 * cells it has and the columns read, never its cells' column letters.
 */
async function* sheetRecords(rows: AsyncIterable<RawRow>, header: Header, reads: boolean[], book: Book): AsyncIterable<SourceRecord> {
  const { names } = header;
  const width = names.length;
  const readColumns = names.flatMap((name, column) => (reads[column] ? [{ column, name }] : []));
  const values: (string | null | undefined)[] = new Array(width);
  let rowIndex = -1;
  for await (const { line, cells, bytes } of rows) {
    if (++rowIndex <= header.rowIndex) continue;
    let valued = false;
    let beyond = -1;
    for (const cell of cells) {
      if (!hasValue(cell, book.strings, line)) continue;
      valued = true;
      if (cell.column >= width && (beyond === -1 || cell.column < beyond)) beyond = cell.column;
    }
    if (!valued && bytes <= MAX_RECORD_BYTES) continue;
    if (beyond !== -1) {
      yield { line, record: new UnreadableRecord(`has a value in column ${columnLetter(beyond)}, which has no header`) };
      continue;
    }
    let size = bytes > MAX_RECORD_BYTES ? bytes : 0;
    if (size === 0) {
      for (const cell of cells) {
        if (cell.column < width && reads[cell.column]) values[cell.column] = cellText(cell, book, line);
      }
    }
    // No prototype: a column named __proto__ is data like any other.
    const record = Object.create(null) as Record<string, string | null>;
    for (const { column, name } of readColumns) {
      const value = values[column] ?? null;
      values[column] = undefined;
      record[name] = value;
      if (value !== null) size += Buffer.byteLength(value);
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
