/**
 * An existing SQLite file as `leaveapi check` and `leaveapi backup` open it, and what SQLite
 * itself says is wrong with it: both commands check a file the same way.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { CommandError } from "./cli-kit.ts";

/** A long list helps nobody: the first problems say what is wrong, the count says how much. */
const MAX_LISTED = 100;

/** Opens an existing SQLite file read-write (never creating it); a missing file is a CommandError. */
export function openExistingSqlite(file: string): Database {
  if (!existsSync(file)) throw new CommandError(`no SQLite database at ${file}`);
  try {
    const db = new Database(file, { readwrite: true, create: false, strict: true });
    // The server may be writing: wait for its lock rather than fail at once.
    db.exec("PRAGMA busy_timeout = 5000");
    return db;
  } catch (error) {
    throw new CommandError(`cannot open the SQLite database ${file}: ${(error as Error).message}`);
  }
}

/** The problems `integrity_check` and `foreign_key_check` report; empty when the file is sound. */
export function sqliteProblems(db: Database): string[] {
  try {
    const integrity = db
      .query<{ integrity_check: string }, []>(`PRAGMA integrity_check(${MAX_LISTED})`)
      .all()
      .flatMap((r) => r.integrity_check.split("\n"));
    if (!(integrity.length === 1 && integrity[0] === "ok")) {
      // SQLite heads its report with "*** in database main ***": noise for a one-database check.
      return integrity.filter((line) => !/^\*\*\* in database /.test(line)).map((line) => `integrity: ${line}`);
    }
    const orphans = db.query<{ table: string; rowid: number | null; parent: string }, []>("PRAGMA foreign_key_check").all();
    const listed = orphans.slice(0, MAX_LISTED).map((r) => `foreign key: ${r.table} row ${r.rowid ?? "?"} refers to a ${r.parent} row that does not exist`);
    if (orphans.length > MAX_LISTED) listed.push(`foreign key: … and ${orphans.length - MAX_LISTED} more rows like these`);
    return listed;
  } catch (error) {
    // A damaged header or schema page makes the pragmas themselves fail (SQLITE_CORRUPT, SQLITE_NOTADB).
    return [`the database cannot be read: ${(error as Error).message}`];
  }
}
