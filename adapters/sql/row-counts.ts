/**
 * A page's row count written into its SQL as a literal. SQLite reads a page faster with
 * `LIMIT 101` than with `LIMIT ?` bound to 101: a leave page merges its span classes
 * several times faster, as only a literal limit reaches into each class's scan, and even
 * the employees page's single index scan takes less (bench/RESULTS.md, "Figures behind
 * design choices"). A page asks for
 * the smallest count that holds the rows it needs and keeps those; the counts are the
 * limits clients mostly ask for, plus one, so the statements stay few.
 */
import type { QueryDefinition } from "./compiled-queries.ts";

const ROW_COUNTS = [11, 26, 51, 101, 201, 501] as const;

/** The smallest of ROW_COUNTS that holds `rows`; past them (a store called directly for more than the API's 500), whole thousands. */
export function rowCountFor(rows: number): number {
  return ROW_COUNTS.find((n) => n >= rows) ?? Math.ceil(rows / 1000) * 1000;
}

/** A query defined once per row count (`define` writes the count into its SQL), so that each is compiled once (compiled-queries.ts keeps them by definition). */
export function perRowCount<V extends object, R>(define: (rowCount: number) => QueryDefinition<V, R>): (rows: number) => QueryDefinition<V, R> {
  const byCount = new Map<number, QueryDefinition<V, R>>();
  return (rows) => {
    const count = rowCountFor(rows);
    let definition = byCount.get(count);
    if (!definition) {
      definition = define(count);
      byCount.set(count, definition);
    }
    return definition;
  };
}

/** The first `rows` of what a statement written for rowCountFor(rows) returned. */
export function firstRows<R>(result: R[], rows: number): R[] {
  return result.length > rows ? result.slice(0, rows) : result;
}
