/**
 * What the admin commands and the importer need from persistence, beside `Store`.
 * Kept apart so that a host application embedding only the read API implements `Store`
 * alone. Every store leaveapi ships implements it (SQLite, Postgres, memory), and
 * `runAdminStoreContract` (`leaveapi/testing`) proves each of them the same way.
 */
import type { ApiClient, ImportedPublicHoliday, Organisation } from "./store.ts";
import type { CredentialRestriction } from "./restriction.ts";
import type { ClosureDayRecord, EmployeeRecord, LeaveBookingRecord, LeaveTypeRecord } from "./records.ts";

/** An employee as imported: the API record without `updated_at`, plus the source system's id. */
export type EmployeeInput = Omit<EmployeeRecord, "updated_at"> & { external_id: string | null };

/** A booking as imported: its leave type by id (written separately), `days` resolved. */
export type LeaveBookingInput = Omit<LeaveBookingRecord, "updated_at" | "leave_type"> & {
  external_id: string | null;
  leave_type_id: string;
};

export type ClosureDayInput = ClosureDayRecord & { id: string };

export interface WriteCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

/** An employee's stored fields as an import reads them back: the API record without `updated_at`. */
export type StoredEmployeeFields = Omit<EmployeeRecord, "updated_at">;

/** What an import keeps of a stored booking when its file does not carry them: the half days and the instants. */
export type StoredBookingFields = Pick<
  LeaveBookingInput,
  "start_half_day" | "start_half_period" | "end_half_day" | "end_half_period" | "requested_at" | "reviewed_at" | "cancelled_at"
>;

/** A record as a person recognises it: `name` is an employee's name, or a booking's employee and dates (`Ada Lovelace, 2026-03-02 to 2026-03-06`). */
export interface RecordLabel {
  id: string;
  /** The source system's id, where the store keeps it (the memory store does not). */
  external_id: string | null;
  name: string;
}

/** The facts about an employee that decide how many days a booking takes. */
export interface EmployeeCalendarFacts {
  department: string | null;
  holiday_calendar: string | null;
}

/**
 * Writes of one import, all inside one transaction. Upserts write only what changed (what a
 * client can see of a record, lib/imported-content.ts), so an identical re-import moves no
 * `updated_at` (docs/api.md, "Incremental sync"); later rows with the same id win and count
 * once. A deleted employee or booking keeps nothing but its tombstone (docs/api.md, "Personal data"), so
 * one written again is created afresh; a deleted closure day comes back, counted as
 * updated. Each returns
 * counts. A booking whose employee (deleted or not) or leave type does not exist, or a
 * record of an unknown organisation, fails the import.
 */
