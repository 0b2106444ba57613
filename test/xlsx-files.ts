/**
 * .xlsx files made for tests and benchmarks, so that none is checked in: a minimal
 * workbook writer (shared or inline strings, number formats, formulas with their cached
 * result, the 1904 date system) over a minimal zip writer that streams each part through
 * deflate to the file, so that a sheet of hundreds of MB is never held. By default the
 * sheets come before xl/sharedStrings.xml in the zip, as streaming writers put them (the
 * strings are known only once the sheet is written); `sharedStringsFirst` puts them
 * first, as Excel does. And zip bombs: files whose central directory lies.
 */
import { readFileSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { createDeflateRaw, crc32 } from "node:zlib";

export type XlsxCell =
  | string
  | number
  | boolean
  | Date
  | null
  | { formula: string; result: string | number }
  /** A date serial shown in a number format of its own, `dd.mm.yyyy`. */
  | { date: number; format: string }
  /** Text in runs of their own formatting, and a phonetic guide that is not part of the text. */
  | { richText: string[] }
  | { error: string }
  /** A `t="d"` cell: an ISO 8601 date as text. */
  | { isoDate: string };

export interface XlsxSheet {
  name: string;
  /** Row 1 first; a row without a value is left out of the file (a gap in the row numbers). Iterated twice with `sharedStringsFirst`. */
  rows: Iterable<XlsxCell[]>;
}

export interface WriteXlsxOptions {
  /** Shared strings (xl/sharedStrings.xml, the default) or inline strings in the sheet. */
  strings?: "shared" | "inline";
  /** xl/sharedStrings.xml before the sheets in the zip; the sheets come first by default. */
  sharedStringsFirst?: boolean;
  date1904?: boolean;
}

const DAY_MS = 86_400_000;
const encoder = new TextEncoder();
const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** Writes a workbook of `sheets` to `path` (see the module comment). */
export async function writeXlsx(path: string, sheets: XlsxSheet[], options: WriteXlsxOptions = {}): Promise<void> {
  const book = new BookParts(options);
  const zip = await ZipWriter.create(path);
  try {
    const sheetParts = sheets.map((sheet, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, xml: () => book.sheetXml(sheet.rows) }));
    if (options.sharedStringsFirst) {
      for (const sheet of sheets) for (const _ of book.sheetXml(sheet.rows));
      await book.writeBookParts(zip, sheets);
      for (const part of sheetParts) await zip.add(part.name, part.xml());
    } else {
      for (const part of sheetParts) await zip.add(part.name, part.xml());
      await book.writeBookParts(zip, sheets);
    }
    await zip.finish();
  } finally {
    await zip.close();
  }
}

/** What a workbook's sheets share: their strings and number formats, filled in as the sheets are written. */
class BookParts {
  private readonly strings = new Map<string, number>();
  /** Cell styles after General (0), date (1, format 14) and date-time (2, format 22): one per custom format. */
  private readonly formats = new Map<string, number>();
  constructor(private readonly options: WriteXlsxOptions) {}

  *sheetXml(rows: Iterable<XlsxCell[]>): Iterable<string> {
    yield `${DECLARATION}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheetData>`;
    let r = 0;
    let batch = "";
    for (const row of rows) {
      r++;
      const cells = row.map((cell, i) => this.cellXml(cell, `${columnLetters(i)}${r}`)).join("");
      if (cells !== "") batch += `<row r="${r}">${cells}</row>`;
      if (batch.length > 65_536) {
        yield batch;
        batch = "";
      }
    }
    yield `${batch}</sheetData></worksheet>`;
  }

