/** The content digest by which an import tells a changed record from an unchanged one. */
import { sha256Hex, type Sha256Hex } from "../../lib/digest.ts";
import { importedContent } from "../../lib/imported-content.ts";

/**
 * A digest of what a client can see of a record (lib/imported-content.ts). Stored digests
 * are compared with it on every import: its bytes never change. `digest` is the store's
 * SHA-256 (sql-context.ts, `sha256Hex`): a runtime's native one on this hot path.
 */
export function contentDigest(row: object, digest: Sha256Hex = sha256Hex): string {
  return digest(importedContent(row));
}
