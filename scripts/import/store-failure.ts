/**
 * Why the database refused an import's writes, in words for the person importing
 * (docs/cli.md, "Errors and transactions"; issue 35): one line, never the driver's stack.
 *
 * - A Postgres connection the server closed (an administrator's `pg_terminate_backend`,
 *   a restart, a crash) says so: `the database connection was closed by the server (…)`.
 * - SQLite's "database or disk is full" is the database's disk, or the directory SQLite
 *   keeps its temporary files in (SQLITE_TMPDIR, TMPDIR, else /var/tmp or /tmp), where a
 *   large import stages its new bookings and sorts. By the time the failure is told the
 *   rollback has given the temporary space back, while the database's disk stays full
 *   (its WAL is not cut back before the store closes): so when the two are different
 *   file systems and the database's still has room, the temporary directory is named.
 */
import { accessSync, constants, statSync, statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { StoreUnavailableError } from "../../lib/errors.ts";

/** What the database's file system must still hold for its own disk not to be the full one. */
const ROOM_BYTES = 16 * 1024 * 1024;

/**
 * admin_shutdown (pg_terminate_backend), crash_shutdown, idle_session_timeout; Bun.SQL's
 * code for a connection that closed between two statements.
 */
const POSTGRES_CLOSED_CODES = new Set(["57P01", "57P02", "57P05", "ERR_POSTGRES_CONNECTION_CLOSED"]);
/** What pg says of a connection that closed between two statements, or under one. */
const CLOSED_MESSAGES = /Connection terminated|connection error and is not queryable|terminating connection/i;

export interface StoreLocation {
  kind: "sqlite" | "postgres";
  /** The SQLite file, or the Postgres URL without its password. */
  label: string;
}

/** The failure's reason, for `import failed on the KIND database LABEL: REASON; nothing was written`. */
export function describeStoreFailure(error: unknown, store: StoreLocation, env: Readonly<Record<string, string | undefined>>): string {
  const reason = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
  const codes = [error, (error as { cause?: unknown } | null)?.cause].map((e) => (e as { code?: unknown } | null)?.code);
  if (store.kind === "postgres" && (codes.some((c) => typeof c === "string" && POSTGRES_CLOSED_CODES.has(c)) || CLOSED_MESSAGES.test(reason))) {
    return `the database connection was closed by the server (${reason})`;
  }
  if (store.kind === "sqlite" && (codes.includes("SQLITE_FULL") || /database or disk is full/i.test(reason))) {
    const temp = sqliteTempDirectory(env);
    if (temp !== null && tempDirectoryWasFull(store.label, temp.path)) {
      return (
        `SQLite's temporary directory ${temp.path} (${temp.from}) is full: a large import keeps its new rows there before it sorts them in, ` +
        "about twice the file's size; free space there, or set SQLITE_TMPDIR to a directory on a disk with room"
      );
    }
  }
  return reason;
}

/** The directory SQLite's unix VFS puts temporary files in, as it chooses it: the first writable directory of these. */
export function sqliteTempDirectory(env: Readonly<Record<string, string | undefined>>): { path: string; from: string } | null {
  const candidates: [string | undefined, string][] = [
    [env.SQLITE_TMPDIR, "SQLITE_TMPDIR"],
    [env.TMPDIR, "TMPDIR"],
    ["/var/tmp", "SQLite's default"],
    ["/usr/tmp", "SQLite's default"],
    ["/tmp", "SQLite's default"],
  ];
  for (const [path, from] of candidates) {
    if (!path) continue;
    try {
      if (!statSync(path).isDirectory()) continue;
      accessSync(path, constants.W_OK | constants.X_OK);
      return { path, from };
    } catch {}
  }
  return null;
}

/** Whether the temporary directory, not the database's disk, is what ran out (see the module comment). */
function tempDirectoryWasFull(databaseFile: string, tempDir: string): boolean {
  try {
    const databaseDir = dirname(resolve(databaseFile));
    if (statSync(databaseDir).dev === statSync(tempDir).dev) return false;
    const disk = statfsSync(databaseDir);
    return disk.bavail * disk.bsize >= ROOM_BYTES;
  } catch {
    return false;
  }
}
