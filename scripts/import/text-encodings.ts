/**
 * The encodings an import reads (`--encoding`, or `encoding` in a `--map`; docs/cli.md,
 * "Other systems' exports"): UTF-8 by default (a byte-order mark is allowed), else the
 * file's bytes are converted to UTF-8 as they stream, so that everything after (line
 * numbers, the 1 MiB limits, CSV and JSON parsing) reads UTF-8 as it always does. Line
 * breaks survive the conversion, so lines keep their numbers.
 *
 * A UTF-16 little-endian byte-order mark (FF FE, as Excel's "Unicode text" starts) is
 * recognised without being told. `iso-8859-1` is read as windows-1252, its superset (the
 * WHATWG Encoding Standard's rule, which every browser follows): the bytes 0x80–0x9F are
 * the letters and signs Windows puts there, never invisible control characters.
 */
import type { Encoding } from "./import-map.ts";
import { FileProblem } from "./source.ts";
import { guessingUtf8, type EncodingGuess } from "./encoding-guess.ts";

/**
 * `chunks` as UTF-8: as they are when the file is UTF-8, converted from `encoding`
 * otherwise. With `onGuess` (a dry run that names no encoding), a file that is not UTF-8
 * reads on as Windows-1252 from its first byte that is not (encoding-guess.ts).
 */
export async function* toUtf8(
  chunks: AsyncIterable<Uint8Array>,
  encoding: Encoding | undefined,
  onGuess?: (guess: EncodingGuess) => void,
): AsyncIterable<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    yield* converted(iterator, encoding, onGuess);
  } finally {
    // Reading may stop early (a FileProblem further on): the file is closed all the same.
    await iterator.return?.();
  }
}

async function* converted(
  iterator: AsyncIterator<Uint8Array>,
  encoding: Encoding | undefined,
  onGuess?: (guess: EncodingGuess) => void,
): AsyncIterable<Uint8Array> {
  let first = await nextNonEmpty(iterator);
  if (first === null) return;
  let from: Encoding | undefined = encoding;
  if (first[0] === 0xff && first[1] === 0xfe && (from === undefined || from === "utf-16le")) from = "utf-16le";
  else if (first[0] === 0xfe && first[1] === 0xff)
    throw new FileProblem("is UTF-16 big-endian, which import does not read; save it as UTF-8 (or UTF-16 little-endian)");
  if (from === undefined && onGuess !== undefined) {
    yield* guessingUtf8(iterator, first, onGuess);
    return;
  }
  if (from === undefined || from === "utf-8") {
    yield first;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    return;
  }
  // A byte-order mark is dropped; UTF-16 that is not valid (a lone surrogate) stops the import rather than becoming U+FFFD.
  const decoder = new TextDecoder(from, { fatal: from === "utf-16le" });
  const encoder = new TextEncoder();
  const convert = (bytes: Uint8Array, stream: boolean) => {
    try {
      return encoder.encode(decoder.decode(bytes, { stream }));
    } catch {
      throw new FileProblem(`is not valid ${from === "utf-16le" ? "UTF-16" : from}: check --encoding (reading stopped there)`);
    }
  };
  while (first !== null) {
    const text = convert(first, true);
    if (text.length > 0) yield text;
    const next = await iterator.next();
    first = next.done ? null : next.value;
  }
  const rest = convert(new Uint8Array(0), false);
  if (rest.length > 0) yield rest;
}

async function nextNonEmpty(iterator: AsyncIterator<Uint8Array>): Promise<Uint8Array | null> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) return null;
    if (next.value.length > 0) return next.value;
  }
}
