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
}

export const SQLITE: SqlCapabilities = { dialect: "sqlite", dateType: "text", booleanType: "integer", advisoryLocks: false };
export const POSTGRES: SqlCapabilities = { dialect: "postgres", dateType: "date", booleanType: "boolean", advisoryLocks: true };
