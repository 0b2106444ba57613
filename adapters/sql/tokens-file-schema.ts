/**
 * The tables of a SQLite tokens file and the per-connection views over it (sqlite-store.ts,
 * which attaches the file). Where no file can be attached (Deno's SQLite), they live in the
 * data file: migration 0013 makes them there for a new database (migrations.ts).
 */

/**
 * The organisations and clients as their access controls stand (access-controls.ts): the
 * tokens file's organisation_access or client_access row wins over the data file's
 * columns when its version is the higher (the data file keeps the version it copied, so a
 * tokens file older than the data file never wins), and a client revoked in either file
 * is revoked. Temporary, so on this connection only, and found by their plain names in
 * either file (SQLite looks in `temp` first). SQLite resolves a view's columns when it is
 * read: one made before migration 0013 added the version columns reads them once it has.
 */
export const ACCESS_VIEWS = [
  `create temp view if not exists organisations_now as select o.id, o.name,
    case when a.version > coalesce(o.api_version, 0) then a.api_enabled else o.api_enabled end as api_enabled,
    o.created_at, max(coalesce(o.api_version, 0), coalesce(a.version, 0)) as api_version
    from main.organisations as o left join organisation_access as a on a.organisation_id = o.id`,
  `create temp view if not exists api_clients_now as select c.client_id, c.organisation_id, c.name, c.scopes, c.created_at,
    coalesce(min(c.revoked_at, a.revoked_at), c.revoked_at, a.revoked_at) as revoked_at,
    case when a.secret_version > coalesce(c.secret_version, 0) then a.secret_digest else c.secret_digest end as secret_digest,
    case when a.secret_version > coalesce(c.secret_version, 0) then a.previous_secret_digest else c.previous_secret_digest end
      as previous_secret_digest,
    case when a.secret_version > coalesce(c.secret_version, 0) then a.previous_secret_expires_at else c.previous_secret_expires_at end
      as previous_secret_expires_at,
    max(coalesce(c.secret_version, 0), coalesce(a.secret_version, 0)) as secret_version
    from main.api_clients as c left join client_access as a on a.client_id = c.client_id`,
];

/** The tables of the tokens file, as migrations 0001, 0008 and 0009 left them. */
export const TOKEN_TABLES = [
  `create table if not exists tokens.access_tokens ("digest" text primary key, "client_id" text not null,
    "organisation_id" text not null, "scopes" text not null, "expires_at" bigint not null)`,
  `create index if not exists tokens.access_tokens_by_expiry on access_tokens ("expires_at")`,
  `create table if not exists tokens.rate_events ("key" text not null, "at" bigint not null)`,
  `create index if not exists tokens.rate_events_by_key on rate_events ("key", "at")`,
  // When each client last obtained a token (token-queries.ts, `credentials list`); migration 0009 on Postgres.
  `create table if not exists tokens.client_usage ("client_id" text primary key, "last_used_at" bigint not null)`,
  // The access controls as set last (access-controls.ts), which no import of the data file delays.
  `create table if not exists tokens.organisation_access ("organisation_id" text primary key, "api_enabled" integer not null,
    "version" bigint not null, "changed_at" bigint not null)`,
  // The processes writing the data file for long, as they announced themselves (running-writers.ts).
  `create table if not exists tokens.running_writers ("pid" integer not null, "what" text not null, "started_at" bigint not null)`,
  `create table if not exists tokens.client_access ("client_id" text primary key, "revoked_at" bigint, "secret_digest" text,
    "previous_secret_digest" text, "previous_secret_expires_at" bigint, "secret_version" bigint not null, "changed_at" bigint not null)`,
];
