/**
 * R1, the data-path limit: a hand-written `bun:sqlite` server that runs the employees
 * page query of leaveapi's schema with one prepared statement and answers with
 * `JSON.stringify`. No auth, no validation beyond parsing, no signed cursor: what is left
 * is the cost of reading a page and writing its JSON, which leaveapi also pays.
 *
 *   bun bench/reference/sqlite-page.ts DB_FILE ORG_ID   # prints its URL on stdout
 *   GET /employees?limit=100[&after=UPDATED_AT.ID]
 */
import { Database } from "bun:sqlite";

const [file, organisationId] = process.argv.slice(2) as [string, string];
const db = new Database(file, { readonly: true });
const first = db.prepare(
  `select id, first_name, last_name, preferred_name, job_title, department, status, start_date, leaving_date,
          holiday_calendar, updated_at
     from employees where organisation_id = ? and deleted_at is null
    order by updated_at, id limit ?`,
);
const after = db.prepare(
  `select id, first_name, last_name, preferred_name, job_title, department, status, start_date, leaving_date,
          holiday_calendar, updated_at
     from employees where organisation_id = ? and deleted_at is null and (updated_at, id) > (?, ?)
    order by updated_at, id limit ?`,
);

interface Row {
  id: string;
  updated_at: number;
  [column: string]: unknown;
}

const headers = { "Content-Type": "application/json", "Cache-Control": "no-store" };
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const params = new URL(req.url).searchParams;
    const limit = Math.min(500, Math.max(1, Number(params.get("limit") ?? 100)));
    const position = params.get("after");
    let rows: Row[];
    if (position) {
      const dot = position.indexOf(".");
      rows = after.all(organisationId, Number(position.slice(0, dot)), position.slice(dot + 1), limit + 1) as Row[];
    } else {
      rows = first.all(organisationId, limit + 1) as Row[];
    }
    const more = rows.length > limit;
    if (more) rows.pop();
    for (const row of rows) (row as Record<string, unknown>).updated_at = new Date(row.updated_at).toISOString();
    const last = rows.at(-1);
    const next = more && last ? `${Date.parse(last.updated_at as unknown as string)}.${last.id}` : null;
    return new Response(JSON.stringify({ data: rows, has_more: more, next_cursor: next }), { headers });
  },
});
console.log(`reference serving http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
