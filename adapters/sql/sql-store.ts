/**
 * The Store on Kysely: one copy of the queries for SQLite and Postgres.
 * Reads, tokens and rate limits live here; admin writes and imports in sql-admin.ts.
 */
import { sql, type Kysely } from "kysely";
import { StoreUnavailableError } from "../../lib/errors.ts";
import { addDays } from "../../lib/dates.ts";
import { base64urlDecode, base64urlEncode } from "../../lib/encoding.ts";
import type {
  AccessTokenGrant,
  ClientCredentials,
  EmployeePageQuery,
  ImportedPublicHoliday,
  LeavePageQuery,
  RateDecision,
  Store,
} from "../../lib/store.ts";
import type { ClosureDayRecord, ClosureAppliesTo, EmployeeRecord, LeaveBookingRecord } from "../../lib/records.ts";
import type { SqlCapabilities } from "./capabilities.ts";
import type { Tables } from "./tables.ts";
import { bool, instant, scopeList, toEmployee, toLeaveBooking } from "./row-mapping.ts";
import { QueryShapes, param, type DirectRunner } from "./query-shapes.ts";
import { classMaxSpan, LAST_BOUNDED_CLASS, SPAN_CLASS_COUNT, spanClassExpression } from "./leave-span-classes.ts";

export interface SqlStoreOptions {
  db: Kysely<Tables>;
  /**
   * Where the data endpoints read employees, leave and holidays: a read replica. Tokens,
   * clients, rate limits and the cursor key always use `db`, the primary, because they
   * must be fresh. Default: `db`.
   */
  readDb?: Kysely<Tables>;
  caps: SqlCapabilities;
  /** Whether an error means the database cannot be reached (answered as 503, not 500). */
  isUnavailable: (error: unknown) => boolean;
  /** Fills the installation's cursor key when first needed. */
  randomBytes: (length: number) => Uint8Array;
  /** The schema that holds the tables and the migrations' bookkeeping (Postgres); default: the connection's. */
  schema?: string;
  /**
   * Runs the hot, compiled-once queries on a connection of their own, bypassing Kysely
   * (SQLite files: a second connection to the same file). Default: through `db`/`readDb`.
   */
  direct?: DirectRunner;
  close: () => Promise<void>;
}