  private cellXml(cell: XlsxCell, ref: string): string {
    if (cell === null) return "";
    if (typeof cell === "string") return this.textCell(ref, `<t xml:space="preserve">${escapeXml(cell)}</t>`);
    if (typeof cell === "number") return `<c r="${ref}"><v>${cell}</v></c>`;
    if (typeof cell === "boolean") return `<c r="${ref}" t="b"><v>${cell ? 1 : 0}</v></c>`;
    if (cell instanceof Date) {
      const serial = cell.getTime() / DAY_MS + (this.options.date1904 ? 24_107 : 25_569);
      return `<c r="${ref}" s="${cell.getTime() % DAY_MS === 0 ? 1 : 2}"><v>${serial}</v></c>`;
    }
    if ("formula" in cell) {
      const type = typeof cell.result === "string" ? ' t="str"' : "";
      return `<c r="${ref}"${type}><f>${escapeXml(cell.formula)}</f><v>${escapeXml(String(cell.result))}</v></c>`;
    }
    if ("date" in cell) {
      if (!this.formats.has(cell.format)) this.formats.set(cell.format, this.formats.size + 3);
      return `<c r="${ref}" s="${this.formats.get(cell.format)}"><v>${cell.date}</v></c>`;
    }
    if ("richText" in cell) {
      const runs = cell.richText.map((text, i) => `<r>${i % 2 ? "<rPr><b/></rPr>" : ""}<t xml:space="preserve">${escapeXml(text)}</t></r>`).join("");
      return this.textCell(ref, `${runs}<rPh sb="0" eb="1"><t>ふりがな</t></rPh>`);
    }
    if ("error" in cell) return `<c r="${ref}" t="e"><v>${escapeXml(cell.error)}</v></c>`;
    return `<c r="${ref}" t="d"><v>${escapeXml(cell.isoDate)}</v></c>`;
  }

  /** A text cell: its string item in the shared table, or inline. */
  private textCell(ref: string, item: string): string {
    if (this.options.strings === "inline") return `<c r="${ref}" t="inlineStr"><is>${item}</is></c>`;
    let index = this.strings.get(item);
    if (index === undefined) this.strings.set(item, (index = this.strings.size));
    return `<c r="${ref}" t="s"><v>${index}</v></c>`;
  }

