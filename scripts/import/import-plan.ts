/**
 * One import, resolved once before anything is read (issue 37, "One import plan"): the
 * file and how it is read (its format, and through the map its encoding, delimiter,
 * sheet, dates, columns, values and defaults), whether it writes or only checks, and
 * what it prunes. The command resolves it from its flags (scripts/commands/import.ts);
 * every stage after takes what it needs from it, and none decides any of it again.
 */
import { NO_MAP, type ImportMap } from "./import-map.ts";
import type { ImportKind } from "./normalise-records.ts";
import type { PruneOptions } from "./prune.ts";
import { formatOf, sourceLabel, type ImportFormat } from "./source.ts";

export interface ImportPlan {
  organisationId: string;
  kind: ImportKind;
  /** A path, or `-` for stdin. */
  file: string;
  /** How problems name the source: the path as given, or `stdin`. */
  label: string;
  format: ImportFormat;
  /** How the file is read: its columns, values, dates, defaults, delimiter, encoding and sheet (`--map` with the flags over it). */
  map: ImportMap;
  /** `dry-run`: the same stages, with a writer whose work is rolled back whatever it found. */
  mode: "write" | "dry-run";
  /** The file is the complete set: live records it leaves out are deleted (`--prune`). */
  prune?: PruneOptions;
  /** Report the map as applied and the first rows as they would be stored. */
  describe: boolean;
  now: number;
}

export interface PlanInput {
  organisationId: string;
  kind: ImportKind;
  file: string;
  /** Overrides the file's extension; stdin is JSONL unless this says otherwise. */
  format?: ImportFormat;
  map?: ImportMap;
  dryRun?: boolean;
  prune?: PruneOptions;
  describe?: boolean;
  now?: number;
}

/** The plan, or the one problem (`FILE: problem`) that stops it before anything is read. */
export type PlanResult = { ok: true; plan: ImportPlan } | { ok: false; problem: string };

export function planImport(input: PlanInput): PlanResult {
  const label = sourceLabel(input.file);
  const format = formatOf(input.file, input.format);
  if (format === null)
    return {
      ok: false,
      problem: `${label}: cannot tell the format from the file name: name it .jsonl, .json, .csv or .xlsx, or pass --format jsonl|json|csv|xlsx`,
    };
  // A workbook is read by seeking in its zip, which a pipe cannot do.
  if (format === "xlsx" && input.file === "-") return { ok: false, problem: `${label}: an .xlsx workbook is read from a file, not from stdin: give its path` };
  return {
    ok: true,
    plan: {
      organisationId: input.organisationId,
      kind: input.kind,
      file: input.file,
      label,
      format,
      map: input.map ?? NO_MAP,
      mode: input.dryRun ? "dry-run" : "write",
      prune: input.prune,
      describe: input.describe === true,
      now: input.now ?? Date.now(),
    },
  };
}

/** Whether the plan's file is read as a table (CSV, a workbook): cells are text, and a header names the columns. */
export function isTabular(plan: Pick<ImportPlan, "format">): boolean {
  return plan.format === "csv" || plan.format === "xlsx";
}
