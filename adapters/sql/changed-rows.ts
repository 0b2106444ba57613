/**
 * How an import writes the records that carry a content digest (employees, bookings,
 * closure days): the stored digests are read first and only new or changed rows are
 * written, so an identical re-import leaves every `updated_at` where it was (docs/api.md,
 * "Incremental sync"). Statements are compiled once per shape (compiled-queries.ts), of
 * the sizes the dialect prefers (`importRows`); on SQLite, new bookings wait for one
 * sorted insert (staged-inserts.ts); on Postgres, each batch's write runs while the import
 * reads on (`writeBehind`). A table that had none of the organisation's rows when the import
 * began has no digests to read until the import wrote some (`noneWritten`).
 */
import { sql, type Expression, type Kysely } from "kysely";
import type { Sha256Hex } from "../../lib/digest.ts";
import { lastById } from "../../lib/imported-content.ts";
import type { WriteCounts } from "../../lib/admin-store.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { CompiledQueries, rawQuery } from "./compiled-queries.ts";
import { contentDigest } from "./content-digest.ts";
import { IdFingerprints } from "./id-fingerprints.ts";
import { CACHED_PLACEHOLDER_LIMIT } from "./fast-paths.ts";
import { StagedInserts } from "./staged-inserts.ts";
import type { Tables } from "./tables.ts";

/** Rows an import reads or writes a statement at a time where the dialect does not say (`importRows`). */
const BATCH = 400;

/** The most ids of rows written to a table that began empty that an import keeps (`writtenToEmpty`); as many as it stages (staged-inserts.ts). */
const WRITTEN_LIMIT = 1_000_000;

/** Counts of nothing yet. */
export const noCounts = (): WriteCounts => ({ created: 0, updated: 0, unchanged: 0, deleted: 0 });

/** `items` in slices of `size`. */
export function chunks<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

type Digested = "employees" | "leave_bookings" | "closure_days";

interface Digest<T> {
  row: T;
  id: string;
  digest: string;
}

