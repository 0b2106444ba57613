/**
 * How an import tells a changed record from an unchanged one, for every store: by what a
 * client can see of it. An identical re-import must move no `updated_at` (docs/api.md,
 * "Incremental sync"), so the SQL store keeps a digest of this text beside each row
 * (adapters/sql/content-digest.ts) and the memory store compares it directly.
 */

/**
 * The canonical text of a record's fields, in sorted order (so the order an input was
 * built in does not matter). `external_id` is left out: the API never shows it, so it
 * must not move `updated_at`, and an import that omits it keeps the stored one. The SQL
 * store compares digests of this text on every import: its bytes never change.
 */
export function importedContent(row: object): string {
  const values = row as Record<string, unknown>;
  return JSON.stringify(digestKeys(row).map((key) => [key, values[key]]));
}

/** The keys of the last row shape seen, and the same keys in content order: rows come in a few shapes. */
let lastShape: { keys: string[]; sorted: string[] } = { keys: [], sorted: [] };

function digestKeys(row: object): string[] {
  const keys = Object.keys(row);
  const last = lastShape.keys;
  if (keys.length !== last.length || keys.some((key, i) => key !== last[i])) {
    const sorted = keys.filter((key) => key !== "external_id").sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    lastShape = { keys, sorted };
  }
  return lastShape.sorted;
}

/** The rows of one write with one per id: later rows with the same id win, as they would if written one by one. */
export function lastById<T extends { id: string }>(rows: T[]): T[] {
  return [...new Map(rows.map((r) => [r.id, r])).values()];
}
