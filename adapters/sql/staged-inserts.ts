/**
 * New rows of a large SQLite import, held in a temporary table and inserted all at once,
 * sorted, when the import ends or before anything could see them missing.
 *
 * Inserted in file order, each new booking lands at a random place in every index of
 * leave_bookings, and once those outgrow the page cache nearly every insert reads and
 * writes pages at random. Sorted by the API's own page order (start_date, id), the same
 * rows go into the indexes that lead with it nearly in order, and into the others per
 * employee: a million bookings went in in about half the time (bench/RESULTS.md, "Staged,
 * sorted inserts").
 *
 * The writer (changed-rows.ts) must keep two promises: rows are staged only when their id is neither stored
 * nor staged (`mayHold` says when it might be staged: then flush first), and anything
 * that reads the staged rows' table, or changes its rows other than by stamping the
 * import's `updated_at` on them, runs after a `flush`.
 */
import { sql, type Kysely } from "kysely";
import { rawQuery, type CompiledQueries } from "./compiled-queries.ts";
import { withPageCache } from "./fast-paths.ts";
import { IdFingerprints } from "./id-fingerprints.ts";
import type { Tables } from "./tables.ts";

export class StagedInserts {
  /** The staged ids (id-fingerprints.ts), the one thing held in memory for each. */
  private readonly fingerprints = new IdFingerprints();
  private created = false;
  /** Whether any staged row was inserted into the table yet. */
  flushedAny = false;
  private readonly staging: string;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly statements: CompiledQueries,
    private readonly table: string,
    private readonly columns: readonly string[],
    private readonly order: readonly string[],
    private readonly primaryKey: readonly string[],
    private readonly rowsPerStatement: number,
  ) {
    this.staging = `staged_${table}`;
  }

  /** Whether a row with this id may be staged (a false "yes" costs an early flush, never a wrong row). */
  mayHold(id: string): boolean {
    return this.fingerprints.mayHold(id);
  }

  /** Stages rows given as `columns.length` values each, in order. */
  async add(ids: readonly string[], values: readonly unknown[]): Promise<void> {
    if (ids.length === 0) return;
    if (this.fingerprints.size + ids.length > STAGE_LIMIT) await this.flush();
    if (!this.created) {
      const columns = sql.join(this.columns.map((c) => sql.id(c)));
      await sql`create temp table if not exists ${sql.id(this.staging)} (${columns})`.execute(this.db);
      this.created = true;
    }
    for (const id of ids) this.fingerprints.add(id);
    const width = this.columns.length;
    for (let start = 0; start < ids.length; start += this.rowsPerStatement) {
      const rows = Math.min(this.rowsPerStatement, ids.length - start);
      await this.statements.batch(
        `stage ${this.table}`,
        (slots) => {
          const tuples = Array.from({ length: rows }, (_, r) => sql`(${sql.join(slots.slice(r * width, (r + 1) * width))})`);
          return rawQuery(sql`insert into ${sql.id("temp", this.staging)} values ${sql.join(tuples)}`, this.db);
        },
        values.slice(start * width, (start + rows) * width),
      );
    }
  }

  /**
   * Inserts every staged row into the table, sorted, and empties the stage. SQLite's
   * sorter takes as much memory as the page cache may, on top of it, so the rows are
   * sorted into a second temporary table with a small cache first, and inserted from
   * there, in order, with the cache the import set.
   *
   * When the stage holds at least as many rows as the table (a first import), the
   * table's secondary indexes are dropped first and built again afterwards from the
   * whole table: building an index sorts its entries once and writes its pages in order,
   * where inserting into it visits them at random. The rows then go in in primary-key
   * order, so that the one index left is appended to, straight from the sorter (whose
   * memory, with no index to keep in the page cache, is what the import's cache would
   * have taken; with a smaller one it spilled to disk far more, and took twice as long).
   * Inside the import's transaction: readers (WAL) never see the table without its
   * indexes, and a rollback brings them back. A million bookings took well under half the
   * CPU (bench/RESULTS.md, "Staged, sorted inserts").
   */
  async flush(): Promise<void> {
    if (this.fingerprints.size === 0) return;
    const columns = sql.join(this.columns.map((c) => sql.id(c)));
    const staged = sql.id("temp", this.staging);
    const rebuilt = (await this.worthRebuilding()) ? await this.secondaryIndexes() : [];
    if (rebuilt.length > 0) {
      const order = sql.join(this.primaryKey.map((c) => sql.id(c)));
      for (const index of rebuilt) await sql`drop index ${sql.id(index.name)}`.execute(this.db);
      await sql`insert into ${sql.id(this.table)} (${columns}) select ${columns} from ${staged} order by ${order}`.execute(this.db);
      for (const index of rebuilt) await sql.raw(index.sql).execute(this.db);
    } else {
      const sorted = sql.id("temp", `${this.staging}_sorted`);
      const order = sql.join(this.order.map((c) => sql.id(c)));
      await withPageCache(this.db, SORT_CACHE_KIB, () =>
        sql`create temp table ${sql.id(`${this.staging}_sorted`)} as select * from ${staged} order by ${order}`.execute(this.db),
      );
      await sql`insert into ${sql.id(this.table)} (${columns}) select ${columns} from ${sorted} order by rowid`.execute(this.db);
      await sql`drop table ${sorted}`.execute(this.db);
    }
    await sql`delete from ${staged}`.execute(this.db);
    this.fingerprints.clear();
    this.flushedAny = true;
  }

  /** Whether the stage is large against the table: see `flush`. */
  private async worthRebuilding(): Promise<boolean> {
    if (this.fingerprints.size < REBUILD_MIN_ROWS) return false;
    // Counting stops one row past the stage's size: a large table is not counted in full.
    const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from ${sql.id(this.table)} limit ${this.fingerprints.size + 1})`.execute(
      this.db,
    );
    return Number(rows[0]?.n ?? 0) <= this.fingerprints.size;
  }

  /**
   * The table's indexes other than those of its constraints, with the SQL that made them:
   * of the table the plain name finds, a dry run's temporary copy (dry-run-shadow.ts) before
   * the data file's. Dropped and made again by their plain names, they stay in its schema.
   */
  private async secondaryIndexes(): Promise<{ name: string; sql: string }[]> {
    const { rows: temporary } = await sql`select 1 from temp.sqlite_master where type = 'table' and name = ${this.table}`.execute(this.db);
    const schema = sql.id(temporary.length > 0 ? "temp" : "main", "sqlite_master");
    const { rows } = await sql<{ name: string; sql: string }>`select name, sql from ${schema}
      where type = 'index' and tbl_name = ${this.table} and sql is not null order by name`.execute(this.db);
    return rows;
  }
}

/** Below this many staged rows, the indexes are never rebuilt: a small import is quick either way. */
const REBUILD_MIN_ROWS = 10_000;

/**
 * The most rows staged at once: their fingerprints are the one thing held in memory for
 * each (id-fingerprints.ts), and an import's memory must not grow with its file (docs/cli.md, "import").
 * A larger import is inserted in sorted runs of this many.
 */
const STAGE_LIMIT = 1_000_000;

/** The page cache while staged rows are sorted, in KiB, and with it the sorter's memory. */
const SORT_CACHE_KIB = 8 * 1024;