const EMPLOYEE_COLUMNS = [
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

/** How long a live token's grant is reused without asking the database (findToken). */
const GRANT_CACHE_MS = 3000;
const GRANT_CACHE_SIZE = 10_000;

// Named with `as`: the ORDER BY of a UNION ALL may name only the result's column names.
const LEAVE_COLUMNS = [
  "b.id as id",
  "b.employee_id",
  "b.leave_type_id",
  "b.start_date as start_date",
  "b.end_date",
  "b.start_half_day",
  "b.start_half_period",
  "b.end_half_day",
  "b.end_half_period",
  "b.days",
  "b.status",
  "b.requested_at",
  "b.reviewed_at",
  "b.cancelled_at",
  "b.updated_at",
] as const;

/** Which sets a leave page must filter by: only what would exclude something is applied. */
interface LeaveFilters {
  /** The organisation has leave types other than annual ones. */
  types: boolean;
  /** The organisation has deleted employees. */
  deletedEmployees: boolean;
}

export function closureFromRow(r: {
  date: string;
  name: string;
  applies_to: string;
  department: string | null;
  location: string | null;
  deducts_from_leave: boolean | number;
}): ClosureDayRecord {
  return {
    date: r.date,
    name: r.name,
    applies_to: r.applies_to as ClosureAppliesTo,
    department: r.department,
    location: r.location,
    deducts_from_leave: bool(r.deducts_from_leave),
  };
}

/** Store queries that read inside or outside a transaction (`db` may be a transaction). */
export function listClosureDaysQuery(db: Kysely<Tables>, organisationId: string, from: string, to: string) {
  return db
    .selectFrom("closure_days")
    .select(["date", "name", "applies_to", "department", "location", "deducts_from_leave"])
    .where("organisation_id", "=", organisationId)
    .where("deleted_at", "is", null)
    .where("date", ">=", from)
    .where("date", "<=", to)
    .orderBy("date")
    .orderBy("name")
    .execute()
    .then((rows) => rows.map(closureFromRow));
}

export function listImportedPublicHolidaysQuery(
  db: Kysely<Tables>,
  organisationId: string,
  calendars: readonly string[],
  fromYear: number,
  toYear: number,
): Promise<ImportedPublicHoliday[]> {
  if (calendars.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("public_holidays")
    .select(["calendar", "date", "name"])
    .where("organisation_id", "=", organisationId)
    .where("calendar", "in", [...calendars])
    .where("year", ">=", fromYear)
    .where("year", "<=", toYear)
    .orderBy("date")
    .execute();
}

export class SqlStore implements Store {
  protected readonly db: Kysely<Tables>;
  /** The data reads' connection: the replica when there is one, else the primary. */
  protected readonly reader: Kysely<Tables>;
  protected readonly caps: SqlCapabilities;
  /** The leave page index's leading expression, repeated word for word by the page query. */
  private readonly spanClass: string;
  protected readonly options: SqlStoreOptions;
  private key: Uint8Array | undefined;
  private closed = false;
  /** Compile-once hot queries, on the primary and on the reader. */
  private readonly primaryShapes: QueryShapes;
  private readonly readerShapes: QueryShapes;

  constructor(options: SqlStoreOptions) {
    this.options = options;
    this.db = options.db;
    this.reader = options.readDb ?? options.db;
    this.caps = options.caps;
    this.spanClass = `(${spanClassExpression(options.caps)})`;
    this.primaryShapes = new QueryShapes(this.db as Kysely<never>, options.direct);
    this.readerShapes = new QueryShapes(this.reader as Kysely<never>, options.direct);
  }

  /** Runs a query, turning "cannot reach the database" into StoreUnavailableError. */
  protected async guard<T>(work: () => Promise<T>): Promise<T> {
    // A closed store cannot reach its database: answered as 503, like a lost connection.
    if (this.closed) throw new StoreUnavailableError("The data store has been closed.");
    try {
      return await work();
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      if (this.closed || this.options.isUnavailable(error)) throw new StoreUnavailableError(undefined, { cause: error });
      throw error;
    }
  }

  protected boolValue(b: boolean): boolean | number {
    return this.caps.booleanType === "integer" ? (b ? 1 : 0) : b;
  }

  async installationKey(): Promise<Uint8Array> {
    if (this.key) return this.key;
    return this.guard(async () => {
      const fresh = base64urlEncode(this.options.randomBytes(32));
      // Insert-if-absent then read: two instances starting together agree on one key.
      await this.db
        .insertInto("installation")
        .values({ name: "cursor_key", value: fresh })
        .onConflict((oc) => oc.column("name").doNothing())
        .execute();
      const row = await this.db
        .selectFrom("installation")
        .select("value")
        .where("name", "=", "cursor_key")
        .executeTakeFirstOrThrow();
      this.key = base64urlDecode(row.value) ?? undefined;
      if (!this.key) throw new Error("The installation's cursor key is corrupt.");
      return this.key;
    });
  }

  findClient(clientId: string): Promise<ClientCredentials | null> {
    return this.guard(async () => {
      const [row] = await this.primaryShapes.rows(
        "findClient",
        () =>
          this.db
            .selectFrom("api_clients as c")
            .innerJoin("organisations as o", "o.id", "c.organisation_id")
            .select([
              "c.client_id",
              "c.organisation_id",
              "c.name",
              "c.secret_digest",
              "c.scopes",
              "c.created_at",
              "c.revoked_at",
              "o.api_enabled",
            ])
            .where("c.client_id", "=", param("clientId")),
        { clientId },
      );
      if (!row) return null;
      return {
        client_id: row.client_id,
        organisation_id: row.organisation_id,
        name: row.name,
        secret_digest: row.secret_digest,
        scopes: scopeList(row.scopes),
        created_at: instant(row.created_at),
        revoked_at: row.revoked_at === null ? null : instant(row.revoked_at),
        api_enabled: bool(row.api_enabled),
      };
    });
  }

  private tokensSaved = 0;

  saveToken(digest: string, grant: AccessTokenGrant): Promise<void> {
    return this.guard(async () => {
      // One statement inserts only while API access is on. On Postgres, FOR SHARE makes a
      // switch-off in flight wait for this insert (its delete then sees the token) or
      // this insert wait for the switch-off (and then find access off). SQLite runs one
      // writer at a time. The casts type the selected parameters for Postgres.
      await this.primaryShapes.rawRows(
        "saveToken",
        () => sql`
          insert into access_tokens (digest, client_id, organisation_id, scopes, expires_at)
          select cast(${param("digest")} as text), cast(${param("clientId")} as text), id,
            cast(${param("scopes")} as text), cast(${param<number>("expiresAt")} as bigint)
          from organisations
          where id = ${param("organisationId")} and api_enabled = ${param("enabled")}${this.caps.advisoryLocks ? sql` for share` : sql``}`,
        {
          digest,
          clientId: grant.client_id,
          organisationId: grant.organisation_id,
          scopes: grant.scopes.join(" "),
          expiresAt: grant.expires_at,
          enabled: this.boolValue(true),
        },
      );
      // Expired tokens are useless; sweep them now and then rather than on every issue.
      if (++this.tokensSaved % 256 === 0) {
        await this.db.deleteFrom("access_tokens").where("expires_at", "<", grant.expires_at - 2 * 3600_000).execute();
      }
    });
  }

  /**
   * Live grants by token digest, each for GRANT_CACHE_MS: a data request then needs no
   * token query (a round trip on Postgres, a third of a page's database time there).
   * docs/api.md ("Using a token") lets another process honour a revoked token this long;
   * revoking or switching API access off through this store forgets them all at once
   * (forgetGrants). Only live grants are kept: an unknown token is asked of the database
   * every time, so a token just issued by another instance works here at once.
   */
  private readonly grants = new Map<string, { grant: AccessTokenGrant; until: number }>();
  /** Moves on every forgetGrants(), so a lookup that raced a revocation is not kept. */
  private grantsGeneration = 0;

  protected forgetGrants(): void {
    this.grants.clear();
    this.grantsGeneration++;
  }

  findToken(digest: string): Promise<AccessTokenGrant | null> {
    const cached = this.grants.get(digest);
    if (cached && !this.closed && cached.until > performance.now()) return Promise.resolve(cached.grant);
    const generation = this.grantsGeneration;
    return this.guard(async () => {
      const grant = await this.lookUpToken(digest);
      if (grant && generation === this.grantsGeneration) {
        // Oldest first out: a Map keeps insertion order.
        if (this.grants.size >= GRANT_CACHE_SIZE) this.grants.delete(this.grants.keys().next().value!);
        this.grants.set(digest, { grant, until: performance.now() + GRANT_CACHE_MS });
      }
      return grant;
    });
  }

  private async lookUpToken(digest: string): Promise<AccessTokenGrant | null> {
    const [row] = await this.primaryShapes.rows(
      "findToken",
      () =>
        this.db
          .selectFrom("access_tokens as t")
          .innerJoin("api_clients as c", "c.client_id", "t.client_id")
          .innerJoin("organisations as o", "o.id", "t.organisation_id")
          .select(["t.organisation_id", "t.client_id", "t.scopes", "t.expires_at", "c.revoked_at", "o.api_enabled"])
          .where("t.digest", "=", param("digest")),
      { digest },
    );
    if (!row || row.revoked_at !== null || !bool(row.api_enabled)) return null;
    return {
      organisation_id: row.organisation_id,
      client_id: row.client_id,
      scopes: scopeList(row.scopes),
      expires_at: instant(row.expires_at),
    };
  }

  takeRateSlot(key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
    if (!this.caps.advisoryLocks) return this.guard(() => this.takeRateSlotAlone(key, now, limit, windowMs));
    return this.guard(() =>
      this.db.transaction().execute(async (trx) => {
        // Serialises check-and-insert per key across every instance sharing the database.
        await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
        await trx.deleteFrom("rate_events").where("key", "=", key).where("at", "<=", now - windowMs).execute();
        // One statement: insert only while under the limit, so concurrent callers cannot overshoot.
        const inserted = await sql`
          insert into rate_events (key, at)
          select ${key}, ${now}
          where (select count(*) from rate_events where key = ${key} and at > ${now - windowMs}) < ${limit}
        `.execute(trx);
        if (Number(inserted.numAffectedRows ?? 0) > 0) return { allowed: true } as const;
        return this.refusal(trx, key, now, limit, windowMs);
      }),
    );
  }

  /**
   * SQLite runs one writer at a time, so the conditional insert is atomic on its own and
   * needs no transaction around it; both statements are compiled once (a token request
   * pays for this on every call).
   */
  private async takeRateSlotAlone(key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
    const values = { key, now, since: now - windowMs, limit, one: 1 };
    // A delete that finds nothing still takes the write lock and commits; most calls have
    // nothing old to sweep, so a read asks first.
    const [stale] = await this.primaryShapes.rows(
      "staleRateEvent",
      () => this.db.selectFrom("rate_events").select("at").where("key", "=", param("key")).where("at", "<=", param<number>("since")).limit(param<number>("one")),
      values,
    );
    if (stale) {
      await this.primaryShapes.rows(
        "sweepRateEvents",
        () => this.db.deleteFrom("rate_events").where("key", "=", param("key")).where("at", "<=", param<number>("since")),
        values,
      );
    }
    const inserted = await this.primaryShapes.rawRows<{ at: number }>(
      "takeRateSlot",
      () => sql`
        insert into rate_events (key, at)
        select ${param("key")}, ${param<number>("now")}
        where (select count(*) from rate_events where key = ${param("key")} and at > ${param<number>("since")}) < ${param<number>("limit")}
        returning at`,
      values,
    );
    if (inserted.length > 0) return { allowed: true };
    return this.refusal(this.db, key, now, limit, windowMs);
  }

  checkRateLimit(key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
    return this.guard(async () => {
      const [row] = await this.primaryShapes.rows(
        "countRateEvents",
        () =>
          this.db
            .selectFrom("rate_events")
            .select((e) => e.fn.countAll().as("n"))
            .where("key", "=", param("key"))
            .where("at", ">", param<number>("since")),
        { key, since: now - windowMs },
      );
      if (Number(row?.n ?? 0) < limit) return { allowed: true };
      return this.refusal(this.db, key, now, limit, windowMs);
    });
  }

  sweepRateEvents(now: number, windowMs: number): Promise<number> {
    return this.guard(async () => {
      // No index leads with `at`: the sweep keeps the table near one window of events, and
      // scanning that once a minute costs less than a second index on every event's insert.
      const result = await this.db.deleteFrom("rate_events").where("at", "<=", now - windowMs).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  /** How long until enough events leave the window for one more to fit. */
  private async refusal(db: Kysely<Tables>, key: string, now: number, limit: number, windowMs: number): Promise<RateDecision> {
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

  listEmployees(q: EmployeePageQuery): Promise<EmployeeRecord[]> {
    const shape = `listEmployees:${q.status !== undefined}:${q.updatedSince !== undefined}:${q.after !== undefined}`;
    return this.guard(async () => {
      const rows = await this.readerShapes.rows(
        shape,
        () => {
          let query = this.reader
            .selectFrom("employees")
            .select(EMPLOYEE_COLUMNS)
            .where("organisation_id", "=", param("organisationId"))
            .where("deleted_at", "is", null);
          if (q.status !== undefined) query = query.where("status", "=", param("status"));
          if (q.updatedSince !== undefined) query = query.where("updated_at", ">=", param("updatedSince"));
          if (q.after) {
            query = query.where((eb) =>
              eb(eb.refTuple("updated_at", "id"), ">", eb.tuple(param<number>("afterUpdatedAt"), param("afterId"))),
            );
          }
          return query.orderBy("updated_at").orderBy("id").limit(param<number>("limit"));
        },
        {
          organisationId: q.organisationId,
          status: q.status,
          updatedSince: q.updatedSince,
          afterUpdatedAt: q.after?.updatedAt,
          afterId: q.after?.id,
          limit: q.limit,
        },
      );
      return rows.map(toEmployee);
    });
  }

  findEmployee(organisationId: string, id: string): Promise<EmployeeRecord | null> {
    return this.guard(async () => {
      const [row] = await this.readerShapes.rows(
        "findEmployee",
        () =>
          this.reader
            .selectFrom("employees")
            .select(EMPLOYEE_COLUMNS)
            .where("organisation_id", "=", param("organisationId"))
            .where("id", "=", param("id"))
            .where("deleted_at", "is", null),
        { organisationId, id },
      );
      return row ? toEmployee(row) : null;
    });
  }

  listOverlappingLeave(q: LeavePageQuery): Promise<LeaveBookingRecord[]> {
    return this.guard(async () => {
      let context = await this.leaveContext(q.organisationId);
      const annualCount = context.filter((t) => t.category === "annual").length;
      if (annualCount === 0) return [];
      // The usual organisation has only annual leave types and no deleted employees: then
      // the page needs neither filter, and each arm is a bare scan of the page index.
      const filters: LeaveFilters = { types: annualCount < context.length, deletedEmployees: bool(context[0]!.someone_deleted) };
      const maxSpanDays = Number(context[0]!.max_span_days ?? 0);
      let rows = await this.overlappingLeaveRows(q, filters, maxSpanDays);
      let byId = new Map(context.map((t) => [t.id, t]));
      if (rows.some((r) => byId.get(r.leave_type_id)?.category !== "annual")) {
        // A leave type was added while this page was read: read it again, filtering by type.
        rows = await this.overlappingLeaveRows(q, { ...filters, types: true }, maxSpanDays);
        context = await this.leaveContext(q.organisationId);
        byId = new Map(context.map((t) => [t.id, t]));
      }
      return rows.map((r) => toLeaveBooking(r, byId.get(r.leave_type_id)!));
    });
  }

  /**
   * What a leave page needs to know first, in one statement (one round trip on Postgres):
   * the organisation's leave types (a handful), each row also carrying whether it has
   * deleted employees and its longest booking span. No leave types, no rows.
   */
  private leaveContext(organisationId: string) {
    return this.readerShapes.rows(
      "leaveContext",
      () =>
        this.reader
          .selectFrom("leave_types as t")
          .select((eb) => [
            "t.id",
            "t.name",
            "t.category",
            "t.is_paid",
            eb
              .selectFrom("leave_spans as s")
              .select("s.max_span_days")
              .where("s.organisation_id", "=", param("organisationId"))
              .as("max_span_days"),
            eb
              .exists(
                eb
                  .selectFrom("employees as gone")
                  .select("gone.id")
                  .where("gone.organisation_id", "=", param("organisationId"))
                  .where("gone.deleted_at", "is not", null),
              )
              .as("someone_deleted"),
          ])
          .where("t.organisation_id", "=", param("organisationId")),
      { organisationId },
    );
  }

  private async overlappingLeaveRows(q: LeavePageQuery, filters: LeaveFilters, maxSpanDays: number) {
    const shape = `listLeave:${q.status !== undefined}:${q.employeeId !== undefined}:${q.updatedSince !== undefined}:${q.after !== undefined}:${filters.types}:${filters.deletedEmployees}`;
    // Each span class is scanned from `from` minus its own longest span; the last class's
    // longest is the longest booking ever stored (leave-span-classes.ts). Past a cursor,
    // each class starts at whichever is later, the cursor or its own earliest start, as
    // one (start_date, id) bound: given two lower bounds on the index, the planner may
    // seek to the looser and filter its way to the cursor, making deep pages cost their depth.
    const bounds: Record<string, string> = {};
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
      const longest = c <= LAST_BOUNDED_CLASS ? classMaxSpan(c) : Math.max(classMaxSpan(c), maxSpanDays);
      const earliest = addDays(q.from, -longest);
      if (!q.after) bounds[`earliestStart${c}`] = earliest;
      else if (q.after.startDate >= earliest) Object.assign(bounds, { [`afterStart${c}`]: q.after.startDate, [`afterId${c}`]: q.after.id });
      // Every id sorts after "", so this keeps every booking that starts on `earliest`.
      else Object.assign(bounds, { [`afterStart${c}`]: earliest, [`afterId${c}`]: "" });
    }
    return this.readerShapes.rows(shape, () => this.overlappingLeaveQuery(q, filters), {
      organisationId: q.organisationId,
      ...bounds,
      from: q.from,
      to: q.to,
      annual: "annual",
      status: q.status,
      employeeId: q.employeeId,
      updatedSince: q.updatedSince,
      limit: q.limit,
    });
  }

  /** One ordered index scan per span class, merged by (start_date, id). */
  private overlappingLeaveQuery(q: LeavePageQuery, filters: LeaveFilters) {
    const arm = (spanClass: number) => {
      // Filters only, no joins, so each arm reads nothing but the page index (migration
      // 0002). Joining the leave types row by row cost two microseconds a booking; with
      // statistics, SQLite even put them in the outer loop, lost the index order and
      // sorted every overlapping booking. The two sets below are small, but each arm
      // builds its own copy, so they are left out when they would exclude nothing.
      let bookings = this.reader.selectFrom("leave_bookings as b");
      if (filters.types) {
        bookings = bookings.where("b.leave_type_id", "in", (eb) =>
          eb
            .selectFrom("leave_types as annual")
            .select("annual.id")
            .where("annual.organisation_id", "=", param("organisationId"))
            .where("annual.category", "=", param("annual")),
        );
      }
      if (filters.deletedEmployees) {
        bookings = bookings.where("b.employee_id", "not in", (eb) =>
          eb
            .selectFrom("employees as gone")
            .select("gone.id")
            .where("gone.organisation_id", "=", param("organisationId"))
            .where("gone.deleted_at", "is not", null),
        );
      }
      let query = bookings
        .select(LEAVE_COLUMNS)
        .where("b.organisation_id", "=", param("organisationId"))
        .where(sql.raw(this.spanClass), "=", sql.lit(spanClass))
        .where((eb) =>
          q.after
            ? eb(eb.refTuple("b.start_date", "b.id"), ">", eb.tuple(param(`afterStart${spanClass}`), param(`afterId${spanClass}`)))
            : eb("b.start_date", ">=", param(`earliestStart${spanClass}`)),
        )
        .where("b.start_date", "<=", param("to"))
        .where("b.end_date", ">=", param("from"))
        .where("b.deleted_at", "is", null);
      if (q.status !== undefined) query = query.where("b.status", "=", param("status"));
      if (q.employeeId !== undefined) query = query.where("b.employee_id", "=", param("employeeId"));
      if (q.updatedSince !== undefined) query = query.where("b.updated_at", ">=", param("updatedSince"));
      return query;
    };
    // Postgres plans each arm on its own estimates and, unbounded, may read all of an arm's
    // overlap and sort it; with its own ORDER BY and LIMIT, each arm is an ordered index
    // scan that stops early under a Merge Append. SQLite allows neither in a compound's
    // members, and its MERGE already pulls each arm row by row.
    // Both forms give the same columns; the type follows the plain arm's.
    const bounded = (spanClass: number): ReturnType<typeof arm> =>
      this.caps.dialect === "postgres"
        ? (this.reader
            .selectFrom(arm(spanClass).orderBy("b.start_date").orderBy("b.id").limit(param<number>("limit")).as(`class${spanClass}`))
            .selectAll() as unknown as ReturnType<typeof arm>)
        : arm(spanClass);
    let merged = bounded(0);
    for (let c = 1; c < SPAN_CLASS_COUNT; c++) merged = merged.unionAll(bounded(c));
    return merged.orderBy("start_date").orderBy("id").limit(param<number>("limit"));
  }

  listClosureDays(organisationId: string, from: string, to: string): Promise<ClosureDayRecord[]> {
    return this.guard(() => listClosureDaysQuery(this.reader, organisationId, from, to));
  }

  observedCalendars(organisationId: string, from: string, to: string): Promise<string[]> {
    return this.guard(async () => {
      const rows = await this.reader
        .selectFrom("employees")
        .select("holiday_calendar")
        .distinct()
        .where("organisation_id", "=", organisationId)
        .where("deleted_at", "is", null)
        .where("holiday_calendar", "is not", null)
        .where((eb) => eb.or([eb("start_date", "is", null), eb("start_date", "<=", to)]))
        .where((eb) => eb.or([eb("leaving_date", "is", null), eb("leaving_date", ">=", from)]))
        .orderBy("holiday_calendar")
        .execute();
      return rows.map((r) => r.holiday_calendar!);
    });
  }

  listImportedPublicHolidays(
    organisationId: string,
    calendars: readonly string[],
    fromYear: number,
    toYear: number,
  ): Promise<ImportedPublicHoliday[]> {
    return this.guard(() => listImportedPublicHolidaysQuery(this.reader, organisationId, calendars, fromYear, toYear));
  }

  /** Both connections must answer: a dead replica fails the data endpoints as surely as a dead primary. */
  ping(): Promise<void> {
    return this.guard(async () => {
      await sql`select 1`.execute(this.db);
      if (this.reader !== this.db) await sql`select 1`.execute(this.reader);
    });
  }

  /** Idempotent: a second close resolves at once. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return this.options.close();
  }
}
