/**
 * The SQLite tokens file (adapters/sql/sqlite-store.ts, `tokensFileOf`) as the openers of
 * adapters/bun/sqlite.ts and adapters/node/sqlite.ts keep it: created with the data file's
 * mode, so that neither it nor the -wal and -shm SQLite makes beside it (which take its
 * mode) is more readable than the data; and watched, so that a file deleted, replaced or
 * made read-only under a running process is a fault (503, `/healthz` names token
 * issuance) rather than a file it goes on writing alone. A process that wrote on in a
 * deleted file would keep tokens that `org disable-api` deleted from the new one, and an
 * `enable-api` would bring them back (issue 35).
 */
import { closeSync, chmodSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { StoreUnavailableError } from "../lib/errors.ts";
import { tokensFileOf } from "./sql/sqlite-store.ts";

/**
 * Before SQLite attaches it: a missing tokens file is created empty with the data file's
 * mode, and one open to more than the data file (made by an earlier version, with the
 * umask's mode) is narrowed to it, never widened.
 */
export function createTokensFile(filename: string): void {
  if (filename === ":memory:") return;
  const data = statSync(filename, { throwIfNoEntry: false });
  if (!data) return;
  const mode = data.mode & 0o777;
  let fd: number;
  try {
    fd = openSync(tokensFileOf(filename), "wx", mode);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    for (const suffix of ["", "-wal", "-shm"]) narrowMode(`${tokensFileOf(filename)}${suffix}`, mode);
    return;
  }
  closeSync(fd);
  // The umask may have taken bits off; an empty file is a new SQLite database.
  chmodSync(tokensFileOf(filename), mode);
}

/**
 * Takes from `file`'s group and other bits what `mode` lacks (its owner's are left: a
 * read-only data file must not make token issuance fail); a file that is gone, or not
 * this user's to change, is left.
 */
function narrowMode(file: string, mode: number): void {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat || (stat.mode & 0o077 & ~mode) === 0) return;
  try {
    chmodSync(file, (stat.mode & 0o700) | (stat.mode & 0o077 & mode));
  } catch {
    // Another user's file: SQLite opens it as it can, and `leaveapi check` says if it is read-only.
  }
}

function fault(file: string, what: string): StoreUnavailableError {
  return new StoreUnavailableError(
    `The tokens file ${file} ${what} while this process had it open: tokens cannot be issued or checked until the file is sound and the process restarted (docs/install.md, "The tokens file").`,
    { part: "token_issuance" },
  );
}

/**
 * Once SQLite has the tokens file open: a check that throws StoreUnavailableError when the
 * path no longer names that file (deleted, or replaced: another device and inode), the
 * file is read-only, or its header is no longer SQLite's (damaged). None for ":memory:" or
 * where SQLite attached no file (Deno).
 */
export function watchTokensFile(filename: string): (() => void) | undefined {
  if (filename === ":memory:") return undefined;
  const file = tokensFileOf(filename);
  const opened = statSync(file, { throwIfNoEntry: false });
  if (!opened) return undefined;
  let headerReadAt = Number.NEGATIVE_INFINITY;
  let descriptor: number | undefined;
  return () => {
    const now = statSync(file, { throwIfNoEntry: false });
    if (!now) throw fault(file, "was deleted");
    if (now.ino !== opened.ino || now.dev !== opened.dev) throw fault(file, "was replaced by another file");
    if ((now.mode & 0o222) === 0) throw fault(file, "was made read-only");
    // SQLite reads what it has cached and what its log holds, and would not see a header
    // overwritten under it until much later: the header is read again, once a second at most.
    if (performance.now() - headerReadAt >= HEADER_EVERY_MS) {
      // The descriptor found last, while it still names the file; else looked for again.
      if (descriptor === undefined || !names(descriptor, opened)) descriptor = descriptorOf(opened.ino, opened.dev);
      const fd = descriptor;
      if (fd !== undefined && !hasSqliteHeader(fd, now.size)) throw fault(file, "was damaged (it no longer starts with SQLite's header)");
      headerReadAt = performance.now();
    }
  };
}

const HEADER_EVERY_MS = 1000;
const SQLITE_HEADER = "SQLite format 3\0";

/**
 * A descriptor SQLite holds on the file with inode `ino`, found in /proc/self/fd (Linux;
 * elsewhere none, and the header goes unread). The header is read through SQLite's own
 * descriptor, never by opening the path: closing any descriptor of a file drops every
 * POSIX lock this process holds on it, SQLite's included.
 */
function descriptorOf(ino: number, dev: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc/self/fd");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const fd = Number(entry);
    // One closed since it was listed (the listing's own among them) names nothing.
    if (names(fd, { ino, dev })) return fd;
  }
  return undefined;
}

/** Whether `fd` is open on the file `file` names by device and inode. */
function names(fd: number, file: { ino: number; dev: number }): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.ino === file.ino && stat.dev === file.dev;
  } catch {
    return false;
  }
}

/** Whether the file SQLite has open as `fd` starts as every SQLite database does; an empty one (no page written yet) does. */
function hasSqliteHeader(fd: number, size: number): boolean {
  if (size === 0) return true;
  const bytes = Buffer.alloc(SQLITE_HEADER.length);
  readSync(fd, bytes, 0, bytes.length, 0);
  return bytes.toString("latin1") === SQLITE_HEADER;
}
