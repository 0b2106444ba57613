/** Rate limits in the SQL store: events per key in a sliding window, on the primary. */
import { sql, type Kysely } from "kysely";
import type { RateDecision, Store } from "../../lib/store.ts";
import { defineQuery, rawQuery } from "./compiled-queries.ts";
import { instant } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

interface WindowValues {
  key: string;
  since: number;
}

const staleEventQuery = defineQuery<WindowValues & { one: number }>()((s, db) =>
  db.selectFrom("rate_events").select("at").where("key", "=", s.key).where("at", "<=", s.since).limit(s.one),
);

const sweepKeyQuery = defineQuery<WindowValues>()((s, db) => db.deleteFrom("rate_events").where("key", "=", s.key).where("at", "<=", s.since));

const insertUnderLimitQuery = defineQuery<WindowValues & { now: number; limit: number }>()((s, db) =>
  rawQuery(
    sql<{ at: number }>`
      insert into rate_events (key, at)
      select ${s.key}, ${s.now}
      where (select count(*) from rate_events where key = ${s.key} and at > ${s.since}) < ${s.limit}
      returning at`,
    db,
  ),
);

const countEventsQuery = defineQuery<WindowValues>()((s, db) =>
  db
    .selectFrom("rate_events")
    .select((e) => e.fn.countAll().as("n"))
    .where("key", "=", s.key)
    .where("at", ">", s.since),
);

/** How long until enough events leave the window for one more to fit. */
async function refusal(db: Kysely<Tables>, key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
  const rows = await db
    .selectFrom("rate_events")
    .select("at")
    .where("key", "=", key)
    .where("at", ">", now - windowMs)
    .orderBy("at", "desc")
    .limit(limit)
    .execute();
  const oldestThatMustLeave = rows.length > 0 ? instant(rows[rows.length - 1]!.at) : now;
  return { allowed: false, retryAfterMs: Math.max(1, oldestThatMustLeave + windowMs - now) };
}

/**
 * SQLite runs one writer at a time, so the conditional insert is atomic on its own and
 * needs no transaction around it; its statements are compiled once (a token request pays
 * for this on every call).
 */
async function takeSlotAlone(ctx: SqlContext, key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
  const since = now - windowMs;
  // A delete that finds nothing still takes the write lock and commits; most calls have
  // nothing old to sweep, so a read asks first.
  const [stale] = await ctx.primary.rows(staleEventQuery, { key, since, one: 1 });
  if (stale) await ctx.primary.rows(sweepKeyQuery, { key, since });
  const inserted = await ctx.primary.rows(insertUnderLimitQuery, { key, now, since, limit });
  if (inserted.length > 0) return { allowed: true };
  return refusal(ctx.db, key, now, limit, windowMs);
}

/** Postgres: check-and-insert serialised per key by an advisory lock, across every instance sharing the database. */
function takeSlotLocked(ctx: SqlContext, key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
  return ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
    await trx
      .deleteFrom("rate_events")
      .where("key", "=", key)
      .where("at", "<=", now - windowMs)
      .execute();
    // One statement: insert only while under the limit, so concurrent callers cannot overshoot.
    const inserted = await sql`
      insert into rate_events (key, at)
      select ${key}, ${now}
      where (select count(*) from rate_events where key = ${key} and at > ${now - windowMs}) < ${limit}
    `.execute(trx);
    if (Number(inserted.numAffectedRows ?? 0) > 0) return { allowed: true } as const;
    return refusal(trx, key, now, limit, windowMs);
  });
}

export function rateLimitQueries(ctx: SqlContext): Pick<Store, "takeRateSlot" | "checkRateLimit" | "sweepRateEvents"> {
  return {
    takeRateSlot: (key, now, limit, windowMs) => ctx.guard(() => (ctx.caps.advisoryLocks ? takeSlotLocked : takeSlotAlone)(ctx, key, now, limit, windowMs)),

    checkRateLimit: (key, now, limit, windowMs) =>
      ctx.guard(async () => {
        const [row] = await ctx.primary.rows(countEventsQuery, { key, since: now - windowMs });
        if (Number(row?.n ?? 0) < limit) return { allowed: true };
        return refusal(ctx.db, key, now, limit, windowMs);
      }),

    sweepRateEvents: (now, windowMs) =>
      ctx.guard(async () => {
        // No index leads with `at`: the sweep keeps the table near one window of events, and
        // scanning that once a minute costs less than a second index on every event's insert.
        const result = await ctx.db
          .deleteFrom("rate_events")
          .where("at", "<=", now - windowMs)
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      }),
  };
}
