/**
 * Where import records come from: the format (by `--format`, else the file's extension;
 * stdin defaults to JSONL), the bytes (a file or stdin, streamed), and the two ways
 * reading can fail. A `FileProblem` stops the import (`FILE: problem`, or `FILE:LINE:
 * problem` when it is at one line); an `UnreadableRecord` stands in for one bad record
 * and becomes a row error (`FILE:LINE: row: …`).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";

export type ImportFormat = "jsonl" | "json" | "csv" | "xlsx";
export const IMPORT_FORMATS: readonly ImportFormat[] = ["jsonl", "json", "csv", "xlsx"];

/** One record of the file and the physical line it starts on (1-based). */
export interface SourceRecord {
  line: number;
  record: unknown;
}

/** The file cannot be read on: the message is the problem, without the file name; `line` says where, when known. */
export class FileProblem extends Error {
  override name = "FileProblem";
  constructor(
    message: string,
    readonly line: number | null = null,
  ) {
    super(message);
  }
}

/** A record that could not even be parsed (bad JSON, wrong number of CSV fields). */
export class UnreadableRecord {
  constructor(readonly problem: string) {}
}

/** A CSV file's header row: its columns are checked once, at its line, not on every row. */
export class CsvHeader {
  constructor(readonly names: readonly string[]) {}
}

/**
 * A header row's names, trimmed; a column without a name, or a name twice, stops the
 * import at the header's line. `column` says how a column is named (CSV: 1, 2, …; a
 * workbook: A, B, …).
 */
export function checkedHeader(cells: string[], line: number, column: (index: number) => string): string[] {
  const names = cells.map((c) => c.trim());
  names.forEach((name, i) => {
    if (name === "") throw new FileProblem(`header: column ${column(i)} has no name`, line);
    if (names.indexOf(name) !== i) throw new FileProblem(`header: column "${name}" appears twice`, line);
  });
  return names;
}

/** The path, or `stdin` for `-`: how errors name the file. */
export function sourceLabel(file: string): string {
  return file === "-" ? "stdin" : file;
}

/** The file's format: `format` when given, else from its extension (stdin is JSONL); `null` when the name does not tell. */
export function formatOf(file: string, format?: ImportFormat): ImportFormat | null {
  if (format !== undefined) return format;
  if (file === "-") return "jsonl";
  const extension = /\.([A-Za-z]+)$/.exec(file)?.[1]?.toLowerCase();
  return extension === "jsonl" || extension === "json" || extension === "csv" || extension === "xlsx" ? extension : null;
}

/** The file's bytes as a stream, and its size for the progress line; a missing or unreadable file is a FileProblem. */
export async function openFile(path: string): Promise<{ chunks: AsyncIterable<Uint8Array>; size: number | undefined }> {
  let size: number | undefined;
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new FileProblem("is a directory, not a file");
    // A pipe or device given by name has no size to count towards.
    size = info.isFile() ? info.size : undefined;
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem(describeIoError(error));
  }
  return { chunks: rethrowAsFileProblem(createReadStream(path)), size };
}

/** `chunks` unchanged, telling `onBytes` the length of each as it passes. */
export async function* countingBytes(chunks: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncIterable<Uint8Array> {
  for await (const chunk of chunks) {
    onBytes(chunk.length);
    yield chunk;
  }
}

async function* rethrowAsFileProblem(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* chunks;
  } catch (error) {
    throw new FileProblem(describeIoError(error));
  }
}

function describeIoError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "cannot read: no such file";
  if (code === "EACCES" || code === "EPERM") return "cannot read: permission denied";
  return `cannot read: ${(error as Error)?.message ?? String(error)}`;
}

/** The longest line or record an import reads, in bytes, its line break excluded (README "Importing data"). */
export const MAX_RECORD_BYTES = 1024 * 1024;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of some bytes, or `null` when they are not valid UTF-8 (never a silent U+FFFD). */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Input must be UTF-8 (README "Importing data"); the first line that is not stops the import. */
export const notUtf8 = (line: number) =>
  new FileProblem(
    `row: is not valid UTF-8; save the file as UTF-8, or name its encoding with --encoding windows-1252|iso-8859-1|utf-16le or "encoding" in a --map file (reading stopped at this line; --dry-run reads on to find the other problems)`,
    line,
  );

/** Lines and records are at most MAX_RECORD_BYTES; `what` is "a line" or "a record". */
export const tooLong = (size: number, what: string) =>
  `is ${size.toLocaleString("en")} bytes long; ${what} may be at most 1 MiB (${MAX_RECORD_BYTES.toLocaleString("en")} bytes)`;
