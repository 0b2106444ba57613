/**
 * What a command that writes the SQLite data file says while another process holds its
 * write lock (issue 35): whom it waits for, from the writers announced in the tokens file
 * (adapters/sql/running-writers.ts), rather than nothing for minutes.
 */
import { announceWriter, dataFileWriters } from "../adapters/sql/running-writers.ts";
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

/** One line on stderr when the data file's write lock is held now, naming whom `doing` waits for; nothing otherwise. */
export async function sayWhatItWaitsFor(store: SqlAdminStore, io: Pick<Io, "err">, doing: string): Promise<void> {
  const { held, writers } = await dataFileWriters(sqlContextOf(store));
  if (!held) return;
  const others = writers.filter((w) => w.pid !== process.pid && running(w.pid));
  const who =
    others.length > 0
      ? others.map((w) => `${w.what} (process ${w.pid}, started ${new Date(w.started_at).toISOString().slice(0, 19)}Z)`).join(" and ")
      : "another process writing the database (an import or a command)";
  io.err(`leaveapi: waiting for ${who} to finish before ${doing}…`);
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
