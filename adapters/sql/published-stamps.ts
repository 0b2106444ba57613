/**
 * When an import's changes became visible (docs/api.md, "Incremental sync").
 *
 * An import writes its records inside one transaction, stamped with the instant it
 * started; nobody sees them until it commits, seconds or minutes later. Had the records
 * kept that stamp, a client that synced in between would next ask for `updated_since` =
 * its last start minus a few seconds, later than the stamp, and miss the whole import for
 * good. Rewriting a million rows' stamps at the end would take seconds again. So each
 * import adds, as the last statement of its transaction, one row to `publications`:
 * (organisation, the stamp it wrote, the instant it published). Pages show a record's
 * `updated_at` and a tombstone's `deleted_at` as that instant, and a sync's
 * `updated_since` is turned into the stamps to scan from. The publishing is one row
 * however large the import, so a change is shown at most a second plus its commit before
 * it became visible.
 *
 * What keeps this exact: an import's stamp is later than every instant published for
 * the organisation before it (`stampFor`, under the import's write lock: SQLite's one
 * writer, or a Postgres advisory lock per organisation), and its instant later again. So
 * stamps and published instants rise together, imports of one organisation in commit
 * order, and both translations are exact: a stamp shows as one instant, an instant
 * comes from one stamp, and what was read is cached. A row changes only where two imports
 * of one organisation were given the same `now` to the millisecond and the second took
 * over a second: both are then shown at its later instant, and a server that cached the
 * first shows the earlier one until its cache turns over (a duplicate at the next sync,
 * never a miss: the bound a sync asks from is never cached). An import that commits within
 * PUBLISH_AS_STAMPED_MS (nearly all small ones) publishes its stamp as it is: records show
 * the caller's own `now`, as they did before this table.
 */
import { sql, type Expression, type Kysely } from "kysely";
import { PUBLISH_AS_STAMPED_MS } from "../../lib/admin-store.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import { defineQuery, type CompiledQueries } from "./compiled-queries.ts";
import { instant } from "./row-mapping.ts";
import type { Tables } from "./tables.ts";

/** How long an import waits between tries for the Postgres lock of an organisation another import of it holds. */
const LOCK_RETRY_MS = 200;

