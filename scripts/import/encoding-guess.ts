/**
 * A dry run of a file that is not UTF-8, and names no encoding, reads on as Windows-1252
 * (DECISIONS §11, "Messages for the person importing"): the person learns in one run
 * both the `"encoding"` their map needs and every other problem of the file, rather than
 * the encoding first and the rest on the next try. Only a dry run guesses, and the guess
 * is itself a problem, so nothing is ever written from a guessed encoding.
 *
 * Bytes before the first that is not UTF-8 pass as they are; from there on, everything is
 * converted from Windows-1252 (what every Western European export not in UTF-8 turns out
 * to be). A file with NUL bytes there is more likely UTF-16 without its mark: no guess.
 */
import { isUtf8 } from "node:buffer";

/** Where the file stopped being UTF-8, and the word there as Windows-1252 reads it. */
export interface EncodingGuess {
  line: number;
  word: string;
}

/** `chunks` as UTF-8, switching to Windows-1252 at the first byte that is not UTF-8 (told once to `onGuess`). */
export async function* guessingUtf8(chunks: AsyncIterator<Uint8Array>, first: Uint8Array, onGuess: (guess: EncodingGuess) => void): AsyncIterable<Uint8Array> {
  let carry = new Uint8Array(0);
  let line = 1;
  /** The last bytes passed on: the start of the word the guess shows may be in them. */
  let tail = new Uint8Array(0);
  for (let chunk: Uint8Array | null = first; ; ) {
    const bytes = chunk === null ? carry : concat(carry, chunk);
    // A sequence cut by the chunk's end waits for the next chunk; at the end of the file it is what is wrong.
    const end = chunk === null ? bytes.length : completeEnd(bytes);
    const bad = isUtf8(bytes.subarray(0, end)) ? -1 : firstInvalid(bytes, end);
    if (bad === -1 && chunk !== null) {
      line += countLines(bytes, end);
      if (end > 0) yield bytes.subarray(0, end);
      tail = bytes.slice(Math.max(0, end - 30), end);
      carry = bytes.slice(end);
      const next = await chunks.next();
      chunk = next.done ? null : next.value;
      continue;
    }
    if (bad === -1 || bytes.subarray(bad, bad + 64).includes(0)) {
      // At the end with nothing cut, or a file that is no Windows-1252 text: as it is, for the readers to report.
      if (bytes.length > 0) yield bytes;
      if (chunk !== null) for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
      return;
    }
    if (bad > 0) yield bytes.subarray(0, bad);
    onGuess({ line: line + countLines(bytes, bad), word: wordAt(concat(tail, bytes), tail.length + bad) });
    const decoder = new TextDecoder("windows-1252");
    const encoder = new TextEncoder();
    yield encoder.encode(decoder.decode(bytes.subarray(bad), { stream: true }));
    if (chunk !== null)
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield encoder.encode(decoder.decode(next.value, { stream: true }));
    return;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function countLines(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** The length of `bytes` less a multi-byte sequence its end cuts short. */
function completeEnd(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if (b < 0x80) return bytes.length;
    if (b >= 0xc0) return sequenceLength(b) > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/** The offset of the first byte of `bytes` (before `end`) that starts no valid UTF-8 sequence. */
function firstInvalid(bytes: Uint8Array, end: number): number {
  let i = 0;
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const length = b >= 0xc2 && b <= 0xf4 ? sequenceLength(b) : 0;
    // The second byte's range depends on the lead (no overlong forms, no surrogates, nothing past U+10FFFF).
    const low = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const high = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    if (length === 0 || i + length > end) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return end;
}

/** The word around `at` (between separators, at most 30 bytes either side), read as Windows-1252. */
function wordAt(bytes: Uint8Array, at: number): string {
  const separator = (b: number) => b === 0x0a || b === 0x0d || b === 0x20 || b === 0x2c || b === 0x3b || b === 0x09 || b === 0x22;
  let from = at;
  while (from > 0 && at - from < 30 && !separator(bytes[from - 1]!)) from--;
  let to = at;
  while (to < bytes.length && to - at < 30 && !separator(bytes[to]!)) to++;
  return new TextDecoder("windows-1252").decode(bytes.subarray(from, to));
}