/** The writes of one import to the digested tables, on its transaction's connection. */
export class ChangedRows {
  private readonly statements: CompiledQueries;
  private bookingStage: StagedInserts | null = null;
  /** By table and organisation, whether it had no rows when this import first wrote there (`startedEmpty`). */
  private readonly emptyAtStart = new Map<string, boolean>();
  /**
   * By table and organisation, where it had no rows when this import began and its new
   * rows are written at once (not staged): the ids written since. A batch none of whose
   * ids it may hold has nothing stored to look up; null once it holds too many to keep.
   */
  private readonly writtenToEmpty = new Map<string, IdFingerprints | null>();
  /** The write left running while the import reads on (`caps.writesBehind`); `settle` waits for it. */
  private running: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly caps: SqlCapabilities,
    private readonly sha256Hex: Sha256Hex,
  ) {
    this.statements = new CompiledQueries(db, caps);
  }

  /**
   * Splits rows into new, changed and unchanged by their stored digest. Each id is looked
   * up on its own, by primary key: given `id in (…)`, Postgres planned from the figures of
   * a table that was empty when last analysed (as it is during a first large import) and
   * scanned all of the organisation's rows for every batch, so an import took time
   * quadratic in its size.
   */
  private async classify<T>(table: Digested, organisationId: string, rows: Digest<T>[], nothingStored: boolean) {
    // The stored digest, '' for a soft-deleted row (a digest is never empty; only closure days are soft-deleted), null for none.
    const stored = new Map<string, string | null>();
    if (rows.length > 0 && !nothingStored) {
      const lookup = ([org, ...idSlots]: Expression<unknown>[]) => {
        const ids = sql.join(idSlots.map((id) => sql`(${id})`));
        return rawQuery(
          sql`select k.column1 as id,
          (select case when b.deleted_at is null then b.content_digest else '' end
            from ${sql.table(table)} as b where b.organisation_id = ${org} and b.id = k.column1) as stored
          from (values ${ids}) as k`,
          this.db,
        );
      };
      const values = [organisationId, ...rows.map((r) => r.id)];
      const found = await this.statements.batch<{ id: string; stored: string | null }>(`stored digests of ${table}`, lookup, values);
      for (const f of found.rows) stored.set(f.id, f.stored);
    }
    const created: Digest<T>[] = [];
    const changed: Digest<T>[] = [];
    const revived: string[] = [];
    for (const row of rows) {
      const digest = stored.get(row.id) ?? null;
      if (digest === null) created.push(row);
      else if (digest !== row.digest) changed.push(row);
      if (digest === "") revived.push(row.id);
    }
    return { created, changed, revived, unchanged: rows.length - created.length - changed.length };
  }

  /**
   * Writes the new and changed rows (by content digest) and counts all of them; `columns`
   * gives a row's table columns, id included, without the bookkeeping ones, always in the
   * same order. Returns the rows written and the ids of those that were soft-deleted until
   * now. Later rows with the same id win.
   */
  async write<T extends { id: string }>(
    table: Digested,
    organisationId: string,
    rows: T[],
    now: number,
    columns: (row: T) => Record<string, unknown>,
    /** Called before each batch's changed rows are written with their ids and those of the revived ones; what it returns, after. */
    watch?: (changed: string[], revived: string[]) => Promise<() => Promise<void>>,
  ): Promise<{ counts: WriteCounts; written: T[]; revived: string[] }> {
    const counts = noCounts();
    const written: T[] = [];
    const revived: string[] = [];
    const unique = lastById(rows);
    if (unique.length === 0) return { counts, written, revived };
    const names = ["organisation_id", ...Object.keys(columns(unique[0]!)), "content_digest", "updated_at", "deleted_at"];
    const valuesOf = (rows: Digest<T>[]) => {
      const values: unknown[] = [];
      for (const w of rows) values.push(organisationId, ...Object.values(columns(w.row)), w.digest, now, null);
      return values;
    };
    const write = async (how: "insert" | "upsert", rows: Digest<T>[]) => {
      for (const batch of chunks(rows, this.caps.importRows.write)) {
        const values = valuesOf(batch);
        await this.statements.batch(`${how} ${table}`, (slots) => this.writeStatement(how, table, names, slots), values);
      }
    };
    const stage = this.stageFor(table, names);
    await this.settle();
    const startedEmpty = await this.startedEmpty(table, organisationId);
    const key = `${table}|${organisationId}`;
    for (const batch of chunks(unique, this.caps.importRows.read)) {
      if (stage && batch.some((r) => stage.mayHold(r.id))) await stage.flush();
      const digested = batch.map((r) => ({ row: r, id: r.id, digest: contentDigest(r, this.sha256Hex) }));
      // Staged: every row of the organisation is then a staged one, and none of these ids
      // is staged. Written at once: none of these ids was written by this import.
      const nothingStored = stage ? startedEmpty && !stage.flushedAny : this.noneWritten(key, startedEmpty, batch);
      // What the last batch wrote is seen, and its error, if any, is the one thrown.
      await this.settle();
      const { created, changed, unchanged, revived: back } = await this.classify(table, organisationId, digested, nothingStored);
      revived.push(...back);
      counts.created += created.length;
      counts.updated += changed.length;
      counts.unchanged += unchanged;
      for (const w of [...created, ...changed]) written.push(w.row);
      const afterWrite =
        watch && changed.length > 0
          ? await watch(
              changed.map((w) => w.id),
              back,
            )
          : undefined;
      if (stage) {
        await stage.add(
          created.map((r) => r.id),
          valuesOf(created),
        );
        await write("upsert", changed);
        await afterWrite?.();
        continue;
      }
      this.noteWritten(key, created);
      await this.writeBehind(async () => {
        if (this.caps.advisoryLocks) await write("upsert", [...created, ...changed]);
        else {
          // Where the transaction makes check-then-insert atomic (SQLite), the new rows are
          // plainly inserted, which SQLite does in about half the time of an upsert.
          await write("insert", created);
          await write("upsert", changed);
        }
        await afterWrite?.();
      });
    }
    return { counts, written, revived };
  }

  /**
   * Waits for the write left running, if any, and throws what it threw. Every statement
   * of the import's connection other than that write waits for it first (SqlImportWriter
   * sees to it), so that the import's first error is the one reported, not Postgres's
   * "current transaction is aborted" of the statement after it.
   */
  async settle(): Promise<void> {
    const running = this.running;
    this.running = null;
    await running;
  }

  /**
   * Runs `work`, the writes of one batch, after the last batch's. Where the dialect pays a
   * round trip per statement (`caps.writesBehind`), it is left running while the import
   * goes on reading, checking and digesting the next rows, so that the server's work and
   * the import's own overlap instead of taking turns.
   */
  private async writeBehind(work: () => Promise<void>): Promise<void> {
    await this.settle();
    const running = work();
    if (!this.caps.writesBehind) return running;
    // `settle` awaits it; caught here too only so that a rollback for another reason does not report it as unhandled.
    running.catch(() => {});
    this.running = running;
  }

  /**
   * Whether `table` had no rows of the organisation when this import began and none of
   * `rows`' ids was written since: then none is stored (`writtenToEmpty`).
   */
  private noneWritten(key: string, startedEmpty: boolean, rows: readonly { id: string }[]): boolean {
    if (!this.writtenToEmpty.has(key)) this.writtenToEmpty.set(key, startedEmpty ? new IdFingerprints() : null);
    const ids = this.writtenToEmpty.get(key);
    return ids !== null && ids !== undefined && !rows.some((r) => ids.mayHold(r.id));
  }

  private noteWritten(key: string, rows: readonly { id: string }[]): void {
    const ids = this.writtenToEmpty.get(key);
    if (!ids) return;
    for (const r of rows) ids.add(r.id);
    // Past this many, rows are looked up again: the set's memory is bounded, as the stage's is.
    if (ids.size > WRITTEN_LIMIT) this.writtenToEmpty.set(key, null);
  }

  /**
   * Whether the organisation had no rows in `table` when this import first wrote to it.
   * Until staged rows are flushed, it then has none but those staged (rows are added
   * only by `write`, and a row is written directly only when its id is stored), so
   * a first import looks up no stored digest: a million bookings made a million lookups
   * that found nothing.
   */
  private async startedEmpty(table: Digested, organisationId: string): Promise<boolean> {
    const key = `${table}|${organisationId}`;
    let empty = this.emptyAtStart.get(key);
    if (empty === undefined) {
      const row = await this.db.selectFrom(table).select("id").where("organisation_id", "=", organisationId).limit(1).executeTakeFirst();
      empty = row === undefined;
      this.emptyAtStart.set(key, empty);
    }
    return empty;
  }

  /**
   * Of `ids`, those that may be stored for the organisation in `table` (the others are
   * certainly not), judged as the digest lookups are: where it had no rows when this
   * import began, only what the import wrote since, staged rows excepted. Lets the reads of
   * stored fields (import-reads.ts) skip a first import: without it, each batch of a first
   * Postgres import scanned the growing, unanalysed table, and 50,000 bookings took 30 s.
   */
  async mayBeStored(table: Digested, organisationId: string, ids: string[]): Promise<string[]> {
    if (!(await this.startedEmpty(table, organisationId))) return ids;
    if (table === "leave_bookings" && this.caps.importRows.stage !== null) return this.bookingStage?.flushedAny ? ids : [];
    const written = this.writtenToEmpty.get(`${table}|${organisationId}`);
    if (written === undefined) return [];
    if (written === null) return ids;
    return ids.filter((id) => written.mayHold(id));
  }

  /** Where new rows of `table` wait to be inserted in one sorted statement, if they do (see staged-inserts.ts). */
  private stageFor(table: Digested, names: string[]): StagedInserts | null {
    const rowsPerStatement = this.caps.importRows.stage;
    if (table !== "leave_bookings" || rowsPerStatement === null) return null;
    // Past the placeholders bun:sqlite keeps a statement prepared for, each one would be
    // prepared again on every run: a wider row stages fewer rows a statement.
    const rows = Math.max(1, Math.min(rowsPerStatement, Math.floor(CACHED_PLACEHOLDER_LIMIT / names.length)));
    this.bookingStage ??= new StagedInserts(this.db, this.statements, table, names, ["start_date", "id"], ["organisation_id", "id"], rows);
    return this.bookingStage;
  }

  /** Inserts the staged new bookings, if any (SqlImportWriter's `flushStaged` says when). */
  async flushStaged(): Promise<void> {
    await this.settle();
    await this.bookingStage?.flush();
  }

  /** Inserts rows of these columns, one slot per value, row by row; with `upsert`, a row whose id is stored already replaces the stored one. */
  private writeStatement(how: "insert" | "upsert", table: Digested, names: string[], slots: Expression<unknown>[]) {
    const rows = Array.from({ length: slots.length / names.length }, (_, r) => Object.fromEntries(names.map((c, i) => [c, slots[r * names.length + i]])));
    const insert = this.db.insertInto(table).values(rows as never);
    if (how === "insert") return insert;
    // The source system's id is never shown, so an import that omits it keeps the stored one.
    const set = Object.fromEntries(
      names
        .filter((c) => c !== "organisation_id" && c !== "id")
        .map((c) => [c, c === "external_id" ? sql`coalesce(excluded.external_id, ${sql.ref(`${table}.external_id`)})` : sql.ref(`excluded.${c}`)]),
    );
    return insert.onConflict((oc) => oc.columns(["organisation_id", "id"]).doUpdateSet(set as never));
  }
}