export interface ImportWriter {
  upsertEmployees(organisationId: string, rows: EmployeeInput[], now: number): Promise<WriteCounts>;
  /**
   * Deletes these employees and their bookings outright, tombstones written for what was
   * listed (docs/api.md, "Personal data"); unknown ids are left alone.
   */
  deleteEmployees(organisationId: string, ids: string[], now: number): Promise<WriteCounts>;
  /**
   * The stored fields of the non-deleted employees among `ids`, as seen inside this
   * transaction: what an import keeps of a field its file does not carry (docs/cli.md,
   * "A column the file does not have keeps the stored value").
   */
  storedEmployees(organisationId: string, ids: string[]): Promise<Map<string, StoredEmployeeFields>>;
  /** The fields an import may keep of the live bookings among `ids` (docs/cli.md, "Absent is not empty"). */
  storedBookings(organisationId: string, ids: string[]): Promise<Map<string, StoredBookingFields>>;
  /**
   * The records among `ids` as `import --prune --dry-run` names those it would delete, in
   * the order of `ids`: an employee by external id and name, a booking by its external id,
   * its employee's name and its dates. Unknown ids are left out.
   */
  describeRecords(organisationId: string, record: "employee" | "booking", ids: string[]): Promise<RecordLabel[]>;
  /** Non-deleted employees among `ids`, as seen inside this transaction. */
  employeeFacts(organisationId: string, ids: string[]): Promise<Map<string, EmployeeCalendarFacts>>;
  /** Upserts leave types; a change bumps `updated_at` of every booking of that type. */
  upsertLeaveTypes(organisationId: string, types: LeaveTypeRecord[], now: number): Promise<WriteCounts>;
  upsertLeaveBookings(organisationId: string, rows: LeaveBookingInput[], now: number): Promise<WriteCounts>;
  deleteLeaveBookings(organisationId: string, ids: string[], now: number): Promise<WriteCounts>;
  upsertClosureDays(organisationId: string, rows: ClosureDayInput[], now: number): Promise<WriteCounts>;
  deleteClosureDays(organisationId: string, ids: string[], now: number): Promise<WriteCounts>;
  /** Replaces the organisation's imported public holidays for one calendar and year (empty = back to shipped). */
  replacePublicHolidays(organisationId: string, calendar: string, year: number, rows: { date: string; name: string }[]): Promise<void>;
  listClosureDays(organisationId: string, from: string, to: string): Promise<ClosureDayRecord[]>;
  listImportedPublicHolidays(organisationId: string, calendars: readonly string[], fromYear: number, toYear: number): Promise<ImportedPublicHoliday[]>;
  /** How many live (not deleted) records `scope` holds, as seen inside this transaction: what `--prune` measures against. */
  countLive(organisationId: string, scope: PruneScope): Promise<number>;
  /** The ids of `scope`'s live records after `after` (null: from the first), in ascending id order, at most `limit`. */
  liveIds(organisationId: string, scope: PruneScope, after: string | null, limit: number): Promise<string[]>;
}

/** The records `import --prune` takes the file to be the complete set of: the employees, or the bookings starting within from..to (inclusive). */
export type PruneScope = { record: "employee" } | { record: "booking"; from: string; to: string };

export interface NewClient extends ApiClient {
  secret_digest: string;
}

/** What `scrubDeleted` managed: `complete` is false when a checkpoint had to be left owed (other readers held the log). */
export interface ScrubOutcome {
  complete: boolean;
}

/** An employee as `leaveapi erase` names them before erasing: enough for the admin to know it is the right person. */
export interface ErasureTarget {
  id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  /** How many bookings they have. */
  bookings: number;
}

/** What an organisation holds, as `org delete` counts it before and after deleting. */
export interface OrganisationContents {
  employees: number;
  leave_bookings: number;
  leave_types: number;
  closure_days: number;
  public_holidays: number;
  clients: number;
  tokens: number;
}

