/**
 * Stage 4, validate: one mapped record against its kind's rules (normalise-records.ts),
 * normalised into what the writer stores, or every problem of it: the map's and the
 * rules', each field told once (a date the map could not read is left out of the record,
 * and its "is required" would say the same again).
 */
import { isTabular, type ImportPlan } from "./import-plan.ts";
import { createRecordNormaliser, type ImportRow } from "./normalise-records.ts";
import type { ImportProblem } from "./problem-codes.ts";
import type { MappedRecord } from "./stage-map.ts";

export type Validated = { ok: true; row: ImportRow } | { ok: false; problems: ImportProblem[] };

export function createValidateStage(plan: Pick<ImportPlan, "kind" | "organisationId" | "format">): (mapped: MappedRecord) => Validated {
  const normalise = createRecordNormaliser(plan.kind, { organisationId: plan.organisationId, text: isTabular(plan) });
  return ({ record, problems: mapProblems }) => {
    const result = normalise(record);
    if (result.ok && mapProblems.length === 0) return { ok: true, row: result.row };
    const told = new Set(mapProblems.map((p) => p.field));
    return { ok: false, problems: [...mapProblems, ...(result.ok ? [] : result.problems.filter((p) => !told.has(p.field)))] };
  };
}
