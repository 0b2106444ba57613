/**
 * The physical lines of an import file, split from its bytes. JSONL and CSV are read
 * through this, so that every line is numbered the same way and none is held past the
 * 1 MiB limit (README "Importing data"): a longer line is passed over to its end without
 * being kept, so reading stays linear in the file, and memory bounded, whatever the
 * length of its lines. A UTF-8 byte-order mark at the very start is dropped.
 */

import { MAX_RECORD_BYTES } from "./source.ts";

const LF = 0x0a;
const CR = 0x0d;

export interface Line {
  /** The physical line, 1-based. */
  line: number;
  /** The line's bytes without its line break; `null` when it is over MAX_RECORD_BYTES. */
  bytes: Uint8Array | null;
  /** Its length in bytes without the line break, counted in full even when not kept. */
  size: number;
  /** What ended it: `\n`, `\r\n`, a lone `\r` (with `crBreaks`), or nothing at the end of the file. */
  lineBreak: "\n" | "\r\n" | "\r" | "";
}

export interface ReadLinesOptions {
  /** A lone `\r` ends a line too, as in CSV; otherwise only `\n` (or `\r\n`) does. */
  crBreaks?: boolean;
}

/**
 * Splits a byte stream into lines (see the module comment), handed out a chunk's worth at
 * a time (one await per line would cost more than the splitting). Lines are views of the
 * chunks where they can be: a chunk must not change once handed over (true of file and
 * stdin streams).
 */
export async function* readLines(chunks: AsyncIterable<Uint8Array>, options: ReadLinesOptions = {}): AsyncIterable<Line[]> {
  const crBreaks = options.crBreaks ?? false;
  let line = 1;
  let parts: Uint8Array[] = [];
  let kept = 0;
  let size = 0;
  let dropped = false;
  let lastByte = -1;
  // A `\r` that ended a chunk: whether it is `\r\n` shows only in the next chunk.
  let pendingCr = false;
  let first = true;

  const take = (part: Uint8Array) => {
    if (part.length === 0) return;
    size += part.length;
    lastByte = part[part.length - 1]!;
    if (dropped) return;
    // One byte over the limit is kept: a `\r` that turns out to be part of `\r\n`.
    if (kept + part.length > MAX_RECORD_BYTES + 1) {
      dropped = true;
      parts = [];
      return;
    }
    parts.push(part);
    kept += part.length;
  };
  const finish = (lineBreak: Line["lineBreak"]): Line => {
    let bytes = dropped ? null : parts.length === 1 ? parts[0]! : concatBytes(parts, kept);
    if (lineBreak === "\n" && lastByte === CR && !crBreaks) {
      lineBreak = "\r\n";
      size--;
      bytes = bytes?.subarray(0, bytes.length - 1) ?? null;
    }
    const done: Line = { line: line++, bytes: size > MAX_RECORD_BYTES ? null : bytes, size, lineBreak };
    parts = [];
    kept = size = 0;
    dropped = false;
    lastByte = -1;
    return done;
  };

  for await (const chunk of chunks) {
    const lines: Line[] = [];
    let pos = 0;
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) pos = 3;
    }
    if (pendingCr && chunk.length > 0) {
      pendingCr = false;
      const crlf = chunk[0] === LF;
      if (crlf) pos = 1;
      lines.push(finish(crlf ? "\r\n" : "\r"));
    }
    // The next `\n` and `\r` at or after `pos`: each searched for once, so a chunk is scanned once.
    let nextLf = -1;
    let nextCr = crBreaks ? -1 : chunk.length;
    while (pos < chunk.length) {
      if (nextLf < pos) nextLf = indexOrEnd(chunk, LF, pos);
      if (nextCr < pos) nextCr = indexOrEnd(chunk, CR, pos);
      const end = Math.min(nextLf, nextCr);
      take(chunk.subarray(pos, end));
      if (end === chunk.length) break;
      if (chunk[end] === LF) {
        pos = end + 1;
        lines.push(finish("\n"));
      } else if (end + 1 === chunk.length) {
        pendingCr = true;
        break;
      } else {
        const crlf = chunk[end + 1] === LF;
        pos = end + (crlf ? 2 : 1);
        lines.push(finish(crlf ? "\r\n" : "\r"));
      }
    }
    if (lines.length > 0) yield lines;
  }
  if (pendingCr) yield [finish("\r")];
  else if (size > 0) yield [finish("")];
}

function indexOrEnd(bytes: Uint8Array, byte: number, from: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? bytes.length : at;
}

/** `parts` one after another; `length` is their total. */
export function concatBytes(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
