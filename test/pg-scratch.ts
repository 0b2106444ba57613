/**
 * Scratch Postgres databases for the tests that run `leaveapi` processes against the
 * machine's real server: each test file makes its own databases (`create database`) and
 * drops them `with (force)` when it ends. A server that cannot be reached fails the file
 * loudly; these tests never skip.
 */
import { afterAll } from "bun:test";
import pg from "pg";
import { PG_ADMIN_URL } from "./test-stores.ts";

/** `url` with its database name replaced. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs one statement on `url` with a connection of its own and returns the rows. */
export async function queryDatabase<R extends Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`These tests need a Postgres server at ${url} (set LEAVEAPI_TEST_PG_URL): ${(error as Error).message}`);
  }
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

let counter = 0;

/**
 * Registers an afterAll that drops every database the returned function creates, and
 * returns that function: each call creates an empty database and resolves to its URL.
 * `beforeDrop` (stopping the processes that use them) runs first; the databases are
 * dropped even when it fails, since a failing afterAll skips the hooks after it.
 */
export function scratchDatabases(label: string, beforeDrop?: () => Promise<void>): () => Promise<string> {
  const created: string[] = [];
  afterAll(async () => {
    try {
      await beforeDrop?.();
    } finally {
      for (const name of created.splice(0)) await queryDatabase(PG_ADMIN_URL, `drop database if exists ${name} with (force)`);
    }
  }, 30_000);
  const safeLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 16);
  return async () => {
    const name = `leaveapi_${safeLabel}_${process.pid}_${++counter}_${Date.now().toString(36)}`;
    await queryDatabase(PG_ADMIN_URL, `create database ${name}`);
    created.push(name);
    return databaseUrl(PG_ADMIN_URL, name);
  };
}

/**
 * Polls `probe` until it returns a value other than `undefined` or `deadlineMs` passes
 * (then throws, naming `what` and the last value seen). A deadline, not a timed sleep:
 * the short pause between attempts only keeps the poll from spinning.
 */
export async function pollUntil<T>(
  what: string,
  deadlineMs: number,
  probe: () => Promise<T | undefined>,
  describe?: () => string,
): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, elapsedMs: Date.now() - started };
    if (Date.now() - started > deadlineMs) throw new Error(`${what}: not within ${deadlineMs} ms${describe ? ` (${describe()})` : ""}`);
    await Bun.sleep(25);
  }
}
