/**
 * Stage 3, map: another system's record made ours by the plan's map (shape-records.ts):
 * a header read once into the fields it gives and its problems, then each record
 * rewritten, with the problems found on the way (a date not in the map's format).
 */
import type { ImportPlan } from "./import-plan.ts";
import { isTabular } from "./import-plan.ts";
import type { ImportProblem } from "./problem-codes.ts";
import { createRecordShaper, type MappingReport } from "./shape-records.ts";

/** What a header gives: the fields read, the columns not read, and its own problems. */
export interface MappedHeader {
  fields: string[];
  unread: string[];
  problems: ImportProblem[];
}

/** A record in our own format, and what mapping it found wrong. */
export interface MappedRecord {
  record: unknown;
  problems: ImportProblem[];
}

export interface MapStage {
  header(names: readonly string[]): MappedHeader;
  row(record: unknown): MappedRecord;
  /** A field as a row's problem names it: with the column it came from, where that has another name. */
  describeField(field: string): string;
  columnOf(field: string): string | undefined;
  /** The map as applied to the header (tabular files only). */
  report(): MappingReport | null;
}

export function createMapStage(plan: Pick<ImportPlan, "kind" | "map" | "format">): MapStage {
  const shaper = createRecordShaper(plan.kind, plan.map, isTabular(plan));
  return {
    header(names) {
      const problems = shaper.header(names);
      const read = shaper.report()?.read ?? [];
      const readColumns = new Set(read.map((r) => r.column));
      return { fields: read.map((r) => r.field), unread: names.filter((name) => !readColumns.has(name)), problems };
    },
    row(record) {
      const problems: ImportProblem[] = [];
      return { record: shaper.row(record, problems), problems };
    },
    describeField: (field) => shaper.describeField(field),
    columnOf: (field) => shaper.columnOf(field),
    report: () => shaper.report(),
  };
}

/** The columns of a header that `plan`'s map reads (a workbook keeps the shared strings of those only). */
export function columnsRead(plan: Pick<ImportPlan, "kind" | "map" | "format">, names: readonly string[]): Set<string> {
  const probe = createMapStage(plan);
  probe.header(names);
  return new Set(probe.report()?.read.map((r) => r.column));
}
