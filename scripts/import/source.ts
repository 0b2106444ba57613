/**
 * Where import records come from: the format (by `--format`, else the file's extension;
 * stdin defaults to JSONL), the bytes (a file or stdin, streamed), and the two ways
 * reading can fail. A `FileProblem` stops the import (`FILE: problem`); an
 * `UnreadableRecord` stands in for one bad record and becomes a row error (`FILE:LINE: row: …`).
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";

export type ImportFormat = "jsonl" | "json" | "csv";
export const IMPORT_FORMATS: readonly ImportFormat[] = ["jsonl", "json", "csv"];

/** One record of the file and the physical line it starts on (1-based). */
export interface SourceRecord {
  line: number;
  record: unknown;
}

/** The file as a whole cannot be read: the message is the problem, without the file name. */
export class FileProblem extends Error {
  override name = "FileProblem";
}

/** A record that could not even be parsed (bad JSON, wrong number of CSV fields). */
export class UnreadableRecord {
  constructor(readonly problem: string) {}
}

/** The path, or `stdin` for `-`: how errors name the file. */
export function sourceLabel(file: string): string {
  return file === "-" ? "stdin" : file;
}

export function chooseFormat(file: string, format?: ImportFormat): ImportFormat {
  if (format !== undefined) return format;
  if (file === "-") return "jsonl";
  const extension = /\.([A-Za-z]+)$/.exec(file)?.[1]?.toLowerCase();
  if (extension === "jsonl" || extension === "json" || extension === "csv") return extension;
  throw new FileProblem("cannot tell the format from the file name: name it .jsonl, .json or .csv, or pass --format jsonl|json|csv");
}

/** The file's bytes as a stream; a missing or unreadable file is a FileProblem. */
export async function openFile(path: string): Promise<AsyncIterable<Uint8Array>> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new FileProblem("is a directory, not a file");
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem(describeIoError(error));
  }
  return rethrowAsFileProblem(createReadStream(path));
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

/** Text of a byte stream; invalid UTF-8 is a FileProblem rather than silent U+FFFD. A BOM is dropped. */
export async function* decodeUtf8(chunks: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  try {
    for await (const chunk of chunks) {
      const text = decoder.decode(chunk, { stream: true });
      if (text !== "") yield text;
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
  } catch (error) {
    if (error instanceof TypeError) throw new FileProblem("is not valid UTF-8 text");
    throw error;
  }
}
