/**
 * What differs between the SQL dialects the store runs on. The queries are one copy;
 * only column types and a few behaviours vary, and they vary here.
 */
export interface SqlCapabilities {
  dialect: "sqlite" | "postgres";
  /** Column type for calendar dates. */
  dateType: "text" | "date";
  /** Column type for booleans. */
  booleanType: "integer" | "boolean";
  /**
   * Whether concurrent writers need an explicit lock to make check-then-insert atomic
   * (Postgres, under READ COMMITTED); SQLite runs one writer at a time.
   */
  advisoryLocks: boolean;
  /**
   * Rows per statement when an import reads stored digests, writes, and stages new
   * bookings. Postgres pays a round trip per statement, so it takes them large, and
   * inserts new bookings directly (`stage: null`). SQLite runs in-process: its reads stay
   * within the 256 placeholders of a statement it keeps prepared (adapters/bun/sqlite.ts), it
   * writes one row per statement (one prepared insert run again and again beat multi-row
   * VALUES into leave_bookings by about a quarter), and it stages new bookings and inserts
   * them sorted at the end (staged-inserts.ts), several rows per statement.
   */
  importRows: { read: number; write: number; stage: number | null };
  /**
   * Whether the leave page as text is read in one statement that returns one row: the
   * page joined into one text, with the leave context it was planned on
   * (one-row-pages.ts). Postgres pays a round trip per statement; SQLite runs in-process,
   * and reads the context and then the page's rows.
   */
  leavePageInOneRow: boolean;
  /**
   * Whether an import leaves each batch's writes running while it reads and checks the
   * next rows (changed-rows.ts, `writeBehind`): on Postgres the server writes while the
   * import works; SQLite writes in the import's own thread, so there is nothing to overlap.
   */
  writesBehind: boolean;
}

export const SQLITE: SqlCapabilities = {
  dialect: "sqlite",
  dateType: "text",
  booleanType: "integer",
  advisoryLocks: false,
  importRows: { read: 255, write: 1, stage: 13 },
  leavePageInOneRow: false,
  writesBehind: false,
};
export const POSTGRES: SqlCapabilities = {
  dialect: "postgres",
  dateType: "date",
  booleanType: "boolean",
  advisoryLocks: true,
  importRows: { read: 400, write: 400, stage: null },
  leavePageInOneRow: true,
  writesBehind: true,
};
