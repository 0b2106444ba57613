/**
 * A JSON file holding one top-level array of records, streamed: a small scanner finds
 * where each element starts and ends (tracking strings and nesting) and only that
 * element's text is held and parsed, so memory follows the largest record, not the file.
 * An element's line is the physical line its first character is on. A file that is not
 * one array (no `[`, text after `]`, ends early, a stray comma) is a FileProblem; an
 * element that is not valid JSON is an unreadable record, and the scan goes on.
 */
import { decodeUtf8, FileProblem, UnreadableRecord, type SourceRecord } from "./source.ts";

type State = "before" | "first" | "next" | "element" | "after";

const isSpace = (ch: string) => ch === " " || ch === "\n" || ch === "\r" || ch === "\t";

export async function* readJsonArray(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SourceRecord> {
  let state = "before" as State;
  let line = 1;
  let parts: string[] = [];
  let elementLine = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  const unexpected = (ch: string, what: string) => new FileProblem(`is not a JSON array of records: unexpected ${JSON.stringify(ch)} on line ${line}; expected ${what}`);

  for await (const text of decodeUtf8(chunks)) {
    let start = 0;
    const finishElement = (end: number): SourceRecord => {
      parts.push(text.slice(start, end));
      const source = parts.join("");
      parts = [];
      try {
        return { line: elementLine, record: JSON.parse(source) };
      } catch (error) {
        return { line: elementLine, record: new UnreadableRecord(`is not valid JSON (${(error as Error).message})`) };
      }
    };
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (state === "element") {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === "\\") escaped = true;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === "{" || ch === "[") depth++;
        else if (depth > 0 && (ch === "}" || ch === "]")) depth--;
        else if (depth === 0 && (ch === "," || ch === "]")) {
          yield finishElement(i);
          state = ch === "," ? "next" : "after";
        }
      } else if (!isSpace(ch)) {
        if (state === "before") {
          if (ch !== "[") throw unexpected(ch, "'[' to open the array");
          state = "first";
        } else if (state === "after") {
          throw unexpected(ch, "nothing after the closing ']'");
        } else if (ch === "]" && state === "first") {
          state = "after";
        } else if (ch === "]" || ch === ",") {
          throw unexpected(ch, "a record");
        } else {
          state = "element";
          elementLine = line;
          start = i;
          depth = 0;
          i--; // the element's first character is scanned as part of it
        }
      }
      if (ch === "\n") line++;
    }
    if (state === "element") parts.push(text.slice(start));
  }
  if (state === "before") throw new FileProblem("is empty; expected a JSON array of records");
  if (state !== "after") throw new FileProblem("ends before the closing ']' of the array");
}
