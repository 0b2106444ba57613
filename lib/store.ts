/**
 * The Store: everything the API needs from persistence, named for the domain rather than
 * as generic CRUD. One SQL implementation serves SQLite and Postgres (adapters/); a host
 * application may implement it over its own tables and prove it with `runStoreContract`.
 *
 * Conventions for every method: instants are epoch milliseconds; dates are `YYYY-MM-DD`
 * strings; ids are lower-case UUIDs; deleted records never come back from a read;
 * a store that cannot reach its database throws `StoreUnavailableError`.
 *
 * Host stores implement this interface, so it grows only by optional members, each saying
 * what happens without it (docs/embedding.md, "How the Store interface changes").
 */
import type { DeletedResource } from "./deleted-resources.ts";
import type { EmployeeFilters, LeaveFilters } from "./list-filters.ts";
import type { ClosureDayRecord, EmployeeRecord, LeaveBookingRecord } from "./records.ts";
import type { Scope } from "./scopes.ts";
import type { CredentialRestriction, EmployeeSelection } from "./restriction.ts";

export interface Organisation {
  id: string;
  name: string;
  api_enabled: boolean;
  created_at: number;
}

export interface ApiClient {
  client_id: string;
  organisation_id: string;
  name: string | null;
  scopes: Scope[];
  created_at: number;
  revoked_at: number | null;
  /**
   * The client's restriction (docs/api.md, "Restricted credentials"); absent when it reads
   * the whole organisation. A store without `Store.restricted` never answers one.
   */
  restriction?: CredentialRestriction;
}

/** A client as the token endpoint needs it: with its secret digest and its organisation's switch. */
export interface ClientCredentials extends ApiClient {
  secret_digest: string;
  api_enabled: boolean;
  /**
   * The secret a rotation replaced, by digest, accepted until `expires_at` (docs/cli.md,
   * "credentials rotate"); absent when there is none. A store that never rotates omits it.
   */
  previous_secret?: { digest: string; expires_at: number };
}

export interface AccessTokenGrant {
  organisation_id: string;
  client_id: string;
  scopes: Scope[];
  expires_at: number;
  /**
   * The client's restriction as it is now (not as it was when the token was issued):
   * `findToken` answers it with the grant, so that changing a restriction takes effect on
   * live tokens as a revocation does. Absent: the whole organisation.
   */
  restriction?: CredentialRestriction;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/** One event to record under `key` at `now`, if fewer than `limit` were recorded in the window (now − windowMs, now]. */
export interface RateSlot {
  key: string;
  now: number;
  limit: number;
  windowMs: number;
}

export interface EmployeePageQuery {
  organisationId: string;
  /** The request's filters, as list-filters.ts declares them; a store honours every one (the contract checks). */
  filters: EmployeeFilters;
  /** Keyset position: return records strictly after (updated_at, id). */
  after?: { updatedAt: number; id: string };
  limit: number;
}

export interface LeavePageQuery {
  organisationId: string;
  /** The range the bookings must overlap and the request's other filters, as list-filters.ts declares them. */
  filters: LeaveFilters;
  /** Keyset position: return records strictly after (start_date, id). */
  after?: { startDate: string; id: string };
  limit: number;
}

/** What `Store.listText` is asked: one list's page query, named by the list's endpoint. */
export type ListTextQuery = { list: "employees"; query: EmployeePageQuery } | { list: "leave-requests"; query: LeavePageQuery };

/**
 * The records a list read answers, already written as JSON text: what `listText` answers.
 * A store that keeps its records' text ready (the SQL store) gives a page without building
 * or serializing a record.
 */
export interface ListText {
  /** The records as a JSON array, `[...]`: exactly `JSON.stringify` of the records' v1 JSON. */
  json: string;
  /** How many records the array holds: at most the query's `limit`. */
  count: number;
  /** Whether the list goes on after these records. */
  hasMore: boolean;
  /** The keyset position of the last record, `[sort key, id]`: `[updated_at, id]` of an employee, `[start_date, id]` of a booking; null when there is none. */
  last: [number | string, string] | null;
}

export { DELETED_RESOURCES, type DeletedResource } from "./deleted-resources.ts";

export interface DeletionPageQuery {
  organisationId: string;
  resource: DeletedResource;
  /** Only tombstones with deleted_at ≥ this instant. */
  deletedSince: number;
  /** Keyset position: return tombstones strictly after (deleted_at, id). */
  after?: { deletedAt: number; id: string };
  limit: number;
}

/** A tombstone: a record its list endpoint no longer returns, and when it stopped returning it. */
export interface DeletionRecord {
  id: string;
  deleted_at: number;
}

export interface ImportedPublicHoliday {
  calendar: string;
  date: string;
  name: string;
}

/**
 * The reads of a restricted client (docs/api.md, "Restricted credentials"): each answers
 * what the Store method of the same name answers, of the employees `selection` selects
 * only (lib/restriction.ts, `selects`: department and holiday calendar in its lists, where
 * given) and of their bookings. `runStoreContract` checks each against the unrestricted read.
 */
export interface RestrictedReads {
  /**
   * `Store.listEmployees` of the selected employees. `updated_since` keeps an employee whose
   * `updated_at` is at or after it, as for everyone: an employee who enters the selection
   * does so by a change of department or calendar, which moves their `updated_at`.
   */
  listEmployees(query: EmployeePageQuery, selection: EmployeeSelection): Promise<EmployeeRecord[]>;
  /** `Store.findEmployee`, `null` for an employee the selection leaves out. */
  findEmployee(organisationId: string, id: string, selection: EmployeeSelection): Promise<EmployeeRecord | null>;
  /**
   * `Store.listOverlappingLeave` of the selected employees' bookings. `updated_since` keeps
   * a booking whose own `updated_at` **or whose employee's** is at or after it: the bookings
   * of an employee who entered the selection reach a syncing client with them, however old.
   */
  listOverlappingLeave(query: LeavePageQuery, selection: EmployeeSelection): Promise<LeaveBookingRecord[]>;
  /**
   * Optional: `Store.listText` of the selected employees' records, every field written (a
   * caller that hides some employee fields asks `listEmployees` instead). The text must be
   * exactly `JSON.stringify` of what `listEmployees` or `listOverlappingLeave` above answer
   * for the same query and selection; `runStoreContract` checks it.
   */
  listText?(query: ListTextQuery, selection: EmployeeSelection): Promise<ListText | null>;
  /**
   * The distinct non-null holiday calendars and departments of the selected non-deleted
   * employees employed within [from, to] (as `observedCalendars`), each sorted.
   */
  observedBy(organisationId: string, from: string, to: string, selection: EmployeeSelection): Promise<{ calendars: string[]; departments: string[] }>;
  /**
   * `Store.listDeletions` for a client that reads the selected employees only: a record of
   * `resource` is listed when the client does not read it now (it is not listed, or its
   * employee is outside the selection) and it stopped being listed **with an employee the
   * selection selects** at or after deletedSince (deleted or hidden, or its employee moved
   * department or calendar, or a booking moved to another employee); `deleted_at` is the
   * latest such instant. A record the selection never held while it was listed is never
   * named, so the store must remember, past a deletion, the department and calendar each
   * record had when it stopped being listed.
   */
  listDeletions(query: DeletionPageQuery, selection: EmployeeSelection): Promise<DeletionRecord[]>;
}

/** What the data endpoints and the token endpoint read and write. */
export interface Store {
  /** The installation's secret key for signing cursors: created once, the same on every instance. */
  installationKey(): Promise<Uint8Array>;

