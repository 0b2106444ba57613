/**
 * The schema of an imagined host application, an HR product that already keeps its own
 * tables and now wants to offer leaveapi's read API on them. Nothing here is leaveapi's
 * shape: integer keys, its own column names, ISO-8601 text instants, a soft-delete flag,
 * one-letter absence states, and organisations called companies.
 *
 * Two things were added for the API, as a host would add them:
 * - a `public_id` column (a UUID) on every table whose rows the API shows with an id,
 *   because the API's ids are UUIDs and its keyset pages order ties by id, so the database
 *   must see the id (a UUID computed in JavaScript could not be sorted on in SQL);
 * - the `leaveapi_*` tables for what the API itself writes: clients, tokens, rate events
 *   and the installation's cursor key. They could live anywhere the host likes.
 */
import type { Database } from "bun:sqlite";
// leaveapi's own UUIDv5, for brevity: a host may use any RFC 9562 implementation (such as
// the uuid package's v5); only stability matters.
import { createHash } from "node:crypto";

export const HOST_SCHEMA = `
create table companies (
  company_no  integer primary key,
  public_id   text not null unique,         -- the API's organisation_id
  name        text not null,
  api_access  integer not null default 0,   -- the API switch an admin turns on
  created     text not null                 -- ISO-8601, as toISOString() writes it
);

create table staff (
  staff_no    integer primary key,
  public_id   text not null unique,
  company_no  integer not null references companies,
  given_name  text,
  family_name text,
  known_as    text,
  title       text,
  dept        text,
  calendar    text,                         -- a holiday calendar key such as gb-eng
  hired_on    text,                         -- YYYY-MM-DD
  left_on     text,
  state       text not null,                -- active, terminated, …
  modified    text not null,                -- ISO-8601 with milliseconds, always UTC 'Z'
  removed     integer not null default 0
);
-- The employees page: one company, keyset on (modified, public_id).
create index staff_by_modified on staff (company_no, modified, public_id);

create table absence_kind (
  kind_no     integer primary key,
  public_id   text not null unique,
  company_no  integer not null references companies,
  label       text not null,
  category    text not null,                -- annual, sickness, …
  paid        integer not null,
  modified    text not null
);

create table absences (
  absence_no  integer primary key,
  public_id   text not null unique,
  staff_no    integer not null references staff,
  kind_no     integer not null references absence_kind,
  first_day   text not null,
  last_day    text not null,
  first_half  text check (first_half in ('am', 'pm')),  -- null: the first day is whole
  last_half   text check (last_half in ('am', 'pm')),
  day_count   real not null,
  state       text not null check (state in ('P', 'A', 'R', 'C', 'W')),
  requested   text,
  decided     text,
  withdrawn   text,
  modified    text not null,
  removed     integer not null default 0
);
-- The leave page: keyset on (first_day, public_id).
create index absences_by_start on absences (first_day, public_id);

create table office_closures (
  closure_no       integer primary key,
  company_no       integer not null references companies,
  closed_on        text not null,
  title            text not null,
  scope            text not null check (scope in ('company', 'department', 'site')),
  dept             text,
  site             text,
  counts_as_leave  integer not null,
  modified         text not null,
  removed          integer not null default 0
);
create index office_closures_by_day on office_closures (company_no, closed_on);

create table bank_holidays (
  company_no  integer not null references companies,
  calendar    text not null,
  day         text not null,
  name        text not null,
  primary key (company_no, calendar, day)
);

create table leaveapi_clients (
  client_id      text primary key,
  company_no     integer not null references companies,
  label          text,
  secret_digest  text not null,
  scopes         text not null,             -- space-separated
  created_ms     integer not null,
  revoked_ms     integer
);

create table leaveapi_tokens (
  digest      text primary key,
  client_id   text not null references leaveapi_clients,
  company_no  integer not null references companies,
  scopes      text not null,
  expires_ms  integer not null
);

-- Switching API access off revokes the company's live tokens for good (switching it on
-- again brings none back). A trigger does it in the same transaction as the switch,
-- however the host's own code flips it.
create trigger leaveapi_tokens_end_with_access after update of api_access on companies
when new.api_access = 0
begin
  delete from leaveapi_tokens where company_no = new.company_no;
end;

create table leaveapi_rate_events (
  key    text not null,
  at_ms  integer not null
);
create index leaveapi_rate_events_by_key on leaveapi_rate_events (key, at_ms);

create table leaveapi_settings (
  name   text primary key,
  value  blob not null
);
`;

/** Creates the host's tables in an empty database. */
export function createHostSchema(db: Database): void {
  db.exec(HOST_SCHEMA);
}

/** The host's own namespace for the UUIDs it derives; any fixed UUID, chosen once. */
export const HOST_ID_NAMESPACE = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";

/**
 * A stable UUID for a row known by its integer key: UUIDv5 of table and key. A host that
 * adds `public_id` to tables that already hold rows backfills it with this, and fills it
 * the same way on insert; the same row always gets the same id, on every machine.
 */
export function publicIdFor(table: "companies" | "staff" | "absence_kind" | "absences", key: number): string {
  return uuidV5(HOST_ID_NAMESPACE, `${table}:${key}`);
}

/** RFC 9562 UUIDv5 (SHA-1 of namespace and name), with node:crypto, which Bun, Node and Deno all have. */
function uuidV5(namespace: string, name: string): string {
  const hash = createHash("sha1")
    .update(Buffer.from(namespace.replaceAll("-", ""), "hex"))
    .update(name, "utf8")
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
