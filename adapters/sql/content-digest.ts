/** The content digest by which an import tells a changed record from an unchanged one. */
import { importedContent } from "../../lib/imported-content.ts";
import { nodeSha256Hex } from "../node-crypto.ts";

/**
 * A digest of what a client can see of a record (lib/imported-content.ts). Stored digests
 * are compared with it on every import: its bytes never change.
 */
export function contentDigest(row: object): string {
  return nodeSha256Hex(importedContent(row));
}
