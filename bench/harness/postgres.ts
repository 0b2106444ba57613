/**
 * A throw-away Postgres database for a benchmark run, on the server LEAVEAPI_BENCH_PG_URL
 * names (default the machine's own: postgres://postgres@127.0.0.1:5432/test).
 */
import pg from "pg";

export const PG_URL = process.env.LEAVEAPI_BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/test";

async function adminQuery(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** A new, empty database and how to drop it. */
export async function createPostgresDatabase(prefix = "leaveapi_bench"): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now()}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => void (await adminQuery(`drop database if exists ${name} with (force)`)) };
}

export async function postgresVersion(): Promise<string> {
  return String((await adminQuery("show server_version")).rows[0].server_version);
}