export interface AdminStore {
  /** Creates or upgrades the schema; safe to call on every start and from several processes. */
  migrate(): Promise<void>;
  /** Throws when the id is taken; the organisation stored first stays. */
  createOrganisation(org: Organisation): Promise<void>;
  /** Every organisation in ascending (created_at, id) order. */
  listOrganisations(): Promise<Organisation[]>;
  findOrganisation(id: string): Promise<Organisation | null>;
  /**
   * Switches API access; `false` when the organisation does not exist. Switching it off
   * deletes the organisation's tokens in the same transaction, so they stop working for
   * good: switching it on again brings none back, and clients ask for new ones.
   */
  setApiEnabled(id: string, enabled: boolean): Promise<boolean>;
  /** Renames the organisation and answers it as it is now; `null` when it does not exist. */
  renameOrganisation(id: string, name: string): Promise<Organisation | null>;
  /** How many records of each kind the organisation holds (deleted ones included); `null` when it does not exist. */
  countOrganisationContents(id: string): Promise<OrganisationContents | null>;
  /**
   * The organisation's employee with one of `ids`, or whose stored external id is
   * `externalId`; `null` when there is none (docs/api.md, "Personal data"; `leaveapi erase`).
   */
  findEmployeeForErasure(organisationId: string, key: { ids: string[]; externalId: string | null }): Promise<ErasureTarget | null>;
  /**
   * Clears what deleted records may have left in the database's files (docs/api.md, "Personal data"):
   * on SQLite a checkpoint that truncates the write-ahead log (owed for later when readers
   * hold it: `wait: false` never waits for them, `onlyIfOwed` runs only when one is owed);
   * on Postgres a vacuum of the record tables. An import that deleted anything, and
   * `deleteOrganisation`, run it themselves.
   */
  scrubDeleted(options?: { wait?: boolean; onlyIfOwed?: boolean }): Promise<ScrubOutcome>;
  /**
   * Deletes the organisation and everything it holds (records, deleted ones included, its
   * clients and their tokens) in one transaction, and says how much went; `null` when it
   * does not exist. Its tokens stop working at once.
   */
  deleteOrganisation(id: string): Promise<OrganisationContents | null>;
  /**
   * Throws when the client id is taken or its organisation does not exist. A client's
   * `restriction` is stored with it, in the same transaction; a store without
   * `restrictClient` throws for a client that has one rather than drop it.
   */
  createClient(client: NewClient): Promise<void>;
  /**
   * Optional, with `Store.restricted`: sets the client's restriction (`null` removes it)
   * and answers the client as it is now; `null` when the client is unknown. A revoked
   * client is answered as it is. Live tokens follow it at once (`findToken` answers the
   * restriction as it is now).
   */
  restrictClient?(clientId: string, restriction: CredentialRestriction | null): Promise<ApiClient | null>;
  /** The organisation's clients, revoked ones included, in ascending (created_at, client_id) order, without secret digests. */
  listClients(organisationId: string): Promise<ApiClient[]>;
  /** Every organisation's clients, revoked ones included, in ascending (created_at, client_id) order, without secret digests. */
  listAllClients(): Promise<ApiClient[]>;
  /**
   * Gives a client a new secret (by its digest) and keeps the digest it had as
   * `previous_secret` until `previousExpiresAt`, so that `findClient` answers both and the
   * token endpoint accepts the old secret until then; `null` drops the old secret at
   * once, as does a second rotation (only the latest replaced one is kept). Tokens already issued are left
   * alone. `null` when the client is unknown; a revoked client is not rotated (answered
   * as it is).
   */
  rotateClientSecret(clientId: string, secretDigest: string, previousExpiresAt: number | null): Promise<ApiClient | null>;
  /**
   * Revokes a client and with it every token it holds; `null` when unknown. Idempotent:
   * revoking again keeps the first `revoked_at`.
   */
  revokeClient(clientId: string, now: number): Promise<ApiClient | null>;
  /**
   * Runs `work` in one transaction: commits when it resolves (unless `options.keep` says
   * not to: then rolls back and resolves), rolls everything back and rejects with the
   * error when it throws. Imports running at the same time each land whole.
   * What it writes is shown with the `now` it was written with when it commits within
   * PUBLISH_AS_STAMPED_MS of its start; a longer one is shown as of its commit (docs/api.md,
   * "Incremental sync": visible at most 2 s after its `updated_at`).
   */
  runImport<T>(work: (writer: ImportWriter) => Promise<T>, options?: ImportRunOptions<T>): Promise<T>;
}

/** How `runImport` runs: for real (the default) or as a dry run, what it says while it waits, and whether it keeps what the work wrote. */
export interface ImportRunOptions<T = unknown> {
  /**
   * Asked with what `work` resolved with: false rolls everything back (nothing is kept, as
   * when `work` throws) and `runImport` resolves with that value all the same. An import
   * that found problems in its file ends so, without an exception to unwind it.
   */
  keep?: (result: T) => boolean;
  /**
   * Check and count only: `work` runs as it would, against a private copy of what it
   * touches, and nothing is kept whether it resolves or throws. A dry run takes no lock
   * another writer waits for (on SQLite, not the data file's write lock) and waits for none.
   */
  dryRun?: boolean;
  /**
   * Told once, in words for the person running the import, when it has to wait for another
   * writer before it can write (another import, an erasure): it then waits for as long as
   * that takes, never failing for the wait alone.
   */
  onWait?: (reason: string) => void;
}

/**
 * An import that commits within this long after it started shows the instants it was
 * given; a longer one shows its changes as of its commit, so that a client that synced
 * while it ran misses none of them (docs/api.md, "Incremental sync"). Every store keeps
 * this rule: adapters/sql/published-stamps.ts, adapters/memory/memory-tables.ts.
 */
export const PUBLISH_AS_STAMPED_MS = 1000;
