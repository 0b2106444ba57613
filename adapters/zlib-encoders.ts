/**
 * The content codings `leaveapi serve` offers (docs/api.md, "HTTP behaviour"): gzip and br
 * through node:zlib, which Bun, Node and Deno all provide, at levels chosen for pages
 * computed per request. On a page of 100 employees (bench/RESULTS.md, target 10) gzip
 * level 2 takes much less CPU than the default level 6 (the handler's
 * `CompressionStream`) for a few more bytes, still several times fewer than plain; brotli
 * quality 1 is cheaper still. Such a body is coded synchronously, in less time than a
 * thread hop would add. A large body (the docs script, megabytes, coded once per
 * process) is coded off the event loop, at the default levels.
 *
 * On Bun (`leaveapi serve` always runs there) a small body's gzip comes from libdeflate,
 * which Bun ships: at its level 1 it writes about the bytes of zlib's level 2 in the time
 * of zlib's level 1, and its output is plain gzip that every client decodes.
 *
 * The web standard has no brotli, and Bun's non-standard `CompressionStream("brotli")`
 * runs at quality 11, far too slow for a page made per request.
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
