/** The content digest by which an import tells a changed record from an unchanged one. */
import { createHash } from "node:crypto";
import { importedContent } from "../../lib/imported-content.ts";

/**
 * A digest of what a client can see of a record (lib/imported-content.ts). Stored digests
 * are compared with it on every import: its bytes never change.
 */
export function contentDigest(row: object): string {
  // SHA-256 from node:crypto (Bun, Node and Deno all have it): the same bytes as
  // lib/digest.ts, a few times faster, and an import hashes every row.
  return createHash("sha256").update(importedContent(row)).digest("hex");
}
