/**
 * The shared strings of an .xlsx (xl/sharedStrings.xml), of which only those a read
 * column refers to are kept (DECISIONS §11). A cell of type `s` holds an index into the
 * table; the table is read up to three times, each a stream, and never held whole:
 *
 * 1. `scanSharedStrings`: counts the strings, notes which are empty (one bit each: a cell
 *    of an empty string has no value) and keeps the text of the first few (a header's
 *    strings are the first a writer adds), refusing a string of over 1 MiB on the way;
 * 2. `keepSharedStrings`: the text of the strings whose bit is set in a `BitSet`: a
 *    header's, when not among the first; then those a pass over the sheet marked
 *    (read-xlsx.ts: the strings of the read columns), as UTF-8 in blocks of STORE_BLOCK
 *    bytes with three numbers each to find them by.
 *
 * What is held is therefore, whatever the table holds: two bits per string the part
 * could hold (a `<si/>` is 5 bytes, so at most 5 MB of bits for a 200 MB part), and the
 * kept strings' own bytes plus 12 bytes each, at most MAX_KEPT_BYTES (past it the workbook
 * is refused as the strings are read). A JavaScript string costs some 30 bytes
 * before its text, and an array slot 8 more: 9,000,000 short strings held as such took
 * over a GB.
 */
import { FileProblem, MAX_RECORD_BYTES } from "./source.ts";
import { parseWholePart, type Entry, type ZipFile } from "./xlsx-zip.ts";
import { richText } from "./xlsx-values.ts";

/** The fewest bytes of XML a string item takes: `<si/>`. */
const SMALLEST_ITEM = 5;
/** How many of the first strings the scan keeps the text of, and how much text at most. */
const FIRST_STRINGS = 1024;
const FIRST_STRINGS_BYTES = 64 * 1024;
/** The size of the blocks kept strings are stored in. */
const STORE_BLOCK = 4 * 1024 * 1024;
/**
 * The most text the kept strings may hold. A real workbook's read columns hold far less
 * (595,000 employees with a distinct e-mail each: some 25 MB); without it, a workbook of
 * 190 distinct strings of 1 MiB, each in a read column, would keep 200 MB, and the import
 * pass its 300 MB (DECISIONS §11).
 */
export const MAX_KEPT_BYTES = 64 * 1024 * 1024;

/** One bit per index, its size fixed when made. */
export class BitSet {
  readonly words: Uint32Array;
  constructor(readonly size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }
  has(i: number): boolean {
    return i < this.size && (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }
  add(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
}

/** The bits the strings of a part of this size need: one per string it could hold. */
export const possibleStrings = (entry: Entry) => Math.ceil(entry.uncompressedSize / SMALLEST_ITEM);

export interface StringsScan {
  count: number;
  empty: BitSet;
  /** The texts of the first strings (up to FIRST_STRINGS of them and FIRST_STRINGS_BYTES of text). */
  first: string[];
}

/**
 * Each string item, handed to `onItem` with its index once it is complete, its text when
 * `wantText` wants it (else ""); a string over 1 MiB is refused. Returns the count.
 */
async function eachItem(
  zip: ZipFile,
  entry: Entry,
  wantText: (index: number) => boolean,
  onItem: (index: number, text: string, empty: boolean, wanted: boolean) => void,
): Promise<number> {
  const text = richText();
  let index = 0;
  let bytes = 0;
  let empty = true;
  let want = wantText(0);
  await parseWholePart(zip, entry, {
    open: text.open,
    close(name) {
      if (name !== "si") return text.close(name);
      onItem(index, want ? text.take() : "", empty, want);
      text.take();
      index++;
      bytes = 0;
      empty = true;
      want = wantText(index);
    },
    text(piece) {
      if (!text.inText()) return;
      if (piece !== "") empty = false;
      bytes += Buffer.byteLength(piece);
      if (bytes > MAX_RECORD_BYTES) {
        throw new FileProblem(
          `is refused: its shared string ${index.toLocaleString("en")} holds over 1 MiB (${MAX_RECORD_BYTES.toLocaleString("en")} bytes); a cell may hold at most 1 MiB`,
        );
      }
      if (want) text.text(piece);
    },
  });
  return index;
}

export async function scanSharedStrings(zip: ZipFile, entry: Entry): Promise<StringsScan> {
  const empty = new BitSet(possibleStrings(entry));
  const first: string[] = [];
  let firstBytes = 0;
  const count = await eachItem(
    zip,
    entry,
    (i) => i < FIRST_STRINGS && firstBytes < FIRST_STRINGS_BYTES,
    (i, text, isEmpty) => {
      if (isEmpty) empty.add(i);
      if (i === first.length && firstBytes < FIRST_STRINGS_BYTES && i < FIRST_STRINGS) {
        firstBytes += text.length;
        first.push(text);
      }
    },
  );
  return { count, empty, first };
}

/** The strings `wanted` names, stored compactly (see the module comment); looked up by index. */
export class KeptStrings {
  private readonly blocks: Buffer[] = [];
  private block = Buffer.alloc(0);
  private used = 0;
  /** The bytes kept, their three numbers each included. */
  private total = 0;
  /** Per kept string, by its rank among the wanted: its block, start and length. */
  private readonly where: Uint32Array;
  /** Per word of `wanted`, how many bits are set in the words before it. */
  private readonly before: Uint32Array;
  private readonly decoder = new TextDecoder();

  constructor(private readonly wanted: BitSet) {
    this.before = new Uint32Array(wanted.words.length);
    let count = 0;
    for (let w = 0; w < wanted.words.length; w++) {
      this.before[w] = count;
      count += popCount(wanted.words[w]!);
    }
    this.where = new Uint32Array(count * 3);
  }

  /** Stores the text of string `index`, which `wanted` names. */
  add(index: number, text: string): void {
    const rank = this.rank(index);
    const length = Buffer.byteLength(text);
    this.total += length + 12;
    if (this.total > MAX_KEPT_BYTES) {
      throw new FileProblem(
        `is refused: the shared strings of the columns the import reads hold over ${MAX_KEPT_BYTES / 1024 / 1024} MiB of text, more than an import keeps (split the workbook, or save it as CSV)`,
      );
    }
    if (this.used + length > this.block.length) {
      this.block = Buffer.allocUnsafe(Math.max(STORE_BLOCK, length));
      this.blocks.push(this.block);
      this.used = 0;
    }
    this.block.write(text, this.used);
    this.where.set([this.blocks.length - 1, this.used, length], rank * 3);
    this.used += length;
  }

  /** The text of string `index`; undefined when it was not kept. */
  get(index: number): string | undefined {
    if (!this.wanted.has(index)) return undefined;
    const at = this.rank(index) * 3;
    const block = this.blocks[this.where[at]!]!;
    const start = this.where[at + 1]!;
    return this.decoder.decode(block.subarray(start, start + this.where[at + 2]!));
  }

  private rank(index: number): number {
    const word = index >>> 5;
    const below = this.wanted.words[word]! & ((1 << (index & 31)) - 1);
    return this.before[word]! + popCount(below >>> 0);
  }
}

function popCount(word: number): number {
  let n = word - ((word >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Reads the strings `wanted` names into a KeptStrings. */
export async function keepSharedStrings(zip: ZipFile, entry: Entry, wanted: BitSet): Promise<KeptStrings> {
  const kept = new KeptStrings(wanted);
  await eachItem(
    zip,
    entry,
    (i) => wanted.has(i),
    (i, text, _, want) => want && kept.add(i, text),
  );
  return kept;
}
