/**
 * R1-min, the physical limit of "a page of rows as JSON" (issue 15): one table holding
 * exactly the 11 fields an employee page returns, all as text (so `updated_at` is already
 * the RFC 3339 string), a primary key on `id`, an index on `(updated_at, id)`, one cached
 * keyset statement with `LIMIT 101`, a base64url JSON cursor, and
 * `JSON.stringify({has_more, next_cursor, data})`. Nothing else: no auth, no validation,
 * no signing, no log.
 *
 *   bun bench/reference/sqlite-page-min.ts DB_FILE   # prints its URL on stdout
 *   GET /v1/employees?limit=100[&cursor=BASE64URL({"u":UPDATED_AT,"i":ID})]
 *
 * DB_FILE is made by `writeMinimalDatabase` from the employees leaveapi serves.
 */
import { Database } from "bun:sqlite";

export const EMPLOYEE_FIELDS = [
  "id",
  "first_name",
  "last_name",
  "preferred_name",
  "job_title",
  "department",
  "status",
  "start_date",
  "leaving_date",
  "holiday_calendar",
  "updated_at",
] as const;

export type EmployeeRow = Record<(typeof EMPLOYEE_FIELDS)[number], string | null>;

/** The reference's table, filled with `employees` (the JSON objects leaveapi answered with). */
export function writeMinimalDatabase(file: string, employees: EmployeeRow[]): void {
  const db = new Database(file, { create: true });
  db.run(`create table employees (${EMPLOYEE_FIELDS.map((f) => `${f} text${f === "id" ? " primary key" : ""}`).join(", ")})`);
  db.run("create index employees_page on employees (updated_at, id)");
  const insert = db.prepare(`insert into employees values (${EMPLOYEE_FIELDS.map(() => "?").join(", ")})`);
  db.transaction(() => {
    for (const e of employees) insert.run(...EMPLOYEE_FIELDS.map((f) => e[f]));
  })();
  db.close();
}

/** The cursor R1-min reads: base64url of `{"u": updated_at, "i": id}`. */
export function minimalCursor(updatedAt: string, id: string): string {
  return Buffer.from(JSON.stringify({ u: updatedAt, i: id })).toString("base64url");
}

if (import.meta.main) {
  const db = new Database(process.argv[2]!, { readonly: true });
  const page = db.prepare(`select ${EMPLOYEE_FIELDS.join(", ")} from employees where (updated_at, id) > (?, ?) order by updated_at, id limit 101`);
  const headers = { "Content-Type": "application/json" };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const cursor = new URL(req.url).searchParams.get("cursor");
      const after = cursor ? (JSON.parse(Buffer.from(cursor, "base64url").toString()) as { u: string; i: string }) : { u: "", i: "" };
      const data = page.all(after.u, after.i) as EmployeeRow[];
      const has_more = data.length > 100;
      if (has_more) data.pop();
      const last = data.at(-1);
      const next_cursor = has_more && last ? minimalCursor(last.updated_at!, last.id!) : null;
      return new Response(JSON.stringify({ has_more, next_cursor, data }), { headers });
    },
  });
  console.log(`reference serving http://127.0.0.1:${server.port}`);
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
