/**
 * Who holds a SQLite data file's write lock, so that a command that must wait for it says
 * what it waits for instead of nothing (issue 35: `erase --yes` waited minutes without a
 * word), and one that gave up says why rather than "the data store is unreachable". An
 * import announces itself in the tokens file's `running_writers` (which no import locks)
 * for as long as it runs, and the store says when a write must wait (import-transaction.ts).
 * On Postgres there is no one file lock to wait for: nothing is announced.
 */
import type { SqlContext } from "./sql-context.ts";

export interface RunningWriter {
  pid: number;
  what: string;
  started_at: number;
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

/** The writers announced in the tokens file now, oldest first (none on Postgres, or when it cannot be read). */
export async function announcedWriters(ctx: SqlContext): Promise<RunningWriter[]> {
  if (ctx.caps.dialect !== "sqlite") return [];
  const rows = await ctx.db
    .selectFrom("running_writers")
    .select(["pid", "what", "started_at"])
    .orderBy("started_at")
    .execute()
    .catch(() => []);
  return rows.map((r) => ({ pid: Number(r.pid), what: r.what, started_at: Number(r.started_at) }));
}
