/**
 * Where `leaveapi fetch` writes records: JSON Lines (one record a line, as the API sent
 * it) or CSV (a header row, then one row a record, quoted where needed by csv-stringify;
 * the nested `leave_type` flattened into `leave_type_id`, `_name`, `_category`,
 * `_is_paid`, the column names `leaveapi import` reads, so a fetched file imports again).
 * A text cell a spreadsheet would run as a formula is written with a leading `'`
 * (lib/csv-formula.ts), which `leaveapi import` takes off again.
 *
 * An incremental fetch also writes what was deleted (docs/cli.md, "fetch"), as the import
 * format spells a deletion: `{"id", "deleted": true, "updated_at"}` with `updated_at` the
 * instant the record stopped being listed (import accepts and ignores `updated_at`, and
 * would refuse a field of another name), and in CSV a `deleted` column.
 *
 * A file is written beside its final name and renamed into place only when every record
 * is in, so a fetch that fails half-way never leaves a truncated file behind under the
 * name the caller will read.
 */
import { openPartial } from "./exclusive-file.ts";
import { stringify } from "csv-stringify/sync";
import { neutraliseFormula } from "../../lib/csv-formula.ts";
import { EMPLOYEE_FIELDS, flatColumns, HOLIDAY_ENTRY_FIELDS, LEAVE_BOOKING_FIELDS } from "../../lib/record-fields.ts";

export type FetchResource = "employees" | "leave" | "holidays";
export type FetchFormat = "jsonl" | "csv";

/** The CSV columns: the API's fields in its order (lib/record-fields.ts), the leave type's flattened in its place. */
const COLUMNS: Record<FetchResource, string[]> = {
  employees: flatColumns(EMPLOYEE_FIELDS),
  leave: flatColumns(LEAVE_BOOKING_FIELDS),
  holidays: flatColumns(HOLIDAY_ENTRY_FIELDS),
};

/** The record as one flat row: nested objects become `parent_child` columns. */
export function flattenRecord(record: object): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value !== null && typeof value === "object") {
      for (const [inner, innerValue] of Object.entries(value)) row[`${key}_${inner}`] = innerValue;
    } else row[key] = value;
  }
  return row;
}

/** One CSV line, without its line break. null is an empty cell; booleans are true/false, as import reads them. */
function csvLine(cells: unknown[]): string {
  return stringify([cells], { cast: { boolean: (b) => String(b) } }).replace(/\n$/, "");
}

/** A record the API no longer lists (the deletions feed's entry, without its resource). */
export interface DeletedRecord {
  id: string;
  deleted_at: string;
}

export interface LineFormatter {
  header: string | null;
  line: (record: object) => string;
  /** A deletion as an import row marks one: its id, `deleted: true`, `updated_at` = when. */
  deletion: (deleted: DeletedRecord) => string;
}

const deletionRow = (d: DeletedRecord) => ({ id: d.id, deleted: true, updated_at: d.deleted_at });

/**
 * Turns records into output lines (without line breaks) in the chosen format. `withDeleted`
 * (an incremental fetch): CSV gets a last column `deleted`, false on a record's row, so
 * that every run of one state file writes the same header.
 */
export function createLineFormatter(resource: FetchResource, format: FetchFormat, withDeleted = false): LineFormatter {
  if (format === "jsonl") return { header: null, line: (record) => JSON.stringify(record), deletion: (d) => JSON.stringify(deletionRow(d)) };
  const columns = withDeleted ? [...COLUMNS[resource], "deleted"] : COLUMNS[resource];
  const rowLine = (row: Record<string, unknown>) =>
    // Only text can start with a formula character: ids, dates, instants, statuses and
    // calendar keys never do, and numbers and booleans are written as they are.
    csvLine(columns.map((c) => (typeof row[c] === "string" ? neutraliseFormula(row[c]) : (row[c] ?? null))));
  return {
    header: csvLine(columns),
    line: (record) => rowLine(withDeleted ? { ...flattenRecord(record), deleted: false } : flattenRecord(record)),
    deletion: (d) => rowLine(deletionRow(d)),
  };
}

export interface LineSink {
  write(line: string): Promise<void>;
  /** Makes the output final (renames a file into place). */
  commit(): Promise<void>;
  /** Drops what was written (removes the partial file). */
  discard(): Promise<void>;
}

const FLUSH_BYTES = 64 * 1024;

/** Lines into `path`, through a partial file renamed into place on commit (exclusive-file.ts). */
export async function fileSink(path: string): Promise<LineSink> {
  const partial = await openPartial(path);
  const { handle } = partial;
  let buffered: string[] = [];
  let size = 0;
  const flush = async () => {
    if (buffered.length === 0) return;
    const text = buffered.join("");
    buffered = [];
    size = 0;
    await handle.write(text);
  };
  return {
    async write(line) {
      buffered.push(`${line}\n`);
      size += line.length + 1;
      if (size >= FLUSH_BYTES) await flush();
    },
    async commit() {
      await flush();
      await handle.sync();
      await handle.close();
      await partial.commit();
    },
    discard: () => partial.discard(),
  };
}

/** Lines to stdout as they come. */
export function stdoutSink(out: (line: string) => void): LineSink {
  return {
    write: async (line) => out(line),
    commit: async () => {},
    discard: async () => {},
  };
}
