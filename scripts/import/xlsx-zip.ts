/**
 * The zip under an .xlsx (read-xlsx.ts), read with yauzl: its central directory before
 * anything is unpacked, so that a file is refused whose parts claim to unpack to over 200
 * MB in all, or one part to over 1000 times its packed size (deflate cannot do better than
 * about 1032:1: a claim past that is a zip bomb); a part that unpacks to more than it
 * declared is stopped at that point (yauzl's `validateEntrySizes`), and a zip of more than
 * 10,000 entries is refused from the count its end record gives, before one is listed.
 * Parts are parsed a chunk at a time by xlsx-xml.ts, whose limits bound what a part costs.
 */
import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { FileProblem, openFile } from "./source.ts";
import { BoundedXml, XmlProblem, type XmlHandlers } from "./xlsx-xml.ts";

export type { Entry, ZipFile };

/** The most an .xlsx may unpack to, all its parts together (docs/cli.md, "The import format"). */
export const MAX_XLSX_UNPACKED_BYTES = 200_000_000;
/** The most a part may claim to unpack to per byte packed; deflate's own limit is about 1032. */
const MAX_PACKING_RATIO = 1000;
/** The most entries a workbook's zip may list: a real one has tens (a part per sheet, chart, image and their relationships). */
export const MAX_XLSX_ENTRIES = 10_000;

export const notXlsx = (why: string) => new FileProblem(`is not an .xlsx workbook (${why})`);
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** A missing or unreadable file in source.ts's words; an encrypted workbook (an OLE compound file, not a zip) named for what it is. */
export async function checkIsZip(path: string): Promise<void> {
  const { chunks, size } = await openFile(path);
  const reader = chunks[Symbol.asyncIterator]();
  if (size === undefined) {
    await reader.return?.();
    throw new FileProblem("cannot read an .xlsx from a pipe or device: it must be a file");
  }
  let start: Uint8Array;
  try {
    const first = await reader.next();
    start = first.done ? new Uint8Array(0) : first.value;
  } finally {
    await reader.return?.();
  }
  if (OLE_SIGNATURE.every((byte, i) => start[i] === byte)) {
    throw new FileProblem("is not an .xlsx workbook; if it is password-protected, save it without a password (an old .xls must be saved as .xlsx)");
  }
}

/** The zip's parts by name, once its central directory shows nothing a zip bomb would claim. */
export async function openZip(path: string): Promise<{ zip: ZipFile; parts: Map<string, Entry> }> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, { autoClose: false, lazyEntries: true, validateEntrySizes: true });
  } catch (error) {
    throw notXlsx(`it is not a zip archive: ${(error as Error).message}`);
  }
  try {
    if (zip.entryCount > MAX_XLSX_ENTRIES) {
      throw new FileProblem(
        `is refused: its zip lists ${zip.entryCount.toLocaleString("en")} entries; an .xlsx may have at most ${MAX_XLSX_ENTRIES.toLocaleString("en")} (a workbook has tens: a damaged file or an attack)`,
      );
    }
    const parts = new Map<string, Entry>();
    let unpacked = 0;
    let dense: Entry | undefined;
    for await (const entry of zip.eachEntry()) {
      unpacked += entry.uncompressedSize;
      if (entry.uncompressedSize > Math.max(entry.compressedSize, 1) * MAX_PACKING_RATIO) dense ??= entry;
      if (/\.(xml|rels)$/i.test(entry.fileName)) parts.set(entry.fileName, entry);
    }
    if (unpacked > MAX_XLSX_UNPACKED_BYTES) {
      throw new FileProblem(
        `unpacks to ${Math.ceil(unpacked / 1e6)} MB; an .xlsx may unpack to at most ${MAX_XLSX_UNPACKED_BYTES / 1e6} MB (split it, or save it as CSV)`,
      );
    }
    if (dense !== undefined) {
      const [packed, claimed] = [dense.compressedSize, dense.uncompressedSize].map((n) => n.toLocaleString("en"));
      throw new FileProblem(
        `is refused: its part ${dense.fileName} claims to unpack ${packed} bytes to ${claimed}, over ${MAX_PACKING_RATIO} times as many, which no real workbook does (a damaged file or a zip bomb)`,
      );
    }
    if (!parts.has("xl/workbook.xml")) throw notXlsx("it is a zip archive without xl/workbook.xml");
    return { zip, parts };
  } catch (error) {
    zip.close();
    if (error instanceof FileProblem) throw error;
    throw notXlsx(`it is not a readable zip archive: ${(error as Error).message}`);
  }
}

/**
 * Streams one part through `handlers`, yielding after each chunk so that the caller can
 * take what the chunk made before the next is unpacked. Stops with a FileProblem as soon
 * as the part unpacks to more than it declared, passes one of xlsx-xml.ts's limits, or is
 * not well-formed UTF-8 XML; a FileProblem a handler throws goes through as it is.
 */
export async function* parsePart(zip: ZipFile, entry: Entry, handlers: XmlHandlers): AsyncIterable<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parser = new BoundedXml(handlers);
  let stream: Readable;
  try {
    stream = await zip.openReadStreamPromise(entry);
  } catch (error) {
    throw notXlsx(`its part ${entry.fileName} cannot be unpacked: ${(error as Error).message}`);
  }
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      parser.write(decoder.decode(chunk, { stream: true }));
      yield;
    }
    parser.write(decoder.decode());
    parser.close();
    yield;
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    if (error instanceof XmlProblem && error.limit) throw new FileProblem(`is refused: its part ${entry.fileName} ${error.message}; reading stopped`);
    const message = (error as Error).message ?? String(error);
    if (message.startsWith("too many bytes")) {
      throw new FileProblem(
        `is refused: its part ${entry.fileName} unpacks to more than the ${entry.uncompressedSize.toLocaleString("en")} bytes it declares (a damaged file or a zip bomb); reading stopped`,
      );
    }
    throw notXlsx(`its part ${entry.fileName} cannot be read: ${message}`);
  } finally {
    stream.destroy();
  }
}

export async function parseWholePart(zip: ZipFile, entry: Entry, handlers: XmlHandlers): Promise<void> {
  for await (const _ of parsePart(zip, entry, handlers));
}
