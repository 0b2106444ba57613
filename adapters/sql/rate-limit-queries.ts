/** Rate limits in the SQL store: events per key in a sliding window, on the primary. */
import { sql, type Kysely } from "kysely";
import type { RateDecision, RateSlot, Store } from "../../lib/store.ts";
import { defineQuery, rawQuery, type QueryDefinition } from "./compiled-queries.ts";
import { inDirectTransaction } from "./direct-transactions.ts";
import { instant } from "./row-mapping.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Tables } from "./tables.ts";

interface WindowValues {
  key: string;
  since: number;
}

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

/** The newest `limit` events in the window, newest first: the last of them must leave for one more to fit. */
const newestEventsQuery = defineQuery<WindowValues & { limit: number }>()((s, db) =>
  db.selectFrom("rate_events").select("at").where("key", "=", s.key).where("at", ">", s.since).orderBy("at", "desc").limit(s.limit),
);

const windowOf = (slot: RateSlot): WindowValues => ({ key: slot.key, since: slot.now - slot.windowMs });

/** How long until enough of the newest events leave the window for one more to fit. */
function refusal(newest: readonly { at: number | string }[], slot: RateSlot): RateDecision {
  const oldestThatMustLeave = newest.length > 0 ? instant(newest[newest.length - 1]!.at) : slot.now;
  return { allowed: false, retryAfterMs: Math.max(1, oldestThatMustLeave + slot.windowMs - slot.now) };
}

/** A statement to run in the slot's transaction once the slot is taken, e.g. a token's insert. */
export interface SlotFollowUp<V extends object> {
  query: QueryDefinition<V, unknown>;
  values: V;
}

/**
 * The slot's statements, inside a transaction on the direct connection that holds the
 * write lock (direct-transactions.ts): delete the key's stale events, insert one only
 * while under the limit, and run what follows only when it went in.
 */
function takeSlotNow<V extends object>(ctx: SqlContext, slot: RateSlot, then: SlotFollowUp<V> | undefined): RateDecision {
  const queries = ctx.primary;
  const window = windowOf(slot);
  queries.rowsNow(sweepKeyQuery, window);
  const inserted = queries.rowsNow(insertUnderLimitQuery, { ...window, now: slot.now, limit: slot.limit });
  if (inserted.length === 0) return refusal(queries.rowsNow(newestEventsQuery, { ...window, limit: slot.limit }), slot);
  if (then) queries.rowsNow(then.query, then.values);
  return { allowed: true };
}

/**
 * Through Kysely (Postgres; SQLite without a direct connection): one transaction. On
 * Postgres an advisory lock on the key serialises check-and-insert across every instance
 * sharing the database; on SQLite the first statement, a delete, takes the write lock.
 */
function takeSlotInTransaction<V extends object>(ctx: SqlContext, slot: RateSlot, then: SlotFollowUp<V> | undefined): Promise<RateDecision> {
  const queries = ctx.primary;
  const window = windowOf(slot);
  return ctx.db.transaction().execute(async (trx: Kysely<Tables>) => {
    if (ctx.caps.advisoryLocks) {
      // A slot (and the token issued with it) does not wait for the write-ahead log's flush,
      // which an import's volume of log made the token's slowest step: p50 18 → 13 ms, p99
      // 142-159 → 87-125 ms during a 400,000-booking import (bench/RESULTS.md, "Tokens
      // during a Postgres import"). A database crash may forget the last fraction of a
      // second of them, as SQLite's tokens file may (docs/install.md, "Postgres instead of SQLite").
      await sql`set local synchronous_commit = off`.execute(trx);
      await sql`select pg_advisory_xact_lock(hashtext(${slot.key}))`.execute(trx);
    }
    await queries.rowsIn(trx, sweepKeyQuery, window);
    // One statement: insert only while under the limit, so concurrent callers cannot overshoot.
    const inserted = await queries.rowsIn(trx, insertUnderLimitQuery, { ...window, now: slot.now, limit: slot.limit });
    if (inserted.length === 0) return refusal(await queries.rowsIn(trx, newestEventsQuery, { ...window, limit: slot.limit }), slot);
    if (then) await queries.rowsIn(trx, then.query, then.values);
    return { allowed: true } as const;
  });
}

/**
 * `Store.takeRateSlot`, and with `then`, `takeRateSlotAndSaveToken`'s slot: `then` runs in
 * the slot's transaction, and only when the slot was taken.
 */
/** A write that changes nothing: it takes the lock of the file rate_events lives in (on SQLite, the tokens file) and no other. */
const LOCK_RATE_EVENTS = "delete from rate_events where 0";

export function takeSlot<V extends object>(ctx: SqlContext, slot: RateSlot, then?: SlotFollowUp<V>): Promise<RateDecision> {
  const direct = ctx.primary.direct;
  return ctx.tokens(() =>
    direct ? inDirectTransaction(direct, LOCK_RATE_EVENTS, () => takeSlotNow(ctx, slot, then)) : takeSlotInTransaction(ctx, slot, then),
  );
}

export function rateLimitQueries(ctx: SqlContext): Pick<Store, "takeRateSlot" | "checkRateLimit" | "sweepRateEvents"> {
  return {
    takeRateSlot: (key, now, limit, windowMs) => takeSlot(ctx, { key, now, limit, windowMs }),

    checkRateLimit: (key, now, limit, windowMs) =>
      ctx.tokens(async () => {
        const slot = { key, now, limit, windowMs };
        const [row] = await ctx.primary.rows(countEventsQuery, windowOf(slot));
        if (Number(row?.n ?? 0) < limit) return { allowed: true };
        return refusal(await ctx.primary.rows(newestEventsQuery, { ...windowOf(slot), limit }), slot);
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
