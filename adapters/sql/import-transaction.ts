/**
 * One import as the SQL store runs it (AdminStore's `runImport`): a transaction opened by
 * hand on one connection, the import writer (sql-import-writer.ts) inside it, the stamps
 * published last, and what an import leaves owed afterwards: fresh planner statistics and
 * the scrubbing of deleted records.
 */
import { sql, type Kysely } from "kysely";
import type { ImportRunOptions, ImportWriter } from "../../lib/admin-store.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { DryRunShadow } from "./dry-run-shadow.ts";
import { markScrubOwed, scrubDeleted } from "./erasure.ts";
import { withPageCache } from "./fast-paths.ts";
import { newDataVersions } from "./data-versions.ts";
import { ImportStamps } from "./published-stamps.ts";
import type { SqlContext } from "./sql-context.ts";
import { SqlImportWriter } from "./sql-import-writer.ts";
import type { Tables } from "./tables.ts";

/**
 * The SQLite page cache of an import, in KiB. A million-row import has a peak memory
 * target (target 6 of bench/RESULTS.md): its JavaScript heap takes a share of it, and
 * SQLite about twice its page cache (the pages, and the final sorted insert's own). A
 * larger cache was no faster and peaked higher (bench/import-availability.ts reports the peak).
 */
const IMPORT_CACHE_KIB = 16 * 1024;

/** How long an import waits between tries for a SQLite file's write lock that another writer holds. */
const IMPORT_LOCK_RETRY_MS = 200;

/** SQLite's "another connection holds the lock", as bun:sqlite (a code) and node:sqlite (a message) say it. */
function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === "string" && e.code.startsWith("SQLITE_BUSY")) || (typeof e?.message === "string" && /database is locked/.test(e.message));
}

/** What `onWait` hears when a SQLite import finds the data file's write lock taken. */
export const SQLITE_WAIT_REASON = "another import or erasure is writing to this database; waiting for it to finish";

/**
 * Opens an import's transaction (when its work first calls the writer: runImport). On
 * SQLite it holds the data file's write lock from its first statement, so that the import's stamps are chosen after every earlier import of the file
 * published (published-stamps.ts) and it never fails half-way on a snapshot another
 * writer made stale; BEGIN IMMEDIATE would lock the tokens file too (sqlite-store.ts), so
 * a write that changes nothing takes the data file's alone. An import that finds another
 * writer running waits for it to end, however long, rather than failing after the busy
 * timeout: two imports started at once both land, one after the other. It tries every
 * IMPORT_LOCK_RETRY_MS and says once that it waits. On Postgres, imports of different organisations run side by side; one
 * organisation's wait for each other in ImportStamps.
 */
async function beginImport(conn: Kysely<Tables>, caps: SqlCapabilities, onWait: ((reason: string) => void) | undefined): Promise<void> {
  if (caps.advisoryLocks) {
    await sql`begin`.execute(conn);
    return;
  }
  // SQLite's busy handler sleeps in the calling thread: the tries are made without it, and
  // the wait between them is a timer, which leaves the process free meanwhile.
  const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
  const configured = Number(rows[0]?.timeout ?? 0);
  await sql.raw("pragma busy_timeout = 0").execute(conn);
  try {
    for (let told = false; ; told = true) {
      await sql`begin`.execute(conn);
      try {
        await sql`delete from publications where 0`.execute(conn);
        return;
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => {});
        if (!isBusy(error)) throw error;
      }
      if (!told) onWait?.(SQLITE_WAIT_REASON);
      await new Promise((resolve) => setTimeout(resolve, IMPORT_LOCK_RETRY_MS));
    }
  } finally {
    await sql.raw(`pragma busy_timeout = ${configured}`).execute(conn);
  }
}

/** The connection `work` runs on with a larger SQLite page cache while an import runs. */
function withImportCache<T>(ctx: SqlContext, work: () => Promise<T>): Promise<T> {
  // With the default 2 MB, a large import reads again nearly every index page it looks up
  // or changes. Put back afterwards, so a long-running process keeps its own budget.
  return ctx.caps.dialect === "sqlite" ? withPageCache(ctx.db, IMPORT_CACHE_KIB, work) : work();
}

/**
 * Fresh planner statistics after an import: a large first import otherwise leaves
 * Postgres planning on an empty table's figures (it chose a full scan of the
 * organisation's bookings for the leave page) until autovacuum gets round to it.
 * SQLite plans without statistics unless ANALYZE is run, and its queries here are
 * written for that (sampled statistics from PRAGMA optimize misled it).
 *
 * On Postgres VACUUM too: it marks the imported pages all-visible, and only then is the
 * leave page's index-only scan (migration 0006) one in fact; until then each row it
 * returns is looked up in the table as well, which costs a large organisation's leave
 * pages a share of their rate (docs/embedding.md, "Pages as JSON text"). It skips pages already
 * all-visible, so a small import's costs little. Should it fail (a statement timeout
 * on a very large table), ANALYZE alone, as before, and autovacuum sets the map later.
 */
async function refreshStatistics(ctx: SqlContext): Promise<void> {
  if (ctx.caps.dialect !== "postgres") return;
  const tables = sql.raw("employees, leave_types, leave_bookings, closure_days, public_holidays");
  await sql`vacuum (analyze) ${tables}`.execute(ctx.db).catch(() => sql`analyze ${tables}`.execute(ctx.db));
}

