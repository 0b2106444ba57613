/**
 * What one run of bench/run.ts is (its options, its sizes and durations, full or
 * `--quick`) and what its steps share: the work folder, the runs the report lists, the log.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { DatasetSize } from "./harness/dataset.ts";
import type { NamedRun } from "./harness/report.ts";
import { BASELINE_REF } from "./import-baseline.ts";
import { wrkAvailable, type WrkRequest } from "./harness/wrk.ts";

const USAGE = `usage: bun bench/run.ts [--quick] [--skip-postgres] [--out FILE] [--baseline REF]

  --quick          small data, about a minute: proves every step, writes nothing into the tree
  --skip-postgres  leave out the Postgres rows (8, 6b, 11 Postgres)
  --out FILE       write the report there (default: bench/RESULTS.md for a full run)
  --baseline REF   the commit whose leave import rows 6 and 6b compare with (default ${BASELINE_REF})

A full run takes about 20 minutes on 2 cores and needs wrk and, unless skipped, Postgres.`;

function parsedArgs() {
  try {
    return parseArgs({
      options: {
        quick: { type: "boolean", default: false },
        "skip-postgres": { type: "boolean", default: false },
        out: { type: "string" },
        /** The commit whose `leaveapi import` rows 6 and 6b compare ours with (bench/import-baseline.ts). */
        baseline: { type: "string", default: BASELINE_REF },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
}

export const { values } = parsedArgs();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

export const quick = values.quick!;
export const ROOT = join(import.meta.dir, "..");

export const SIZE: DatasetSize = quick
  ? { employees: 1_000, bookings: 20_000, smallEmployees: 100, smallBookings: 2_000, tokenClients: 100 }
  : { employees: 10_000, bookings: 1_000_000, smallEmployees: 100, smallBookings: 10_000, tokenClients: 1_000 };
/**
 * Rows 6 and 6b's interleaved imports (ours and the baseline's, each round both, on each
 * store): the quick run imports its small organisation's file once each (a start-up more
 * than an import: it proves the steps, not the figure); the full run a file of 200,000
 * bookings, 3 rounds (the million, 3 rounds of 2 imports on 2 stores, would add 10 minutes).
 */
export const IMPORT_COMPARISON = quick ? { rounds: 1, bookings: SIZE.smallBookings } : { rounds: 3, bookings: 200_000 };
export const SECONDS = quick ? 1 : 10;
/** Interleaved measurement: this many rounds of each contender, each this long. */
export const ROUNDS = quick ? 2 : 5;
export const ROUND_SECONDS = quick ? 1 : 6;
/** Years asked of a fresh server, each once, from 2013 (every generated employee has started by then), for target 9. */
export const HOLIDAY_YEARS = quick ? 6 : 40;
export const MIXED_SECONDS = quick ? 2 : 60;
export const CONNECTIONS = 32;
export const WINDOWS = quick ? 3 : 12;
export const EMPLOYEE_POSITIONS = quick ? 100 : 1_000;
export const HANDLER_REQUESTS = quick ? 200 : 3_000;
/** Each token client asks this many times in the run: under the 10-per-minute limit. */
export const TOKENS_PER_CLIENT = 9;
/** A fixed-rate run's per-connection pause: connections = rate × this / 1000. */
export const FIXED_RATE_DELAY_MS = 10;
export const FIRST_BOOKING_DAY = "2022-01-01";
export const LAST_BOOKING_DAY = "2026-12-31";

if (!wrkAvailable()) {
  console.error("bench: wrk is not installed; on Debian or Ubuntu: sudo apt-get install wrk");
  process.exit(2);
}

export const work = mkdtempSync(join(tmpdir(), "leaveapi-bench-"));
export const runs: NamedRun[] = [];
export const log = (text: string) => console.error(`bench: ${text}`);
export const bearer = (token: string) => `Bearer ${token}`;
export const get = (paths: string[], token: string): WrkRequest[] => paths.map((path) => ({ path, authorization: bearer(token) }));