/** The instant the organisation's latest publication showed, which the next import's stamp must follow. */
async function latestPublished(db: Kysely<Tables>, organisationId: string): Promise<number | null> {
  const row = await db
    .selectFrom("publications")
    .select("published_at")
    .where("organisation_id", "=", organisationId)
    .orderBy("published_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? instant(row.published_at) : null;
}

/**
 * The stamps of one import, and their publication at its end. A caller usually passes one
 * `now` for the whole import; one that passes several (lib/store-contents.ts, to write
 * records as they were) gets one stamp for each, in the same order.
 */
export class ImportStamps {
  /** By organisation: the instant its latest publication before this import showed (null: none), and the stamp of each `now` asked for. */
  private readonly organisations = new Map<string, Promise<{ after: number | null; stamps: Map<number, number> }>>();
  private readonly startedAt: number;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly caps: SqlCapabilities,
    private readonly now: () => number,
    /** How the organisation's lock is waited for on Postgres; `null` takes none (a dry run, which publishes nothing). */
    private readonly waits: { onWait?: (reason: string) => void } | null = {},
  ) {
    this.startedAt = now();
  }

  /** The organisations this import has written to (asked a stamp for). */
  writtenOrganisations(): string[] {
    return [...this.organisations.keys()];
  }

  /** Whether the organisation has its stamps already: then `stampFor` runs no statement. */
  knows(organisationId: string): boolean {
    return this.organisations.has(organisationId);
  }

  /**
   * The stamp this import writes the organisation's records with for the caller's `now`:
   * `now` itself, unless the organisation already published that instant or a later one
   * (a clock that went back, or an import that started while another of the same
   * organisation ran). The first call of each organisation takes its lock on Postgres
   * (SQLite's import holds the data file's one write lock from its transaction's first
   * statement: beginImport in import-transaction.ts).
   */
  async stampFor(organisationId: string, now: number): Promise<number> {
    let organisation = this.organisations.get(organisationId);
    if (!organisation) {
      organisation = this.latest(organisationId).then((after) => ({ after, stamps: new Map<number, number>() }));
      this.organisations.set(organisationId, organisation);
    }
    const { after, stamps } = await organisation;
    let stamp = stamps.get(now);
    if (stamp === undefined) {
      // `now` equal to the latest instant shown is a caller writing at the same instant
      // again (a test's clock that did not move): it shares that stamp. An earlier one
      // follows it.
      stamp = after === null || now >= after ? now : after + 1;
      stamps.set(now, stamp);
    }
    return stamp;
  }

  private async latest(organisationId: string): Promise<number | null> {
    if (this.caps.advisoryLocks && this.waits !== null) await this.lockOrganisation(organisationId, this.waits);
    return latestPublished(this.db, organisationId);
  }

  /**
   * The organisation's import lock on Postgres, held to the transaction's end. Another
   * import of the organisation may run for minutes: the lock is tried again every
   * LOCK_RETRY_MS for as long as that takes, each try a statement that returns at once, so
   * that no statement or read timeout ends the wait; `onWait` hears of it once.
   */
  private async lockOrganisation(organisationId: string, waits: { onWait?: (reason: string) => void }): Promise<void> {
    const key = `publish:${organisationId}`;
    for (let told = false; ; ) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${key})) as locked`.execute(this.db);
      if (rows[0]?.locked) return;
      if (!told) waits.onWait?.(`another import of organisation ${organisationId} is running; waiting for it to finish`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }

  /**
   * The last statements of the import's transaction: one publication per stamp written.
   * Within a second of its start an import shows its stamps as they are; a longer one
   * shows each later by the same amount, at least the time it took, so that the latest
   * is no earlier than the wall clock at its commit, and their order is kept.
   */
  async publish(): Promise<void> {
    const elapsed = this.now() - this.startedAt;
    for (const [organisationId, organisation] of this.organisations) {
      const stamps = [...new Set((await organisation).stamps.values())];
      if (stamps.length === 0) continue;
      const shift = elapsed <= PUBLISH_AS_STAMPED_MS ? 0 : Math.max(elapsed, this.now() - Math.max(...stamps));
      const rows = stamps.map((stamp) => ({ organisation_id: organisationId, stamp, published_at: stamp + shift }));
      // A stamp shared with the import before (see stampFor) is shown as the later of the two.
      await this.db
        .insertInto("publications")
        .values(rows)
        .onConflict((oc) =>
          oc.columns(["organisation_id", "stamp"]).doUpdateSet((eb) => ({
            published_at: sql`case when ${eb.ref("excluded.published_at")} > ${eb.ref("publications.published_at")} then ${eb.ref("excluded.published_at")} else ${eb.ref("publications.published_at")} end`,
          })),
        )
        .execute();
    }
  }
}

const shownQuery = defineQuery<{ organisationId: string; stamp: number }>()((s, db) =>
  db.selectFrom("publications").select("published_at").where("organisation_id", "=", s.organisationId).where("stamp", "=", s.stamp),
);
const stampQuery = defineQuery<{ organisationId: string; published: number }>()((s, db) =>
  db.selectFrom("publications").select("stamp").where("organisation_id", "=", s.organisationId).where("published_at", "=", s.published),
);
const firstSinceQuery = defineQuery<{ organisationId: string; since: number }>()((s, db) =>
  db
    .selectFrom("publications")
    .select("stamp")
    .where("organisation_id", "=", s.organisationId)
    .where("published_at", ">=", s.since)
    .orderBy("published_at")
    .limit(sql.lit(1)),
);

/** Entries kept before the cache starts again; a few per import, so this is years of nightly imports of many organisations. */
const CACHE_ENTRIES = 50_000;

/**
 * The reads' side: stamps as pages show them, and the instants a client sends (a sync's
 * `updated_since`, a cursor's position) as the stamps stored. Every read of a stamp is of
 * a row that is visible, so its publication, committed with it, is visible too: both
 * directions are cached (the one exception is in this file's first comment).
 */
export class PublishedStamps {
  private readonly shown = new Map<string, number>();
  private readonly stored = new Map<string, number>();

  constructor(
    private readonly queries: CompiledQueries,
    /** The connection `queries` runs on, which batch statements are written for. */
    private readonly db: Kysely<Tables>,
  ) {}

  private remember(cache: Map<string, number>, key: string, value: number): void {
    if (cache.size >= CACHE_ENTRIES) cache.clear();
    cache.set(key, value);
  }

  /** How `stamp`, read from a visible row, is shown: its import's published instant (itself for records written before 0007). */
  async shownOf(organisationId: string, stamp: number): Promise<number> {
    const key = `${organisationId} ${stamp}`;
    const cached = this.shown.get(key);
    if (cached !== undefined) return cached;
    const [row] = await this.queries.rows(shownQuery, { organisationId, stamp });
    const published = row ? instant(row.published_at) : stamp;
    this.remember(this.shown, key, published);
    return published;
  }

  /**
   * A mapping of every stamp in `stamps` to how it is shown: from the cache, and the
   * stamps not in it in one statement. A page's rows mostly share a few stamps, nearly
   * always cached; rows written by many small writes (tombstones, each deletion its own
   * instant) may bring a page's worth of new ones, which one lookup each made a page's
   * cost grow with them.
   */
  async shownAll(organisationId: string, stamps: Iterable<number>): Promise<(stamp: number) => number> {
    const shown = new Map<number, number>();
    const missing: number[] = [];
    for (const stamp of stamps) {
      if (shown.has(stamp)) continue;
      const cached = this.shown.get(`${organisationId} ${stamp}`);
      shown.set(stamp, cached ?? stamp);
      if (cached === undefined) missing.push(stamp);
    }
    if (missing.length === 1) shown.set(missing[0]!, await this.shownOf(organisationId, missing[0]!));
    else if (missing.length > 1) {
      const { rows } = await this.queries.batch<{ stamp: number | string; published_at: number | string }>(
        "shown stamps",
        ([organisation, ...each]) =>
          this.db
            .selectFrom("publications")
            .select(["stamp", "published_at"])
            .where("organisation_id", "=", organisation as Expression<string>)
            .where("stamp", "in", each as Expression<number>[]),
        [organisationId, ...missing],
      );
      const published = new Map(rows.map((r) => [instant(r.stamp), instant(r.published_at)]));
      for (const stamp of missing) {
        // A stamp without a publication is shown as it is (written before 0007).
        const value = published.get(stamp) ?? stamp;
        shown.set(stamp, value);
        this.remember(this.shown, `${organisationId} ${stamp}`, value);
      }
    }
    return (stamp) => shown.get(stamp) ?? stamp;
  }

  /** The stamp stored for a shown instant (a cursor's position): the one import published then, else the instant itself. */
  async storedOf(organisationId: string, published: number): Promise<number> {
    const key = `${organisationId} ${published}`;
    const cached = this.stored.get(key);
    if (cached !== undefined) return cached;
    const [row] = await this.queries.rows(stampQuery, { organisationId, published });
    // Not cached when absent: an import may yet publish at that instant (a clock ahead).
    if (!row) return published;
    const stamp = instant(row.stamp);
    this.remember(this.stored, key, stamp);
    return stamp;
  }

  /**
   * The least stamp shown at or after `since`: a record is shown with an instant at or
   * after `since` exactly when its stamp is at or after this. Not cached: an import
   * publishing now changes it.
   */
  async storedSince(organisationId: string, since: number): Promise<number> {
    const [row] = await this.queries.rows(firstSinceQuery, { organisationId, since });
    return row ? Math.min(since, instant(row.stamp)) : since;
  }
}
