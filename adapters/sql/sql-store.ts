/**
 * The Store on Kysely: one copy of the queries for SQLite and Postgres, composed of one
 * part per job over a shared SqlContext. The admin side is added by sql-admin-store.ts.
 */
import { sql } from "kysely";
import type { Store } from "../../lib/store.ts";
import { cursorKey } from "./cursor-key.ts";
import { dataVersions } from "./data-versions.ts";
import { deletionQueries } from "./deletion-queries.ts";
import { deletionSweep } from "./deletion-sweep.ts";
import { leavePageQueries } from "./leave-page/index.ts";
import { rateLimitQueries } from "./rate-limit-queries.ts";
import { readQueries } from "./read-queries.ts";
import { restrictedQueries } from "./restricted-queries.ts";
import type { SqlContext } from "./sql-context.ts";
import { tokenQueries } from "./token-queries.ts";

export function createSqlStore(ctx: SqlContext): Store {
  const { employeesText, restrictedEmployees, ...reads } = readQueries(ctx);
  const { leaveText, restrictedLeave, ...leave } = leavePageQueries(ctx);
  return {
    ...cursorKey(ctx),
    ...tokenQueries(ctx),
    ...rateLimitQueries(ctx),
    ...reads,
    ...leave,
    // The pages as the JSON text each record keeps (record-bodies.ts, render-bodies.ts).
    listText: (q) => (q.list === "employees" ? employeesText(q.query) : leaveText(q.query)),
    ...deletionQueries(ctx),
    ...deletionSweep(ctx),
    ...dataVersions(ctx),
    restricted: {
      ...restrictedQueries(ctx),
      listEmployees: restrictedEmployees,
      listOverlappingLeave: restrictedLeave,
      listText: (q, selection) => (q.list === "employees" ? employeesText(q.query, selection) : leaveText(q.query, selection)),
    },
    /**
     * Both connections must answer: a dead replica fails the data endpoints as surely as a
     * dead primary. And a SQLite tokens file must be the one opened and take a write (a
     * write that changes nothing: a read-only or damaged file refuses it), or no token can
     * be issued: then the error says so (`part`, which /healthz names).
     */
    ping: () =>
      ctx.guard(async () => {
        await sql`select 1`.execute(ctx.db);
        if (ctx.reader !== ctx.db) await sql`select 1`.execute(ctx.reader);
        if (ctx.options.checkTokensFile) await ctx.tokens(() => sql`delete from rate_events where 0`.execute(ctx.db));
      }),
    close: () => ctx.close(),
  };
}
