/**
 * What an import answers (the command prints it: scripts/commands/import.ts): the counts
 * and what a dry run shows, or every problem found, in words, with the codes the
 * command's closing hint is chosen by.
 */
import type { RecordLabel, WriteCounts } from "../../lib/admin-store.ts";
import type { PublicHolidayReplacement } from "./import-context.ts";
import type { ProblemCode } from "./problem-codes.ts";
import type { ProblemReport } from "./problem-report.ts";
import type { MappingReport } from "./shape-records.ts";

/**
 * On success, `dryRun` is there when nothing was written on purpose, and `publicHolidays`
 * when the file set any public-holiday calendar-year. On failure `errors` holds every
 * problem, one line each; `invalidRows` counts the rows with at least one (file-level and
 * header problems aside).
 */
export type ImportOutcome =
  | {
      ok: true;
      rows: number;
      counts: WriteCounts;
      dryRun?: true;
      publicHolidays?: PublicHolidayReplacement[];
      /** With `--prune`: the live records the file left out, deleted. */
      pruned?: number;
      /** With `--prune`: the first PRUNE_LISTED of them, as a person recognises them. */
      prunedList?: RecordLabel[];
      /** The stored fields the file did not carry, kept as they were on the records it updated (DECISIONS §11, "Absent is not empty"). */
      kept?: string[];
      /** With `describe`: the map as applied to the header, and the first rows as they would be stored. */
      mapping?: MappingReport | null;
      sample?: object[];
    }
  /** `problemCount`, every problem found, is there when `errors` could not list them all (problem-list.ts). */
  | {
      ok: false;
      errors: string[];
      invalidRows: number;
      /** Problems of the header (columns, not rows): counted apart in the summary. */
      headerProblems?: number;
      /** The kinds of problem found (problem-codes.ts; `file` for a file that cannot be read), which the command's hints are chosen by. */
      codes?: (ProblemCode | "file")[];
      problemCount?: number;
    };

export type Succeeded = Extract<ImportOutcome, { ok: true }>;

/** The file cannot be read at all (before any record): its one problem. */
export function fileFailure(text: string): ImportOutcome {
  return { ok: false, errors: [text], invalidRows: 0 };
}

/**
 * Every problem `report` holds, then `stop` (`FILE: problem`): what stopped reading (or
 * the prune) comes after every row error found before it.
 */
export function failure(label: string, report: ProblemReport, stop: string | null): Extract<ImportOutcome, { ok: false }> {
  const errors = report.list.listed();
  const unlisted = report.count - errors.length;
  if (unlisted > 0)
    errors.push(
      `${label}: ${unlisted} more ${unlisted === 1 ? "problem" : "problems"} not listed (${report.count} in all, in ${report.list.invalidRows} rows)`,
    );
  if (stop !== null) errors.push(stop);
  const problemCount = report.count + (stop === null ? 0 : 1);
  return {
    ok: false,
    errors,
    invalidRows: report.list.invalidRows,
    headerProblems: report.headerProblems,
    codes: [...report.codes, ...(stop === null ? [] : ["file" as const])],
    ...(unlisted > 0 ? { problemCount } : {}),
  };
}

/** What a successful import answers; empty extras are left out. */
export function success(outcome: Succeeded): ImportOutcome {
  const { rows, counts, dryRun, publicHolidays = [], pruned, prunedList, kept = [], mapping, sample } = outcome;
  return {
    ok: true,
    rows,
    counts,
    ...(dryRun ? { dryRun: true as const } : {}),
    ...(publicHolidays.length > 0 ? { publicHolidays } : {}),
    ...(pruned !== undefined ? { pruned, prunedList: prunedList ?? [] } : {}),
    ...(kept.length > 0 ? { kept } : {}),
    ...(mapping !== undefined ? { mapping, sample } : {}),
  };
}
