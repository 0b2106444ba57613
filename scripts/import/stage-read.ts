/**
 * Stage 1, read: where the plan's bytes come from. A text file or stdin is a stream of
 * bytes (with the file's size for the progress line); a workbook is a path, since it is
 * read by seeking in its zip. Every format comes through here, a workbook included, and
 * a file that cannot be opened is a problem returned, not thrown.
 */
import type { ImportPlan } from "./import-plan.ts";
import { FileProblem, openFile } from "./source.ts";

export type Source = { kind: "bytes"; chunks: AsyncIterable<Uint8Array>; size: number | undefined } | { kind: "workbook"; path: string };

export type ReadResult = { ok: true; source: Source } | { ok: false; problem: FileProblem };

export async function readSource(plan: Pick<ImportPlan, "file" | "format">, stdin?: () => AsyncIterable<Uint8Array>): Promise<ReadResult> {
  if (plan.format === "xlsx") return { ok: true, source: { kind: "workbook", path: plan.file } };
  if (plan.file === "-") {
    if (stdin === undefined) return { ok: false, problem: new FileProblem("reading stdin is not available here") };
    return { ok: true, source: { kind: "bytes", chunks: stdin(), size: undefined } };
  }
  try {
    const { chunks, size } = await openFile(plan.file);
    return { ok: true, source: { kind: "bytes", chunks, size } };
  } catch (error) {
    // The file system's refusal (no such file, no permission) becomes the file's one problem.
    if (!(error instanceof FileProblem)) throw error;
    return { ok: false, problem: error };
  }
}
