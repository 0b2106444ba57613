/**
 * Who holds a SQLite data file's write lock, so that a command that must wait for it says
 * what it waits for instead of nothing (issue 35: `erase --yes` waited minutes without a
 * word), and one that gave up says why rather than "the data store is unreachable". An
 * import announces itself in the tokens file's `running_writers` (which no import locks)
 * for as long as it runs; whether the lock is held now is asked of SQLite itself. On
 * Postgres there is no one file lock to wait for: nothing is announced, nothing is held.
 */
import { sql } from "kysely";
import type { SqlContext } from "./sql-context.ts";

export interface RunningWriter {
  pid: number;
  what: string;
  started_at: number;
}

/** SQLite's "another connection holds the lock", as bun:sqlite (a code) and node:sqlite (a message) say it. */
function lockHeld(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === "string" && e.code.startsWith("SQLITE_BUSY")) || (typeof e?.message === "string" && /database is locked/.test(e.message));
}

/** Announces a long writer (`what`, e.g. "the import of leave into Acme") by process id; resolves to its withdrawal. */
export async function announceWriter(ctx: SqlContext, pid: number, what: string): Promise<() => Promise<void>> {
  if (ctx.caps.dialect !== "sqlite") return async () => {};
  const started_at = Date.now();
  // Best effort: an announcement that cannot be written only leaves a waiting command less to say.
  const written = await ctx.db
    .insertInto("running_writers")
    .values({ pid, what, started_at })
    .execute()
    .then(
      () => true,
      () => false,
    );
  return async () => {
    if (!written) return;
    await ctx.db
      .deleteFrom("running_writers")
      .where("pid", "=", pid)
      .where("started_at", "=", started_at)
      .execute()
      .catch(() => {});
  };
}

/**
 * Whether another connection holds the data file's write lock now (asked without waiting),
 * and the writers announced: the caller keeps those whose process still runs.
 */
export async function dataFileWriters(ctx: SqlContext): Promise<{ held: boolean; writers: RunningWriter[] }> {
  if (ctx.caps.dialect !== "sqlite") return { held: false, writers: [] };
  const held = await ctx.db.connection().execute(async (conn) => {
    const [timeout] = Object.values((await sql<Record<string, number>>`pragma busy_timeout`.execute(conn)).rows[0] ?? {});
    await sql`pragma busy_timeout = 0`.execute(conn);
    await sql`begin`.execute(conn);
    try {
      // A write that changes nothing takes the data file's lock, and no other.
      await sql`delete from publications where 0`.execute(conn);
      return false;
    } catch (error) {
      if (lockHeld(error)) return true;
      // Not a lock held: a read-only file, say. The write that follows says what is wrong.
      return false;
    } finally {
      await sql`rollback`.execute(conn).catch(() => {});
      await sql.raw(`pragma busy_timeout = ${Math.trunc(Number(timeout ?? 5000))}`).execute(conn);
    }
  });
  if (!held) return { held, writers: [] };
  const rows = await ctx.db
    .selectFrom("running_writers")
    .select(["pid", "what", "started_at"])
    .orderBy("started_at")
    .execute()
    .catch(() => []);
  return { held, writers: rows.map((r) => ({ pid: Number(r.pid), what: r.what, started_at: Number(r.started_at) })) };
}
