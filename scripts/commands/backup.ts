/**
 * `leaveapi backup FILE`: a consistent copy of the SQLite database, safe while the server
 * runs and while an import writes.
 *
 * Why `VACUUM INTO` and not a file copy: it reads the database inside one read
 * transaction, so in WAL mode it sees one committed state (never half an import, never a
 * torn page) while writers go on; and it writes a compact, self-contained file (rollback
 * journal mode, no -wal beside it). The copy is written next to FILE under a temporary
 * name, checked with `PRAGMA integrity_check`, and only then renamed into place, so a
 * failed backup never leaves a half-written FILE nor destroys the previous one.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CommandError, parseCommandArgs, report, requireValue, type Command } from "../cli-kit.ts";
import { tokensFileOf } from "../../adapters/sql/sqlite-store.ts";
import { locateStore } from "../open-store.ts";
import { openExistingSqlite, sqliteProblems } from "../sqlite-integrity.ts";

const USAGE = "leaveapi backup [--force] FILE";

/** Removes a file and the -wal/-shm/-journal files SQLite may have left beside it. */
function removeDatabaseFiles(file: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * The access controls set while an import held the data file's lock are in the tokens file
 * only until the data file gets its copy (adapters/sql/access-controls.ts): the backup
 * gets them too, so that a restore without the tokens file revives no revoked credentials
 * and no switched-off organisation. Read after the snapshot: a control is never older in
 * the copy than in the data file.
 */
function copyAccessControls(source: string, temp: string): void {
  const tokens = tokensFileOf(source);
  if (!existsSync(tokens)) return;
  let organisations: { organisation_id: string; api_enabled: number; version: number }[];
  let clients: {
    client_id: string;
    revoked_at: number | null;
    secret_digest: string | null;
    previous_secret_digest: string | null;
    previous_secret_expires_at: number | null;
    secret_version: number;
  }[];
  const read = openExistingSqlite(tokens);
  try {
    const has = (table: string) => read.query("select 1 from sqlite_master where type = 'table' and name = ?").get(table) !== null;
    organisations = has("organisation_access")
      ? read.query<(typeof organisations)[number], []>("select organisation_id, api_enabled, version from organisation_access").all()
      : [];
    clients = has("client_access")
      ? read
          .query<(typeof clients)[number], []>(
            "select client_id, revoked_at, secret_digest, previous_secret_digest, previous_secret_expires_at, secret_version from client_access",
          )
          .all()
      : [];
  } catch (error) {
    throw new CommandError(`cannot read the access controls in ${tokens} (run 'leaveapi check'): ${(error as Error).message}`);
  } finally {
    read.close();
  }
  const copy = new Database(temp, { readwrite: true, create: false, strict: true });
  try {
    // The rules of the store's own copy (adapters/sql/access-controls.ts): a revocation in
    // either file holds, and of two settings the higher version wins.
    copy.transaction(() => {
      for (const o of organisations)
        copy
          .query("update organisations set api_enabled = ?, api_version = ? where id = ? and coalesce(api_version, 0) < ?")
          .run(o.api_enabled, o.version, o.organisation_id, o.version);
      for (const c of clients) {
        if (c.revoked_at !== null) copy.query("update api_clients set revoked_at = coalesce(revoked_at, ?) where client_id = ?").run(c.revoked_at, c.client_id);
        if (c.secret_digest !== null)
          copy
            .query(
              "update api_clients set secret_digest = ?, previous_secret_digest = ?, previous_secret_expires_at = ?, secret_version = ? " +
                "where client_id = ? and coalesce(secret_version, 0) < ?",
            )
            .run(c.secret_digest, c.previous_secret_digest, c.previous_secret_expires_at, c.secret_version, c.client_id, c.secret_version);
      }
    })();
  } finally {
    copy.close();
  }
}

/** Writes the snapshot to `temp` and proves it opens and is sound; throws CommandError otherwise. */
function writeVerifiedCopy(source: string, temp: string): void {
  const db = openExistingSqlite(source);
  try {
    db.prepare("VACUUM INTO ?").run(temp);
  } catch (error) {
    throw new CommandError(`cannot back up ${source}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  copyAccessControls(source, temp);
  let copy: Database | undefined;
  let problems: string[];
  try {
    copy = new Database(temp, { readwrite: true, create: false, strict: true });
    problems = sqliteProblems(copy);
  } catch (error) {
    problems = [(error as Error).message];
  } finally {
    copy?.close();
  }
  if (problems.length > 0) throw new CommandError(`the copy of ${source} fails its integrity check (run 'leaveapi check'): ${problems[0]}`);
}

export const backupCommand: Command = {
  name: "backup",
  usage: USAGE,
  help: `usage: ${USAGE}

Writes a consistent copy of the SQLite database (the global --db or LEAVEAPI_DB) to
FILE with SQLite's VACUUM INTO: safe while 'leaveapi serve' answers requests and while
an import runs (the copy holds all of an import or none of it). The copy is checked
with PRAGMA integrity_check before it takes FILE's name, and is no more readable
than the database. Restore: stop the server, put the copy in place of the database
file, delete the old file's -wal and -shm files beside it, start the server.
Access tokens and rate-limit counts live in the file beside the database named like it
with -tokens at the end, and are not in the copy: they last an hour, and after a
restore a client whose token is unknown gets a 401 and asks for a new one. The access
controls kept there (revocations, rotations, API access switched off or on while an
import ran) are written into the copy.

  --force     replace FILE if it exists (by default an existing FILE is an error)

With --json: {"source", "backup", "bytes"}. A Postgres database is backed up with
pg_dump instead; this command then prints the pg_dump command line and exits 1.`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(ctx.args, { force: { type: "boolean" } }, USAGE, 1);
    const target = resolve(requireValue(positionals[0], "FILE (where to write the copy)", USAGE));
    const location = locateStore(ctx.global, ctx.io.env);
    if (location.kind === "postgres") {
      throw new CommandError(
        `the database is Postgres; back it up with pg_dump, e.g.\n  pg_dump --format=custom --file ${target} '${location.label}'\n` +
          "(give the password through PGPASSWORD or ~/.pgpass rather than in the URL)",
      );
    }
    const source = resolve(location.label);
    if (source === target) throw new CommandError(`FILE ${target} is the database itself; choose another path`);
    if (existsSync(target) && !values.force) throw new CommandError(`${target} already exists; choose another name or pass --force to replace it`);
    if (!existsSync(dirname(target))) throw new CommandError(`the directory ${dirname(target)} does not exist`);
    const temp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
    removeDatabaseFiles(temp);
    try {
      writeVerifiedCopy(source, temp);
      // The copy holds the same personal data and secret digests: no more readable than the original.
      chmodSync(temp, statSync(source).mode & 0o777);
      // A -wal left beside the old FILE would be replayed into the new copy when it is opened.
      for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${target}${suffix}`, { force: true });
      renameSync(temp, target);
    } finally {
      removeDatabaseFiles(temp);
    }
    const bytes = statSync(target).size;
    report(ctx, { source, backup: target, bytes }, () => `backed up ${source} to ${target} (${bytes} bytes)`);
  },
};
