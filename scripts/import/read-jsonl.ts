/**
 * JSON Lines: one JSON object per physical line, blank lines skipped. Streams: only the
 * current line is held in memory.
 */
import { decodeUtf8, UnreadableRecord, type SourceRecord } from "./source.ts";

export async function* readJsonl(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SourceRecord> {
  let pending = "";
  let line = 0;
  for await (const text of decodeUtf8(chunks)) {
    pending += text;
    let start = 0;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
      line++;
      const record = parseLine(pending.slice(start, newline), line);
      if (record) yield record;
      start = newline + 1;
    }
    pending = pending.slice(start);
  }
  if (pending !== "") {
    const record = parseLine(pending, line + 1);
    if (record) yield record;
  }
}

function parseLine(text: string, line: number): SourceRecord | null {
  if (text.trim() === "") return null;
  try {
    return { line, record: JSON.parse(text) };
  } catch (error) {
    return { line, record: new UnreadableRecord(`is not valid JSON (${(error as Error).message})`) };
  }
}