  /** A client by id, revoked or not, with its organisation's API switch; `null` when unknown. */
  findClient(clientId: string): Promise<ClientCredentials | null>;

  /**
   * Stores a newly issued token by its digest, in one atomic step with a check that its
   * organisation's API access is on; when it is off by then, stores nothing. Switching
   * access off deletes the organisation's tokens for good (README, "The command line"):
   * a token whose request raced the switch must not outlive it and come back when
   * access is switched on again.
   */
  saveToken(digest: string, grant: AccessTokenGrant): Promise<void>;

  /**
   * The grant behind a token digest, or `null` when the token is unknown, its client is
   * revoked or its organisation's API access is off. Expiry is the caller's to check;
   * a store may forget tokens that expired long ago (they answer `null` then).
   *
   * Switching an organisation's API access off, however the store's owner does it
   * (`AdminStore.setApiEnabled`, a host's own admin code), deletes its tokens in the
   * same transaction: once off, a token answers `null` for good, even after access is
   * switched on again.
   */
  findToken(digest: string): Promise<AccessTokenGrant | null>;

  /**
   * Atomically records one event under `key` if fewer than `limit` were recorded in the
   * window (now − windowMs, now]; otherwise records nothing and says how long until the
   * oldest counted event leaves the window. Concurrent callers never exceed the limit.
   */
  takeRateSlot(key: string, now: number, limit: number, windowMs: number): Promise<RateDecision>;

  /**
   * `takeRateSlot`, then, only when it allows, `saveToken`, as one atomic step: the token
   * endpoint's one write for a request that passed every other check. Refused: records
   * nothing, stores nothing, and answers as `takeRateSlot` would. Allowed: the event is
   * recorded and the token stored as `saveToken` promises (nothing when the organisation's
   * API access is off by then). Concurrent callers never exceed the limit, across every
   * process sharing the store. One transaction where there were two writes.
   */
  takeRateSlotAndSaveToken(slot: RateSlot, digest: string, grant: AccessTokenGrant): Promise<RateDecision>;

  /** Like `takeRateSlot` but only looks: would one more event under `key` be within the limit? */
  checkRateLimit(key: string, now: number, limit: number, windowMs: number): Promise<RateDecision>;

  /**
   * Deletes the events of every key recorded at or before `now − windowMs`, which no
   * window of at most `windowMs` can count again, and says how many went. `takeRateSlot`
   * sweeps only its own key, so without this the events of keys never seen again (an
   * address that called once) would pile up; `leaveapi serve` calls it every minute
   * with the longest window it counts in.
   */
  sweepRateEvents(now: number, windowMs: number): Promise<number>;

