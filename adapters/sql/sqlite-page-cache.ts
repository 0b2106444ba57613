/** SQLite's page cache, set for a while and then put back. */
import { sql, type Kysely } from "kysely";

/**
 * Runs `work` with the connection's page cache (and with it SQLite's sorter, which may
 * take as much again) at `kib` KiB, then puts back the size it had, whatever `work` did.
 */
export async function withPageCache<T>(db: Kysely<never>, kib: number, work: () => Promise<T>): Promise<T> {
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  const before = Number(rows[0]?.cache_size ?? -2000);
  await sql.raw(`pragma cache_size = -${Math.trunc(kib)}`).execute(db);
  try {
    return await work();
  } finally {
    await sql.raw(`pragma cache_size = ${before}`).execute(db);
  }
}
