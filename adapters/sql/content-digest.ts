/** The content digest by which an import tells a changed record from an unchanged one. */
import { createHash, hash } from "node:crypto";
import { importedContent } from "../../lib/imported-content.ts";

// SHA-256 from node:crypto (Bun, Node and Deno all have it): the same bytes as
// lib/digest.ts, a few times faster, and an import hashes every row. The one-shot `hash`
// where the runtime has it (Node 20.12+, Bun) spares a Hash object per row.
const sha256Hex: (text: string) => string =
  typeof hash === "function" ? (text) => hash("sha256", text, "hex") : (text) => createHash("sha256").update(text).digest("hex");

/**
 * A digest of what a client can see of a record (lib/imported-content.ts). Stored digests
 * are compared with it on every import: its bytes never change.
 */
export function contentDigest(row: object): string {
  return sha256Hex(importedContent(row));
}
