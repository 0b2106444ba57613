/**
 * The content codings `leaveapi serve` offers (docs/api.md, "HTTP behaviour"): the
 * handler's web-standard gzip, and br through node:zlib (which Bun, Node and Deno all
 * provide) at quality 4. The web standard has no brotli, and Bun's non-standard
 * `CompressionStream("brotli")` runs at quality 11: ~80 ms for a page of 100 employees,
 * against ~0.4 ms here for bytes within 10% of it. node:zlib's asynchronous form runs off
 * the event loop, which matters for the 3.57 MB docs script.
 */
import { brotliCompress, constants } from "node:zlib";
import { WEB_ENCODERS, type Encoders } from "../server/compression.ts";

const BROTLI_QUALITY = 4;

function brotli(bytes: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    brotliCompress(
      bytes,
      { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } },
      (error, result) => (error ? reject(error) : resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength))),
    );
  });
}

/** gzip first: when a client takes both equally, the cheaper one (bench/RESULTS.md). */
export const SERVE_ENCODERS: Encoders = { ...WEB_ENCODERS, br: brotli };
