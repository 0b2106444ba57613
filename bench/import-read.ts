/**
 * Times stages 2 and 3 of an import (scripts/import/README.md) alone: reading a file's
 * records and validating them, with no store, as CPU time and wall time per run.
 *
 *   bun bench/import-read.ts --kind leave --file /tmp/big/leave.jsonl [--runs 5] [--rows N]
 *
 * Generate a file with bench/generate.ts. The organisation id only seeds derived ids.
 */
import { parseArgs } from "node:util";
import { createRecordNormaliser, type ImportKind } from "../scripts/import/normalise-records.ts";
import { readCsv } from "../scripts/import/read-csv.ts";
import { readJsonArray } from "../scripts/import/read-json-array.ts";
import { readJsonl } from "../scripts/import/read-jsonl.ts";
import { formatOf, openFile } from "../scripts/import/source.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { kind: { type: "string" }, file: { type: "string" }, runs: { type: "string" }, rows: { type: "string" } },
  strict: true,
});
if (!values.kind || !values.file) throw new Error("usage: bun bench/import-read.ts --kind employees|leave|holidays --file FILE [--runs 5] [--rows N]");
const kind = values.kind as ImportKind;
const file = values.file;
const format = formatOf(file);
if (format === null) throw new Error("name the file .jsonl, .json or .csv");
const read = format === "csv" ? readCsv : format === "json" ? readJsonArray : readJsonl;
const limit = values.rows === undefined ? Number.POSITIVE_INFINITY : Number(values.rows);

async function once(): Promise<{ rows: number; wallMs: number; cpuMs: number }> {
  const normalise = createRecordNormaliser(kind, { organisationId: "00000000-0000-4000-8000-000000000000", text: format === "csv" });
  const { chunks } = await openFile(file);
  const started = performance.now();
  const cpu = process.cpuUsage();
  let rows = 0;
  for await (const { record } of read(chunks)) {
    normalise(record);
    if (++rows >= limit) break;
  }
  const used = process.cpuUsage(cpu);
  return { rows, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const runs: { rows: number; wallMs: number; cpuMs: number }[] = [];
for (let i = 0; i < Number(values.runs ?? 5); i++) runs.push(await once());
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows = runs[0]!.rows;
const cpuMs = median(runs.map((r) => r.cpuMs));
console.log(
  JSON.stringify({
    rows,
    runs: runs.length,
    median_wall_ms: Math.round(median(runs.map((r) => r.wallMs))),
    median_cpu_ms: Math.round(cpuMs),
    cpu_us_per_row: Number(((cpuMs * 1000) / rows).toFixed(2)),
  }),
);
