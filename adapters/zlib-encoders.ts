/**
 * The content codings `leaveapi serve` offers (docs/api.md, "HTTP behaviour"): gzip and br
 * through node:zlib, which Bun, Node and Deno all provide, at levels chosen for pages
 * computed per request. On a page of 100 employees (29 KB; bench/RESULTS.md, target 10)
 * gzip level 2 takes about half the CPU of the default level 6 (the handler's
 * `CompressionStream`) for 13% more bytes, still about 5 × fewer than plain; brotli
 * quality 1 is cheaper still, at 4.5 ×. Such a body is coded synchronously: a tenth of a
 * millisecond, less than a thread hop would add. A large body (the 3.57 MB docs script,
 * coded once per process) is coded off the event loop, at the default levels.
 *
 * On Bun (`leaveapi serve` always runs there) a small body's gzip comes from libdeflate,
 * which Bun ships: at its level 1 it writes about the bytes of zlib's level 2 (5,514
 * against 5,572 for a 30 KB page) in the time of zlib's level 1 (about 30% less than
 * level 2), and its output is plain gzip that every client decodes.
 *
 * The web standard has no brotli, and Bun's non-standard `CompressionStream("brotli")`
 * runs at quality 11: ~80 ms for the same page.
 */
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from "node:zlib";
import type { Encoders } from "../server/compression.ts";

/** From this size a body is coded on libuv's thread pool, at the default levels. */
const LARGE_BODY_BYTES = 64 * 1024;

const asBytes = (result: Uint8Array) => new Uint8Array(result.buffer, result.byteOffset, result.byteLength);

const brotliOptions = (bytes: Uint8Array, quality: number): BrotliOptions => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
});

/** Bun's own gzip through libdeflate, where this runs on Bun; undefined elsewhere. */
const libdeflateGzip: ((bytes: Uint8Array) => Uint8Array) | undefined =
  typeof Bun === "undefined" ? undefined : (bytes) => Bun.gzipSync(bytes as Uint8Array<ArrayBuffer>, { level: 1, library: "libdeflate" });

function gzipBody(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.byteLength < LARGE_BODY_BYTES) return Promise.resolve(libdeflateGzip ? libdeflateGzip(bytes) : asBytes(gzipSync(bytes, { level: 2 })));
  return new Promise((resolve, reject) => gzip(bytes, {} satisfies ZlibOptions, (error, result) => (error ? reject(error) : resolve(asBytes(result)))));
}

function brotliBody(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.byteLength < LARGE_BODY_BYTES) return Promise.resolve(asBytes(brotliCompressSync(bytes, brotliOptions(bytes, 1))));
  return new Promise((resolve, reject) =>
    brotliCompress(bytes, brotliOptions(bytes, 5), (error, result) => (error ? reject(error) : resolve(asBytes(result)))),
  );
}

/** gzip first: when a client takes both equally, the coding every client decodes. */
export const SERVE_ENCODERS: Encoders = { gzip: gzipBody, br: brotliBody };
