/**
 * Group commit on a direct connection (compiled-queries.ts's DirectRunner, a bun:sqlite
 * file): the writes asked for during one turn of the event loop run at the next, in one
 * transaction, each in a savepoint of its own. A commit's wait on the WAL costs more than
 * the statements in it; token requests that arrive
 * together (32 connections) now share one, and write the pages they share (the newest
 * leaf of each table) once.
 *
 * Each piece of work still stands alone: it runs synchronously, so no other statement
 * interleaves with it; a piece that throws is rolled back to its savepoint and rejects
 * its own caller only; the group's first statement takes the write lock before any of them
 * reads, so another process on the same file (serve --workers) sees all of a batch or none
 * of it.
 */
import type { DirectRunner } from "./compiled-queries.ts";

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const queues = new WeakMap<DirectRunner, Pending[]>();

/**
 * Runs `work` on `run`'s connection inside the next group transaction; resolves once that
 * has committed. `lock` is the group's first statement, a write that takes the lock of
 * the one file the group writes before any work reads (BEGIN IMMEDIATE would take every
 * attached file's, the data file's included, and so wait for an import).
 */
export function inDirectTransaction<T>(run: DirectRunner, lock: string, work: () => T): Promise<T> {
  let queue = queues.get(run);
  if (!queue) {
    queue = [];
    queues.set(run, queue);
  }
  const pending = queue;
  return new Promise<T>((resolve, reject) => {
    pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
    // The first of a turn schedules the commit; the others of the same turn join it.
    if (pending.length === 1) setImmediate(() => commitBatch(run, lock, pending.splice(0)));
  });
}

function runInSavepoint(run: DirectRunner, work: () => unknown): Outcome {
  run("savepoint direct_work", []);
  try {
    const value = work();
    run("release direct_work", []);
    return { ok: true, value };
  } catch (error) {
    run("rollback to direct_work", []);
    run("release direct_work", []);
    return { ok: false, error };
  }
}

function commitBatch(run: DirectRunner, lock: string, batch: Pending[]): void {
  let outcomes: Outcome[];
  try {
    run("begin", []);
    try {
      run(lock, []);
    } catch (error) {
      run("rollback", []);
      throw error;
    }
  } catch (error) {
    for (const p of batch) p.reject(error);
    return;
  }
  try {
    outcomes = batch.map((p) => runInSavepoint(run, p.work));
    run("commit", []);
  } catch (error) {
    // A failed commit may have rolled back already; the error worth reporting is the first.
    try {
      run("rollback", []);
    } catch {}
    for (const p of batch) p.reject(error);
    return;
  }
  batch.forEach((p, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) p.resolve(outcome.value);
    else p.reject(outcome.error);
  });
}
