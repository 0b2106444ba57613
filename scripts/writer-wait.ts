/**
 * What a command that writes the SQLite data file says while another process holds its
 * write lock (issue 35): whom it waits for, from the writers announced in the tokens file
 * (adapters/sql/running-writers.ts), rather than nothing for minutes.
 */
import { announcedWriters, announceWriter } from "../adapters/sql/running-writers.ts";
import { sqlContextOf, type SqlAdminStore } from "../adapters/sql/sql-admin-store.ts";
import type { Io } from "./cli-kit.ts";

/** Whether a process of this id runs (one of another user's answers EPERM, and runs). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/**
 * The `onWait` of an import or erasure (AdminStore.runImport): when the store finds that
 * it must wait, one line on stderr naming whom for, from the writers announced in the
 * tokens file (SQLite) when this command started, else the store's own reason (Postgres:
 * another import of the organisation). They are read before the work, not when the wait
 * begins: a waiting import holds the store's one connection, so a read then would queue
 * behind the wait it should describe.
 */
export async function sayWaiting(store: SqlAdminStore, io: Pick<Io, "err">, doing: string): Promise<(reason: string) => void> {
  const others = (await announcedWriters(sqlContextOf(store))).filter((w) => w.pid !== process.pid && running(w.pid));
  const who = others.map((w) => `${w.what} (process ${w.pid}, started ${new Date(w.started_at).toISOString().slice(0, 19)}Z)`).join(" and ");
  return (reason) => io.err(who === "" ? `leaveapi: ${reason}` : `leaveapi: waiting for ${who} to finish before ${doing}…`);
}

/** Runs `work` announced as `what`, so that a command waiting for the data file can name it. */
export async function announced<T>(store: SqlAdminStore, what: string, work: () => Promise<T>): Promise<T> {
  const withdraw = await announceWriter(sqlContextOf(store), process.pid, what);
  try {
    return await work();
  } finally {
    await withdraw();
  }
}