  /**
   * Up to `limit` non-deleted employees of the organisation in ascending (updated_at, id)
   * order, after the keyset position when given, that pass every filter given
   * (`EMPLOYEE_FILTER_RULES` in lib/list-filters.ts: exact status, updated_at ≥ updated_since).
   */
  listEmployees(query: EmployeePageQuery): Promise<EmployeeRecord[]>;

  /** One non-deleted employee of the organisation, or `null`. */
  findEmployee(organisationId: string, id: string): Promise<EmployeeRecord | null>;

  /**
   * Up to `limit` annual-leave bookings that overlap [from, to] of the filters (start ≤ to,
   * end ≥ from), in ascending (start_date, id) order after the keyset position: not
   * deleted, of a non-deleted employee, whose leave type has category `annual`, passing
   * every other filter given (`LEAVE_FILTER_RULES` in lib/list-filters.ts).
   */
  listOverlappingLeave(query: LeavePageQuery): Promise<LeaveBookingRecord[]>;

  /**
   * Optional, and the one way a store may answer a page other than as records: the records
   * `listEmployees` or `listOverlappingLeave` would answer for the same query, as JSON
   * text (`ListText`), or `null` when it cannot this time (then the records are asked).
   * The text must be exactly `JSON.stringify` of the records' v1 JSON (lib/records.ts);
   * `runStoreContract` checks it against the record methods.
   */
  listText?(query: ListTextQuery): Promise<ListText | null>;

  /**
   * Up to `limit` tombstones of the organisation's records of `resource`, in ascending
   * (deleted_at, id) order after the keyset position, with deleted_at ≥ deletedSince
   * (docs/api.md, "GET /v1/deletions"). A record has a tombstone exactly while its list
   * endpoint does not return it although it once did: an employee since it was deleted; a
   * booking since it was deleted, its employee was deleted, or its leave type (its own, or
   * the type's category) stopped being `annual`, whichever hid it first. `deleted_at` is
   * the instant of the write that hid it (the `now` an import was given), written in the
   * same transaction; a record that is visible again has none, and a record that was never
   * visible (a booking first imported with a sick-leave type) never had one. A write that
   * changes nothing a client sees changes no tombstone.
   */
  listDeletions(query: DeletionPageQuery): Promise<DeletionRecord[]>;

  /**
   * Deletes every organisation's tombstones with deleted_at < `before` and says how many
   * went; those at or after it stay, and `listDeletions` goes on answering for them as
   * before. `leaveapi serve` calls it hourly with a `before` a day older than the oldest
   * `updated_since` the feed accepts (`deletionSweepBefore` in lib/deletion-pages.ts), so
   * a tombstone the feed may still be asked for is never swept (docs/api.md, "GET
   * /v1/deletions"). A store whose tombstones are derived from rows it must keep (a host's
   * soft-deleted records) may keep them all and answer 0.
   */
  sweepDeletions(before: number): Promise<number>;

  /** The organisation's non-deleted company closure days within [from, to], any order. */
  listClosureDays(organisationId: string, from: string, to: string): Promise<ClosureDayRecord[]>;

  /**
   * Distinct non-null `holiday_calendar` of non-deleted employees whose employment
   * overlaps [from, to] (start null or ≤ to, leaving null or ≥ from), sorted.
   */
  observedCalendars(organisationId: string, from: string, to: string): Promise<string[]>;

  /**
   * Public holidays the organisation imported for these calendars in years
   * fromYear..toYear; a (calendar, year) with any row replaces the shipped set.
   */
  listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number): Promise<ImportedPublicHoliday[]>;

  /**
   * Optional: the reads of restricted credentials. A store without it serves unrestricted
   * credentials only: a token is never issued to a client with a restriction, and
   * `leaveapi credentials create|restrict` refuses to set one (docs/embedding.md).
   */
  restricted?: RestrictedReads;

  /**
   * Optional: the organisation's data version, a value that changes whenever anything its
   * data endpoints answer could (docs/api.md, "Conditional reads"): every import that
   * commits writing to the organisation (records, tombstones, closure days, imported public
   * holidays), an erasure. Equal values must mean equal data; a value is never reused for
   * other data, not even after a restore from a backup (the SQL store writes a fresh random
   * one). It must be read where the pages are read (a replica's), so that it is never
   * newer than the page a request reads after it. A store without it answers no `ETag`
   * and never 304 (docs/embedding.md); `runStoreContract` checks it when present.
   */
  dataVersion?(organisationId: string): Promise<string>;

  /** Resolves when the database answers; throws `StoreUnavailableError` when it does not. */
  ping(): Promise<void>;

  close(): Promise<void>;
}

/**
 * The Store's optional members (`listText`, `restricted`, `dataVersion`, …): what a store
 * may leave out and still serve. A route that cannot answer without one names it
 * (`needs` in server/route-types.ts) and is answered 501 on a store that lacks it.
 */
export type OptionalStoreMember = { [K in keyof Store]-?: undefined extends Store[K] ? K : never }[keyof Store];
