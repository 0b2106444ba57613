/**
 * What a dry run writes to instead of the store's tables (docs/cli.md, "import": a dry run
 * takes no write lock). Each table an import writes gets a temporary table of the same
 * name and shape on the import's connection, holding a copy of the rows of each
 * organisation the import touches, copied when it first touches it. Both SQLite and
 * Postgres look for a plain table name among the connection's temporary tables first, so
 * the import writer's own statements, unchanged, read and write the copies: its counts,
 * problems and prune lists are those the real import would give.
 *
 * What the tables themselves see is reads only. On SQLite the temporary tables live
 * in the connection's own temporary database, so the data file's write lock is never
 * taken and its log does not grow; on Postgres nothing is locked that another writer
 * waits for. The temporary tables go with the transaction's rollback, on both.
 */
import { sql, type Kysely } from "kysely";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";

/** Every table an import writes or reads back, with the column that names the organisation. */
const SHADOWED: readonly (readonly [table: string, organisationColumn: string])[] = [
  ["organisations", "id"],
  ["employees", "organisation_id"],
  ["leave_types", "organisation_id"],
  ["leave_bookings", "organisation_id"],
  ["closure_days", "organisation_id"],
  ["public_holidays", "organisation_id"],
  ["leave_class_spans", "organisation_id"],
  ["deletions", "organisation_id"],
  ["publications", "organisation_id"],
];

/** A CREATE INDEX statement of SQLite's schema, made to create the same index on the temporary table of the same name. */
function inTempSchema(indexSql: string): string {
  const made = indexSql.replace(/^\s*create\s+(unique\s+)?index\s+/i, (_, unique: string | undefined) => `create ${unique ?? ""}index temp.`);
  if (made === indexSql) throw new Error(`unexpected index definition in the SQLite schema: ${indexSql.slice(0, 80)}`);
  return made;
}

export class DryRunShadow {
  private readonly copied = new Map<string, Promise<void>>();
  /** The schema that holds the real tables: `main` on SQLite, the one `employees` resolves to on Postgres. */
  private source: string | null = null;

  constructor(
    private readonly conn: Kysely<Tables>,
    private readonly caps: SqlCapabilities,
  ) {}

  /** Makes the empty temporary tables; inside the dry run's transaction, before the writer runs any statement. */
  async create(): Promise<void> {
    if (this.caps.dialect === "sqlite") {
      this.source = "main";
      for (const [table] of SHADOWED) {
        // Not the API's page indexes (`…_page`): the import never reads by them, and each
        // holds every record's rendered body again.
        const { rows } = await sql<{ type: string; name: string; sql: string }>`select type, name, sql from main.sqlite_master
          where tbl_name = ${table} and sql is not null order by type desc`.execute(this.conn);
        // The table ("table" sorts after "index", hence desc), then its indexes.
        for (const row of rows) {
          if (row.name.endsWith("_page")) continue;
          if (row.type === "table") await sql.raw(row.sql.replace(/^\s*create\s+table\s+/i, "create temp table ")).execute(this.conn);
          else await sql.raw(inTempSchema(row.sql)).execute(this.conn);
        }
      }
      return;
    }
    const { rows } = await sql<{ schema: string }>`select relnamespace::regnamespace::text as schema from pg_class
      where oid = to_regclass('employees')`.execute(this.conn);
    this.source = rows[0]!.schema;
    for (const [table] of SHADOWED) {
      await sql`create temp table ${sql.id(table)} (like ${sql.id(this.source, table)} including all)`.execute(this.conn);
    }
  }

  /** Copies the organisation's rows into the temporary tables, once, before the import first touches it. */
  include(organisationId: string): Promise<void> {
    let copying = this.copied.get(organisationId);
    if (!copying) {
      copying = this.copy(organisationId);
      this.copied.set(organisationId, copying);
    }
    return copying;
  }

  private async copy(organisationId: string): Promise<void> {
    const source = this.source;
    if (source === null) throw new Error("DryRunShadow.create must run before include");
    const temp = this.caps.dialect === "sqlite" ? "temp" : "pg_temp";
    for (const [table, column] of SHADOWED) {
      await sql`insert into ${sql.id(temp, table)} select * from ${sql.id(source, table)} where ${sql.id(column)} = ${organisationId}`.execute(this.conn);
    }
  }
}