/**
 * Runs `work` with an import writer in one transaction on `ctx`'s primary; commits when it
 * resolves, rolls back when it throws. The transaction, and with it on SQLite the data
 * file's write lock, begins when `work` first calls the writer, not before: what `work`
 * reads and checks first (a whole file of fewer rows than a batch, or every row up to the
 * first invalid one, after which nothing is written) holds up no other writer, and a file
 * rejected before its first write never takes the lock at all.
 */
export async function runImport<T>(ctx: SqlContext, work: (writer: ImportWriter) => Promise<T>, options: ImportRunOptions<T> = {}): Promise<T> {
  if (options.dryRun) return dryRunImport(ctx, work, options.keep);
  // BEGIN and COMMIT by hand on one connection, not Kysely's transaction(): when
  // COMMIT itself fails (a full disk shows there once the page cache holds the
  // import's pages), SQLite has already rolled back, Kysely's ROLLBACK then fails
  // with "no transaction is active", and that would be the error reported.
  let deletedAny = false;
  const result = await withImportCache(ctx, () =>
    ctx.db.connection().execute(async (conn) => {
      let begun: Promise<void> | null = null;
      /** Every organisation the work named: their data versions change with the commit (data-versions.ts). */
      const named = new Set<string>();
      const begin = (organisationId: string) => {
        named.add(organisationId);
        begun ??= beginImport(conn, ctx.caps, options.onWait);
        return begun;
      };
      try {
        const stamps = new ImportStamps(conn, ctx.caps, ctx.options.now ?? Date.now, { onWait: options.onWait });
        const writer = new SqlImportWriter(conn, ctx.caps, ctx.boolValue, stamps, ctx.sha256Hex);
        const done = await work(callingFirst(writer, begin));
        // Nothing asked of the writer: nothing to write or commit.
        if (begun === null) return done;
        await begun;
        if (options.keep?.(done) === false) {
          await rollBack(conn, ctx);
          return done;
        }
        await writer.finish(stamps.writtenOrganisations());
        deletedAny = writer.deletedAny;
        // Owed from the commit on; the scrub after it clears the mark when it finishes.
        if (deletedAny) await markScrubOwed(conn, ctx.caps.dialect, Date.now());
        await newDataVersions(conn, named, ctx.options.randomBytes);
        // Last, so that the instant it records is as close to the commit as can be.
        await stamps.publish();
        await sql`commit`.execute(conn);
        return done;
      } catch (error) {
        if (begun === null) throw error;
        await rollBack(conn, ctx);
        throw error;
      }
    }),
  );
  await refreshStatistics(ctx);
  // What the deleted records left in the files goes too (docs/api.md, "Personal data"); a checkpoint
  // readers keep from finishing is owed, not waited for past the busy timeout.
  if (deletedAny) await scrubAfterCommit(ctx);
  return result;
}

/**
 * The scrub after an import's commit. The import has landed by then, so a scrub that
 * another writer keeps from finishing must not make it report failure, as "nothing was
 * written": a checkpoint another writer keeps busy is answered as busy, but the scrub's
 * own note of it is a write to the data file, and a second import that waited for this
 * one takes the lock at its commit and may hold it past the busy timeout. The import's
 * transaction marked the scrub owed (markScrubOwed), so `serve` finishes it later.
 */
async function scrubAfterCommit(ctx: SqlContext): Promise<void> {
  try {
    await scrubDeleted(ctx);
  } catch (error) {
    if (!isBusy(error)) throw error;
  }
}

/** Rolls an import back on `conn`, and gives back what it spilled into SQLite's log. */
async function rollBack(conn: Kysely<Tables>, ctx: SqlContext): Promise<void> {
  // After an error the first error is the real one; a rollback after SQLite's own can only fail.
  await sql`rollback`.execute(conn).catch(() => {});
  // After a full disk, the tokens file beside it (sqlite-store.ts) must still find room to write.
  if (!ctx.caps.advisoryLocks) await sql`pragma wal_checkpoint(truncate)`.execute(conn).catch(() => {});
}

/**
 * A dry run: the same writer and the same work, against the temporary copies of
 * dry-run-shadow.ts, in a transaction that is always rolled back. It takes no lock and
 * waits for none: on SQLite a deferred BEGIN, whose reads of the data file see one
 * snapshot and whose writes go to the connection's temporary database; on Postgres no
 * organisation lock (it publishes nothing).
 */
async function dryRunImport<T>(ctx: SqlContext, work: (writer: ImportWriter) => Promise<T>, keep?: (result: T) => boolean): Promise<T> {
  return withImportCache(ctx, () =>
    ctx.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const shadow = new DryRunShadow(conn, ctx.caps);
        await shadow.create();
        const stamps = new ImportStamps(conn, ctx.caps, ctx.options.now ?? Date.now, null);
        const writer = new SqlImportWriter(conn, ctx.caps, ctx.boolValue, stamps, ctx.sha256Hex);
        const done = await work(callingFirst(writer, (organisationId) => shadow.include(organisationId)));
        // What `finish` does can fail (a staged row the table refuses): a dry run that would commit must find it too.
        if (keep?.(done) !== false) await writer.finish(stamps.writtenOrganisations());
        return done;
      } finally {
        await sql`rollback`.execute(conn).catch(() => {});
      }
    }),
  );
}

/** `writer`, each of whose methods first waits for `before` of the organisation it names (every method's first argument). */
function callingFirst(writer: ImportWriter, before: (organisationId: string) => Promise<void>): ImportWriter {
  return new Proxy(writer, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return async (organisationId: string, ...rest: unknown[]) => {
        await before(organisationId);
        return (value as (...args: unknown[]) => unknown).call(target, organisationId, ...rest);
      };
    },
  });
}
