/**
 * `leaveapi check`: is the database sound? On SQLite, `PRAGMA integrity_check` and
 * `PRAGMA foreign_key_check`; on both stores, that the schema is at the latest migration
 * this binary carries. It never creates, migrates or repairs anything: a check that
 * changed what it checks would prove nothing.
 */
import type { Database } from "bun:sqlite";
import { Kysely, Migrator, PostgresDialect } from "kysely";
import { BunSqliteDialect } from "kysely-bun-sqlite";
import { lstatSync } from "node:fs";
import pg from "pg";
import { tokensFileOf } from "../../adapters/sql/sqlite-store.ts";
import { POSTGRES, SQLITE, type SqlCapabilities } from "../../adapters/sql/capabilities.ts";
import { schemaMigrations } from "../../adapters/sql/migrations.ts";
import type { Tables } from "../../adapters/sql/tables.ts";
import { CommandError, parseCommandArgs, report, type Command } from "../cli-kit.ts";
import { locateStore } from "../open-store.ts";
import { openExistingSqlite, sqliteProblems } from "../sqlite-integrity.ts";

const USAGE = "leaveapi check";

/** Names of the migrations this binary carries that the database has not run. Reads only. */
async function pendingMigrations(db: Kysely<Tables>, caps: SqlCapabilities): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => schemaMigrations(caps) } });
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name);
}

function migrationProblems(pending: string[]): string[] {
  if (pending.length === 0) return [];
  return [`schema: ${pending.length} migration(s) not yet applied (${pending.join(", ")}); run 'leaveapi migrate' or restart the server`];
}

/**
 * The tokens file beside the data (adapters/sql/sqlite-store.ts): a regular file, not a
 * link to another; writable (token issuance writes it); and sound. None is no problem: the
 * next command or server start creates it empty, and clients ask for new tokens.
 */
export function tokensFileProblems(file: string): string[] {
  const tokens = tokensFileOf(file);
  const stat = lstatSync(tokens, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isFile()) return [`tokens file: ${tokens} is not a regular file (a link or a directory); tokens cannot be issued`];
  if ((stat.mode & 0o222) === 0) return [`tokens file: ${tokens} is read-only; tokens cannot be issued (give it the data file's mode)`];
  let database: Database | undefined;
  try {
    database = openExistingSqlite(tokens);
    return sqliteProblems(database).map((problem) => `tokens file: ${problem}`);
  } catch (error) {
    return [`tokens file: ${(error as Error).message}`];
  } finally {
    database?.close();
  }
}

async function checkSqlite(file: string): Promise<string[]> {
  let database: Database;
  try {
    database = openExistingSqlite(file);
  } catch (error) {
    return [(error as Error).message];
  }
  const kysely = new Kysely<Tables>({ dialect: new BunSqliteDialect({ database }) });
  try {
    const problems = [...sqliteProblems(database), ...tokensFileProblems(file)];
    if (problems.length > 0) return problems;
    return migrationProblems(await pendingMigrations(kysely, SQLITE));
  } catch (error) {
    return [`the database cannot be read: ${(error as Error).message}`];
  } finally {
    await kysely.destroy();
  }
}

async function checkPostgres(connectionString: string): Promise<string[]> {
  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 5000 });
  pool.on("error", () => {});
  const kysely = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  try {
    return migrationProblems(await pendingMigrations(kysely, POSTGRES));
  } catch (error) {
    return [`cannot query the database: ${(error as Error).message}`];
  } finally {
    await kysely.destroy();
  }
}

export const checkCommand: Command = {
  name: "check",
  usage: USAGE,
  help: `usage: ${USAGE}

Checks the database the global options name, without changing it; safe while the
server runs.

  SQLite     PRAGMA integrity_check, PRAGMA foreign_key_check, and that the schema is
             at the latest migration; and of the tokens file beside it (FILE-tokens),
             that it is a regular file, writable, and passes PRAGMA integrity_check
  Postgres   that the database answers and that the schema is at the latest migration

Prints "ok" and exits 0 when all is well; otherwise lists each problem on stderr and
exits 1. With --json: {"database", "ok", "problems": [...]} on stdout either way.
A damaged SQLite file is best replaced by the latest good backup ('leaveapi backup').`,
  async run(ctx) {
    parseCommandArgs(ctx.args, {}, USAGE);
    const location = locateStore(ctx.global, ctx.io.env);
    if (location.notice) ctx.io.err(location.notice);
    const problems = location.kind === "sqlite" ? await checkSqlite(location.label) : await checkPostgres(postgresUrl(ctx.global.databaseUrl, ctx.io.env));
    const ok = problems.length === 0;
    if (ctx.global.json) report(ctx, { database: location.label, ok, problems }, () => "");
    if (ok) {
      if (!ctx.global.json) ctx.io.out(`ok: ${location.label} (${location.kind === "sqlite" ? "integrity, foreign keys, schema" : "connection, schema"})`);
      return;
    }
    if (!ctx.global.json) for (const problem of problems) ctx.io.err(problem);
    throw new CommandError(`${problems.length === 1 ? "1 problem" : `${problems.length} problems`} in ${location.kind} database ${location.label}`);
  },
};

/** The Postgres URL locateStore chose (it keeps only a password-free label). */
function postgresUrl(flag: string | undefined, env: Record<string, string | undefined>): string {
  const url = flag ?? env.DATABASE_URL;
  if (!url) throw new CommandError("no Postgres URL given");
  return url;
}
