/**
 * Metrics across `--workers`: whichever process a scrape reaches answers with the sum of
 * every process's counters (prom-client's AggregatorRegistry). The parent asks each worker
 * for its snapshot; a worker asks the parent for all of them. A worker that does not
 * answer within the deadline is left out of that one scrape rather than stalling it.
 */
import type { IpcPeer } from "./ipc.ts";
import type { Metrics, MetricsSnapshot } from "./metrics.ts";
import type { WorkerPool } from "./workers.ts";

const ASK_TIMEOUT_MS = 2000;
export const SNAPSHOT = "metrics-snapshot";
export const GATHER = "metrics-gather";

/** In the parent: every process's snapshot, its own first. */
export async function gatherFromWorkers(metrics: Metrics, pool: WorkerPool): Promise<MetricsSnapshot[]> {
  const [own, theirs] = await Promise.all([metrics.snapshot(), pool.askAll(SNAPSHOT, ASK_TIMEOUT_MS)]);
  return [own, ...(theirs as MetricsSnapshot[])];
}

/** In a worker: everyone's snapshots by way of the parent, or its own if the parent does not answer. */
export async function gatherFromParent(metrics: Metrics, parent: IpcPeer): Promise<MetricsSnapshot[]> {
  const all = (await parent.ask(GATHER, ASK_TIMEOUT_MS * 2)) as MetricsSnapshot[] | undefined;
  return all ?? [await metrics.snapshot()];
}
