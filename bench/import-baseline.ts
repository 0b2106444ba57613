/**
 * Issue 41's import targets (bench/run.ts's rows 6 and 6b): the leave import against a
 * baseline commit's, "≥ 1.5 × today's on the same host in the same run". An absolute
 * rows/s target measured minutes or days apart on a shared machine says more about the
 * machine than the import, so the same generated leave file is imported by the baseline's
 * `leaveapi import` and by ours, alternately (old, new; then new, old; …, so that a drift
 * in the machine's load falls on both alike), each into a fresh database of the store,
 * and the row reports the ratio of their rates per round: median and spread.
 *
 * The baseline is the commit `--baseline REF` names (default BASELINE_REF), unpacked with
 * `git archive` into the run's work folder and run with this checkout's node_modules (a
 * symlink): nothing is registered in the repository. When it cannot be prepared (no git,
 * a shallow clone without that commit), the rows say why and count as neither met nor
 * missed.
 */
import { mkdirSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { generate, type GeneratedFiles } from "./generate.ts";
import { postgresTarget, sqliteTarget, type DatabaseTarget } from "./harness/dataset.ts";
import { createPostgresDatabase } from "./harness/postgres.ts";
import { CLI, runCli } from "./harness/processes.ts";
import type { Target } from "./harness/report.ts";

/**
 * "Today's" import of issue 41: main when round four's work began (99ecee6, whose subject
 * begins "scripts/image.ts takes the last commit's time"), before any of its changes were merged.
 */
export const BASELINE_REF = "99ecee6";
/** The target: ours at least this many times the baseline's rows per second. */
const TIMES_BASELINE = 1.5;

export interface Baseline {
  ref: string;
  commit: string;
  /** The baseline's `leaveapi`, as a command line. */
  cli: string[];
  remove: () => void;
}

async function git(root: string, args: string[]): Promise<string> {
  const proc = Bun.spawn(["git", "-C", root, ...args], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`git ${args.join(" ")}: ${err.trim() || `exit ${code}`}`);
  return out.trim();
}

/** The baseline commit's tree in `work`, runnable; or why it is not. */
export async function prepareBaseline(root: string, ref: string, work: string): Promise<Baseline | { error: string }> {
  const dir = join(work, "baseline");
  const modules = join(dir, "node_modules");
  try {
    const commit = await git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
    mkdirSync(dir, { recursive: true });
    const tar = join(work, "baseline.tar");
    await git(root, ["archive", "--format=tar", "-o", tar, commit]);
    const untar = Bun.spawn(["tar", "-xf", tar, "-C", dir], { stdout: "ignore", stderr: "pipe" });
    if ((await untar.exited) !== 0) throw new Error(`tar: ${(await new Response(untar.stderr).text()).trim()}`);
    rmSync(tar);
    symlinkSync(realpathSync(join(root, "node_modules")), modules);
    return {
      ref,
      commit: commit.slice(0, 10),
      cli: [process.execPath, join(dir, "scripts/cli.ts")],
      // The link first: the work folder's removal must never reach our node_modules through it.
      remove: () => {
        unlinkSync(modules);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    return { error: `baseline ${ref} could not be prepared (${error instanceof Error ? error.message.split("\n")[0] : String(error)})` };
  }
}

/** A fresh, empty database of the store, and how to throw it away. */
type FreshDatabase = () => Promise<{ target: DatabaseTarget; drop: () => Promise<void> }>;

/** One import by `cli` into a fresh database: migrate, an organisation, its employees (untimed), then the leave file (timed). */
async function importOnce(cli: string[], fresh: FreshDatabase, files: GeneratedFiles): Promise<number> {
  const { target, drop } = await fresh();
  try {
    await runCli([...target.args, "migrate"], {}, cli);
    const { id } = JSON.parse((await runCli([...target.args, "org", "create", "--name", "Import", "--json"], {}, cli)).stdout) as { id: string };
    await runCli([...target.args, "import", "--org", id, "--kind", "employees", files.employees], {}, cli);
    return (await runCli([...target.args, "import", "--org", id, "--kind", "leave", files.leave], {}, cli)).seconds;
  } finally {
    await drop();
  }
}

/** An error's first line for the report, without a database URL (it may carry a password). */
const firstLine = (error: Error) => error.message.split("\n")[0]!.replace(/postgres(ql)?:\/\/\S+/g, "postgres://…");

/** The baseline's own import failed (a commit whose command line differs): the rows say so; ours failing is the run's error. */
class BaselineFailed extends Error {}

export interface ImportComparison {
  store: string;
  /** Seconds of each round's import, old (the baseline's) and new (ours). */
  old: number[];
  new: number[];
}

/** `rounds` imports of `files` by each side, alternating which goes first. */
async function compare(store: string, baseline: Baseline, fresh: FreshDatabase, files: GeneratedFiles, rounds: number, log: (t: string) => void) {
  const result: ImportComparison = { store, old: [], new: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["old", "new"] as const) : (["new", "old"] as const);
    for (const side of order) {
      const seconds =
        side === "new"
          ? await importOnce(CLI, fresh, files)
          : await importOnce(baseline.cli, fresh, files).catch((error: Error) => {
              throw new BaselineFailed(`baseline ${baseline.ref} (${baseline.commit}) failed on ${store}: ${firstLine(error)}`);
            });
      result[side].push(seconds);
      log(`import on ${store}, round ${round + 1}, ${side === "old" ? `baseline ${baseline.commit}` : "this checkout"}: ${seconds.toFixed(2)} s`);
    }
  }
  return result;
}

interface ImportBaselineOptions {
  root: string;
  work: string;
  ref: string;
  /** The leave file both sides import, with its employees, and its bookings. */
  files: GeneratedFiles;
  bookings: number;
  rounds: number;
  postgres: boolean;
  log: (text: string) => void;
}

/** Both stores' comparisons, or why there are none. */
async function compareImports(options: ImportBaselineOptions): Promise<{ baseline: string; results: ImportComparison[] } | { error: string }> {
  const baseline = await prepareBaseline(options.root, options.ref, options.work);
  if ("error" in baseline) {
    options.log(baseline.error);
    return baseline;
  }
  try {
    let n = 0;
    const sqlite: FreshDatabase = async () => {
      const file = join(options.work, `import-${n++}.sqlite`);
      const drop = async () => ["", "-wal", "-shm"].forEach((s) => rmSync(file + s, { force: true }));
      return { target: sqliteTarget(file), drop };
    };
    const postgres: FreshDatabase = async () => {
      const database = await createPostgresDatabase("leaveapi_bench_import");
      return { target: postgresTarget(database.url), drop: database.drop };
    };
    const results = [await compare("SQLite", baseline, sqlite, options.files, options.rounds, options.log)];
    if (options.postgres) results.push(await compare("Postgres", baseline, postgres, options.files, options.rounds, options.log));
    return { baseline: `${baseline.ref} (${baseline.commit})`, results };
  } catch (error) {
    if (!(error instanceof BaselineFailed)) throw error;
    options.log(error.message);
    return { error: error.message };
  } finally {
    baseline.remove();
  }
}

function spread(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

/**
 * Row `id`: ours against the baseline on one store, new/old rows per second in each round.
 * `extra` is what else the row reports and must hold (the full-size import's rate and
 * memory), `null` when the store was not run.
 */
function importTarget(
  id: string,
  store: string,
  comparison: { baseline: string; results: ImportComparison[] } | { error: string },
  bookings: number,
  extra: { measured: string; met: boolean } | null,
): Target {
  const measure = `leave import of a ${bookings}-booking JSONL file, ${store}, this checkout against the baseline, each into a fresh database, interleaved`;
  const target = `≥ ${TIMES_BASELINE} × the baseline's rows/s${id === "6" ? "; peak RSS ≤ 200 MB" : ""}`;
  if (extra === null) return { id, measure, target, measured: "skipped (--skip-postgres)", met: null, round: 4 };
  if ("error" in comparison) return { id, measure, target, measured: `${comparison.error}; ${extra.measured}`, met: extra.met ? null : false, round: 4 };
  const c = comparison.results.find((r) => r.store === store);
  if (!c) return { id, measure, target, measured: `skipped; ${extra.measured}`, met: null, round: 4 };
  const ratios = spread(c.new.map((seconds, i) => c.old[i]! / seconds));
  const rate = (seconds: number[]) => Math.round(bookings / spread(seconds).median);
  const fixed = (n: number) => n.toFixed(2);
  return {
    id,
    measure,
    target,
    measured:
      `${fixed(ratios.median)} (${fixed(ratios.min)}–${fixed(ratios.max)}) × baseline ${comparison.baseline}, median of ${c.new.length} interleaved rounds ` +
      `(this checkout ${rate(c.new)} rows/s, baseline ${rate(c.old)} rows/s, medians); ${extra.measured}`,
    met: ratios.median >= TIMES_BASELINE && extra.met,
    round: 4,
  };
}

/** What else a store's row reports and must hold: the run's full-size import, its rate and memory. */
interface FullImport {
  measured: string;
  met: boolean;
}

/**
 * Rows 6 (SQLite) and 6b (Postgres, `postgres` null when skipped). The comparison imports
 * the first of `available` files with `comparison.bookings` bookings, or else a file of
 * that many generated for it (with `employees`), beside the run's.
 */
export async function importTargets(options: {
  root: string;
  work: string;
  ref: string;
  available: { files: GeneratedFiles; bookings: number }[];
  employees: number;
  comparison: { rounds: number; bookings: number };
  log: (text: string) => void;
  sqlite: FullImport;
  postgres: FullImport | null;
}): Promise<Target[]> {
  const { bookings, rounds } = options.comparison;
  const files =
    options.available.find((a) => a.bookings === bookings)?.files ??
    (await generate({ out: join(options.work, "data"), employees: options.employees, bookings, prefix: "import-" }));
  const comparison = await compareImports({ ...options, files, bookings, rounds, postgres: options.postgres !== null });
  return [importTarget("6", "SQLite", comparison, bookings, options.sqlite), importTarget("6b", "Postgres", comparison, bookings, options.postgres)];
}