  async writeBookParts(zip: ZipWriter, sheets: XlsxSheet[]): Promise<void> {
    const strings = this.strings;
    await zip.add(
      "xl/sharedStrings.xml",
      (function* () {
        yield `${DECLARATION}<sst xmlns="${MAIN_NS}" count="${strings.size}" uniqueCount="${strings.size}">`;
        for (const item of strings.keys()) yield `<si>${item}</si>`;
        yield "</sst>";
      })(),
    );
    const custom = [...this.formats.keys()].map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${escapeXml(code)}"/>`);
    const xfs = ["0", "14", "22", ...custom.map((_, i) => String(164 + i))].map((id) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0"/>`);
    await zip.add(
      "xl/styles.xml",
      `${DECLARATION}<styleSheet xmlns="${MAIN_NS}"><numFmts count="${custom.length}">${custom.join("")}</numFmts>` +
        '<fonts count="1"><font/></fonts><fills count="1"><fill/></fills><borders count="1"><border/></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        `<cellXfs count="${xfs.length}">${xfs.join("")}</cellXfs></styleSheet>`,
    );
    const sheetList = sheets.map((sheet, i) => `<sheet name="${escapeXml(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("");
    await zip.add(
      "xl/workbook.xml",
      `${DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><workbookPr${this.options.date1904 ? ' date1904="1"' : ""}/><sheets>${sheetList}</sheets></workbook>`,
    );
    const sheetRels = sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_TYPE}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`);
    const n = sheets.length;
    await zip.add(
      "xl/_rels/workbook.xml.rels",
      `${DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheetRels.join("")}` +
        `<Relationship Id="rId${n + 1}" Type="${REL_TYPE}/styles" Target="styles.xml"/>` +
        `<Relationship Id="rId${n + 2}" Type="${REL_TYPE}/sharedStrings" Target="/xl/sharedStrings.xml"/></Relationships>`,
    );
    await zip.add(
      "_rels/.rels",
      `${DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_TYPE}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    );
    const ct = "application/vnd.openxmlformats-officedocument.spreadsheetml";
    const overrides = sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${ct}.worksheet+xml"/>`).join("");
    await zip.add(
      "[Content_Types].xml",
      `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${ct}.sheet.main+xml"/>${overrides}` +
        `<Override PartName="/xl/styles.xml" ContentType="${ct}.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="${ct}.sharedStrings+xml"/></Types>`,
    );
  }
}

/** The letters of a column, 0 → A, 27 → AB. */
export function columnLetters(column: number): string {
  let letters = "";
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/**
 * A zip bomb named .xlsx, a real workbook but for its sheet's part:
 * - `lying`: the central directory declares a sane size (300 KB, packed to about as
 *   much), and the data inflates to 256 MB of XML;
 * - `dense`: a part claims 50 MB from 20 KB, 2,500 to 1 (deflate cannot pass about 1032:1);
 * - `huge`: the parts claim 300 MB in all.
 */
export async function writeZipBomb(path: string, kind: "lying" | "dense" | "huge"): Promise<void> {
  const zip = await ZipWriter.create(path);
  try {
    const book = new BookParts({});
    await book.writeBookParts(zip, [{ name: "Sheet1", rows: [] }]);
    const sheetXml = function* (spaces: number) {
      yield `${DECLARATION}<worksheet xmlns="${MAIN_NS}"><sheetData>`;
      const mb = " ".repeat(1 << 20);
      for (let i = 0; i < spaces; i++) yield mb;
      yield "</sheetData></worksheet>";
    };
    if (kind === "lying") await zip.add("xl/worksheets/sheet1.xml", sheetXml(256), { uncompressedSize: 300_000 });
    if (kind === "dense") await zip.add("xl/worksheets/sheet1.xml", ["<a/>", " ".repeat(20_000)], { uncompressedSize: 50_000_000, level: 0 });
    if (kind === "huge") await zip.add("xl/worksheets/sheet1.xml", sheetXml(1), { uncompressedSize: 300_000_000 });
    await zip.finish();
  } finally {
    await zip.close();
  }
}

/** A zip of `parts` as they are given (a part's text may come in pieces): for files that are not quite workbooks. `emptyEntries` adds that many empty files after them. */
export async function writeZip(path: string, parts: [name: string, text: string | Iterable<string>][], emptyEntries = 0): Promise<void> {
  const zip = await ZipWriter.create(path);
  try {
    for (const [name, text] of parts) await zip.add(name, text);
    for (let i = 0; i < emptyEntries; i++) zip.addEmpty(`xl/media/empty${i}.bin`);
    await zip.finish();
  } finally {
    await zip.close();
  }
}

/** What a zip's parts unpack to in all, as its central directory declares. */
export function unpackedSize(path: string): number {
  const zip = readFileSync(path);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  let total = 0;
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    total += zip.readUInt32LE(at + 24);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return total;
}

interface CentralRecord {
  name: Uint8Array;
  crc: number;
  compressedSize: number;
  uncompressedSize: number;
  offset: number;
}

/** Its deflate level, and what its headers declare instead of its true size (zip bombs). */
interface PartOptions {
  level?: number;
  uncompressedSize?: number;
}

/** A minimal zip writer: deflated parts streamed to the file, their local headers filled in afterwards. */
class ZipWriter {
  private offset = 0;
  private readonly records: CentralRecord[] = [];
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private constructor(private readonly file: FileHandle) {}

  static async create(path: string): Promise<ZipWriter> {
    return new ZipWriter(await open(path, "w"));
  }

  /** Adds a part made of `content`'s text, deflated as it comes. */
  async add(name: string, content: string | Iterable<string>, options: PartOptions = {}): Promise<void> {
    await this.flush();
    const record: CentralRecord = { name: encoder.encode(name), crc: 0, compressedSize: 0, uncompressedSize: 0, offset: this.offset };
    await this.append(localHeader(record));
    const deflate = createDeflateRaw({ level: options.level ?? 6, chunkSize: 1 << 20 });
    const packed = (async () => {
      for await (const chunk of deflate as AsyncIterable<Uint8Array>) {
        record.compressedSize += chunk.length;
        await this.append(chunk);
      }
    })();
    for (const text of typeof content === "string" ? [content] : content) {
      const bytes = encoder.encode(text);
      record.crc = crc32(bytes, record.crc);
      record.uncompressedSize += bytes.length;
      if (!deflate.write(bytes)) await new Promise((resolve) => deflate.once("drain", resolve));
    }
    deflate.end();
    await packed;
    record.uncompressedSize = options.uncompressedSize ?? record.uncompressedSize;
    await this.file.write(localHeader(record), 0, undefined, record.offset);
    this.records.push(record);
  }

  /** Adds an empty file, written with the next part or the central directory (zips of many entries). */
  addEmpty(name: string): void {
    // An empty deflate stream: one final block of no data.
    const record: CentralRecord = { name: encoder.encode(name), crc: 0, compressedSize: 2, uncompressedSize: 0, offset: this.offset + this.pendingBytes };
    this.pending.push(localHeader(record), new Uint8Array([0x03, 0x00]));
    this.pendingBytes += 30 + record.name.length + 2;
    this.records.push(record);
  }

  /** The central directory and its end record; with over 65,535 entries, Zip64's end records before it. */
  async finish(): Promise<void> {
    await this.flush();
    const start = this.offset;
    for (const record of this.records) this.pending.push(centralHeader(record));
    await this.flush();
    const count = this.records.length;
    if (count > 0xffff) {
      const zip64 = new DataView(new ArrayBuffer(56 + 20));
      zip64.setUint32(0, 0x06064b50, true);
      zip64.setBigUint64(4, 44n, true);
      zip64.setUint16(12, 45, true);
      zip64.setUint16(14, 45, true);
      zip64.setBigUint64(24, BigInt(count), true);
      zip64.setBigUint64(32, BigInt(count), true);
      zip64.setBigUint64(40, BigInt(this.offset - start), true);
      zip64.setBigUint64(48, BigInt(start), true);
      zip64.setUint32(56, 0x07064b50, true);
      zip64.setBigUint64(64, BigInt(this.offset), true);
      zip64.setUint32(72, 1, true);
      await this.append(new Uint8Array(zip64.buffer));
    }
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, Math.min(count, 0xffff), true);
    end.setUint16(10, Math.min(count, 0xffff), true);
    end.setUint32(12, this.offset - start - (count > 0xffff ? 76 : 0), true);
    end.setUint32(16, start, true);
    await this.append(new Uint8Array(end.buffer));
  }

  /** Writes what addEmpty and finish queued, in one write. */
  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await this.append(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  private async append(bytes: Uint8Array): Promise<void> {
    await this.file.write(bytes, 0, bytes.length, this.offset);
    this.offset += bytes.length;
  }
}

/** Version 2.0, flag 0x0800 (UTF-8 names), method 8 (deflate), a fixed DOS time. */
function writeCommon(view: DataView, at: number, record: CentralRecord): void {
  view.setUint16(at, 20, true);
  view.setUint16(at + 2, 0x0800, true);
  view.setUint16(at + 4, 8, true);
  view.setUint16(at + 6, 0, true);
  view.setUint16(at + 8, 0x5921, true);
  view.setUint32(at + 10, record.crc >>> 0, true);
  view.setUint32(at + 14, record.compressedSize, true);
  view.setUint32(at + 18, record.uncompressedSize, true);
  view.setUint16(at + 22, record.name.length, true);
}

function localHeader(record: CentralRecord): Uint8Array {
  const bytes = new Uint8Array(30 + record.name.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x04034b50, true);
  writeCommon(view, 4, record);
  bytes.set(record.name, 30);
  return bytes;
}

function centralHeader(record: CentralRecord): Uint8Array {
  const bytes = new Uint8Array(46 + record.name.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x02014b50, true);
  view.setUint16(4, 20, true);
  writeCommon(view, 6, record);
  view.setUint32(42, record.offset, true);
  bytes.set(record.name, 46);
  return bytes;
}
