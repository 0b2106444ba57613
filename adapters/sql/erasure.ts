/**
 * Deleted means gone from the files too (docs/api.md, "Personal data"). A
 * deleted employee or booking is deleted outright (sql-import-writer.ts), and on SQLite
 * every connection has `secure_delete` on (sqlite-store.ts), so the pages that held it are
 * zeroed; what can still hold its bytes is the write-ahead log, until a checkpoint copies
 * the log into the database and truncates it. That checkpoint can only finish when no
 * reader is using an older snapshot: when it cannot, an installation row says one is owed
 * and `serve`'s housekeeping tries again (scripts/serve/housekeeping.ts). On Postgres the
 * tables a deletion touched are vacuumed, so the dead rows' space is reclaimed rather than
 * left until autovacuum comes round.
 *
 * `leaveapi erase` finds the employee here first, to say who it would erase.
 */
import { sql, type Kysely } from "kysely";
import type { ErasureTarget, ScrubOutcome } from "../../lib/admin-store.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

const PENDING = "scrub_pending";

/**
 * Marks a scrub owed on `db` (an import's own transaction: it holds the data file's lock
 * already), so that a scrub after the commit that another writer keeps from finishing is
 * still done later by `serve`. No-op on Postgres, whose vacuum waits for no one's lock.
 */
export async function markScrubOwed(db: Kysely<Tables>, dialect: "sqlite" | "postgres", now: number): Promise<void> {
  if (dialect !== "sqlite") return;
  await writeScrubOwed(db, now);
}

/** The mark itself: kept as it is when there is one (its instant is when the scrub first became owed). */
async function writeScrubOwed(db: Kysely<Tables>, now: number): Promise<void> {
  await db
    .insertInto("installation")
    .values({ name: PENDING, value: String(now) })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
}

/**
 * Clears what deleted records may have left. `wait: false` (the server's housekeeping)
 * never waits for another process's readers or writer: a checkpoint that cannot finish at
 * once is left owed. `onlyIfOwed` does nothing unless an earlier one was left owed.
 */
export async function scrubDeleted(ctx: SqlContext, options: { wait?: boolean; onlyIfOwed?: boolean } = {}): Promise<ScrubOutcome> {
  const { db } = ctx;
  if (ctx.caps.dialect === "postgres") {
    if (options.onlyIfOwed) return { complete: true };
    await sql`vacuum "employees", "leave_bookings", "deletions"`.execute(db);
    return { complete: true };
  }
  const owed = async () => (await db.selectFrom("installation").select("name").where("name", "=", PENDING).executeTakeFirst()) !== undefined;
  if (options.onlyIfOwed && !(await owed())) return { complete: true };
  // A synchronous driver waits in the busy handler with the whole process: the server asks
  // not to wait, neither at the checkpoint nor at the note of it, which is a write that an
  // import holding the file's lock would keep waiting (every request stalled meanwhile).
  const timeout =
    options.wait === false ? Number(Object.values((await sql<Record<string, number>>`pragma busy_timeout`.execute(db)).rows[0] ?? {})[0] ?? 0) : 0;
  if (options.wait === false) await sql`pragma busy_timeout = 0`.execute(db);
  try {
    let busy: number;
    try {
      const { rows } = await sql<{ busy: number }>`pragma main.wal_checkpoint(truncate)`.execute(db);
      busy = Number(rows[0]?.busy ?? 0);
    } catch (error) {
      // Another process holds the database: as busy as a checkpoint that could not finish.
      if (options.wait !== false) throw error;
      busy = 1;
    }
    const complete = busy === 0;
    try {
      if (complete) {
        if (await owed()) await db.deleteFrom("installation").where("name", "=", PENDING).execute();
      } else if (!(await owed())) {
        await writeScrubOwed(db, Date.now());
      }
    } catch (error) {
      if (options.wait !== false) throw error;
      // A writer holds the file: the note waits for the next round, as the checkpoint would.
      return { complete: false };
    }
    return { complete };
  } finally {
    if (options.wait === false) await sql.raw(`pragma busy_timeout = ${Math.trunc(timeout)}`).execute(db);
  }
}

/** The live employee with one of `ids`, or the stored external id `externalId`, and how many bookings they have. */
export async function employeeForErasure(
  db: Kysely<Tables>,
  organisationId: string,
  key: { ids: string[]; externalId: string | null },
): Promise<ErasureTarget | null> {
  if (key.ids.length === 0 && key.externalId === null) return null;
  const row = await db
    .selectFrom("employees")
    .select(["id", "external_id", "first_name", "last_name"])
    .select((eb) =>
      eb
        .selectFrom("leave_bookings as b")
        .select((b) => b.fn.countAll<number | string>().as("n"))
        .whereRef("b.organisation_id", "=", "employees.organisation_id")
        .whereRef("b.employee_id", "=", "employees.id")
        .where("b.deleted_at", "is", null)
        .as("bookings"),
    )
    .where("organisation_id", "=", organisationId)
    .where("deleted_at", "is", null)
    .where((eb) => {
      const matches = key.ids.length > 0 ? [eb("id", "in", key.ids)] : [];
      if (key.externalId !== null) matches.push(eb("external_id", "=", key.externalId));
      return eb.or(matches);
    })
    .orderBy("id")
    .executeTakeFirst();
  return row ? { id: row.id, external_id: row.external_id, first_name: row.first_name, last_name: row.last_name, bookings: Number(row.bookings ?? 0) } : null;
}
