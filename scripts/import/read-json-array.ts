/**
 * A JSON file holding one top-level array of records, streamed: a small scanner finds
 * where each element starts and ends (tracking strings and nesting) in the bytes, and
 * only that element's bytes are held and parsed, so memory follows the largest record,
 * not the file. An element over 1 MiB is not held at all: it is an error on its line and
 * the scan goes on (README "Importing data"); the file may be one line of any length.
 * An element's line is the physical line its first character is on. A file that is not
 * one array (no `[`, text after `]`, ends early, a stray comma) is a FileProblem; an
 * element that is not valid JSON is an unreadable record, and the scan goes on.
 */
import { concatBytes } from "./read-lines.ts";
import { decodeUtf8, FileProblem, MAX_RECORD_BYTES, notUtf8, tooLong, UnreadableRecord, type SourceRecord } from "./source.ts";

type State = "before" | "first" | "next" | "element" | "after";

const [LF, CR, TAB, SPACE, QUOTE, BACKSLASH, COMMA] = [0x0a, 0x0d, 0x09, 0x20, 0x22, 0x5c, 0x2c];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x5b, 0x5d, 0x7b, 0x7d];
const isSpace = (b: number) => b === SPACE || b === LF || b === CR || b === TAB;

export async function* readJsonArray(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SourceRecord> {
  let state = "before" as State;
  let line = 1;
  let first = true;
  // The element being scanned: where it started, its bytes so far (none once it is too long).
  let elementLine = 0;
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversized = false;
  let trailingSpace = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  const unexpected = (chunk: Uint8Array, i: number, what: string) =>
    new FileProblem(`is not a JSON array of records: unexpected ${describeByte(chunk, i)} on line ${line}; expected ${what}`);
  const keep = (part: Uint8Array) => {
    size += part.length;
    if (oversized) return;
    // Whitespace before the separator is not part of the record.
    if (size - trailingSpace > MAX_RECORD_BYTES) {
      oversized = true;
      parts = [];
    } else parts.push(part);
  };
  const finishElement = (): SourceRecord => {
    const held = parts;
    parts = [];
    if (oversized || size - trailingSpace > MAX_RECORD_BYTES)
      return { line: elementLine, record: new UnreadableRecord(tooLong(size - trailingSpace, "a record")) };
    const bytes = concatBytes(held, size);
    const text = decodeUtf8(bytes);
    if (text === null) throw notUtf8(elementLine + lineOfInvalidUtf8(bytes));
    try {
      return { line: elementLine, record: JSON.parse(text) };
    } catch (error) {
      return { line: elementLine, record: new UnreadableRecord(`is not valid JSON (${(error as Error).message})`) };
    }
  };

  for await (const chunk of chunks) {
    let i = 0;
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    }
    let start = i;
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (state === "element") {
        if (inString) {
          if (escaped) escaped = false;
          else if (b === BACKSLASH) escaped = true;
          else if (b === QUOTE) inString = false;
        } else if (b === QUOTE) inString = true;
        else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
        else if (depth > 0 && (b === CLOSE_OBJECT || b === CLOSE_ARRAY)) depth--;
        else if (depth === 0 && (b === COMMA || b === CLOSE_ARRAY)) {
          keep(chunk.subarray(start, i));
          yield finishElement();
          state = b === COMMA ? "next" : "after";
        }
        trailingSpace = !inString && isSpace(b) ? trailingSpace + 1 : 0;
      } else if (!isSpace(b)) {
        if (state === "before") {
          if (b !== OPEN_ARRAY) throw unexpected(chunk, i, "'[' to open the array");
          state = "first";
        } else if (state === "after") {
          throw unexpected(chunk, i, "nothing after the closing ']'");
        } else if (b === CLOSE_ARRAY && state === "first") {
          state = "after";
        } else if (b === CLOSE_ARRAY || b === COMMA) {
          throw unexpected(chunk, i, "a record");
        } else {
          state = "element";
          elementLine = line;
          start = i;
          size = depth = trailingSpace = 0;
          oversized = inString = escaped = false;
          i--; // the element's first byte is scanned as part of it
          continue;
        }
      }
      if (b === LF) line++;
    }
    if (state === "element") keep(chunk.subarray(start));
    start = 0;
  }
  if (state === "before") throw new FileProblem("is empty; expected a JSON array of records");
  if (state !== "after") throw new FileProblem("ends before the closing ']' of the array");
}

/** How an unexpected byte is shown: the character it starts, as JSON. */
function describeByte(chunk: Uint8Array, i: number): string {
  const text = new TextDecoder().decode(chunk.subarray(i, i + 4));
  return JSON.stringify(String.fromCodePoint(text.codePointAt(0)!));
}

/** Which line of `bytes` (0 for the first) holds the first invalid UTF-8: a line break is never inside a UTF-8 sequence. */
function lineOfInvalidUtf8(bytes: Uint8Array): number {
  let line = 0;
  for (let start = 0; ; line++) {
    const end = bytes.indexOf(LF, start);
    if (end === -1 || decodeUtf8(bytes.subarray(start, end)) === null) return line;
    start = end + 1;
  }
}
