/**
 * The hashes leaveapi computes often, through node:crypto, which Bun, Node and Deno all
 * have: the same bytes as lib/'s pure-JavaScript ones (@noble/hashes), several times
 * faster. `leaveapi serve` passes the SHA-256 and the HMAC to createHandler (the digests
 * of every token request and bearer token, the cursors of every page; createHandler
 * checks each against lib/'s on a probe); the SQL stores' openers (adapters/bun/sqlite.ts,
 * adapters/node/sqlite.ts, adapters/postgres.ts) pass the SHA-256 to the store, which
 * digests every imported row's content with it; an import derives ids with the SHA-1
 * (bench/RESULTS.md, "Figures behind design choices", has the measured difference).
 *
 * A runtime part, not a host (ARCHITECTURE.md; ADAPTER_ROLES in scripts/checks/boundaries.ts):
 * it imports only lib/ and node:crypto, so a store's opener and a host may both take it
 * without a store ever depending on a host.
 */
import { createHash, createHmac, hash } from "node:crypto";
import type { Sha256Hex } from "../lib/digest.ts";
import type { Sha1 } from "../lib/ids.ts";
import type { HmacSha256 } from "../lib/cursor-codec.ts";

// The one-shot `hash` where the runtime has it (Node 20.12+, Bun) spares a Hash object per call.
const oneShot = typeof hash === "function" ? hash : undefined;

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex (lib/digest.ts's `sha256Hex`). */
export const nodeSha256Hex: Sha256Hex = oneShot ? (text) => oneShot("sha256", text, "hex") : (text) => createHash("sha256").update(text).digest("hex");

/** SHA-1 of some bytes (lib/ids.ts, for `derivedId`). */
export const nodeSha1: Sha1 = oneShot ? (bytes) => oneShot("sha1", bytes, "buffer") : (bytes) => createHash("sha1").update(bytes).digest();

/** HMAC-SHA256, all 32 bytes (lib/cursor-codec.ts's `hmacSha256`). */
export const nodeHmacSha256: HmacSha256 = (key, data) => createHmac("sha256", key).update(data).digest();
