/**
 * JSON Lines: one JSON object per physical line, blank lines skipped. Streams: only the
 * current line is held in memory, and a line over 1 MiB is not even that (read-lines.ts):
 * it becomes an error on its line and reading goes on with the next.
 */
import { readLines } from "./read-lines.ts";
import { decodeUtf8, notUtf8, tooLong, UnreadableRecord, type SourceRecord } from "./source.ts";

export async function* readJsonl(chunks: AsyncIterable<Uint8Array>): AsyncIterable<SourceRecord> {
  for await (const lines of readLines(chunks)) {
    for (const { line, bytes, size } of lines) {
      if (bytes === null) {
        yield { line, record: new UnreadableRecord(tooLong(size, "a line")) };
        continue;
      }
      const text = decodeUtf8(bytes);
      if (text === null) throw notUtf8(line);
      if (text.trim() === "") continue;
      yield { line, record: parseJson(text) };
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return new UnreadableRecord(`is not valid JSON (${(error as Error).message})`);
  }
}
