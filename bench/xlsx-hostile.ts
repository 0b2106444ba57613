#!/usr/bin/env bun
/**
 * What each hostile workbook of issue 35 (point 3; test/xlsx-hostile.ts) costs `leaveapi
 * import --kind employees`: each is written (into a temporary folder, removed after),
 * then imported into a fresh SQLite database by this checkout's command line and, with
 * `--before DIR`, by another checkout's (the reader before the change: `git archive d3871f1
 * | tar -x -C DIR`, with node_modules linked in). Printed as a table: the file's packed
 * and unpacked size, and per command its time, peak RSS (test/peak-rss.ts: the command's
 * own, read inside it at exit) and first line of output. A run
 * is stopped past `--max-seconds` or `--max-rss-mb` (the old reader ran for hours or took
 * gigabytes on some): its figures are then "more than" the limit.
 *
 *   bun bench/xlsx-hostile.ts [--before DIR] [--only far-column,deep-nesting] [--max-seconds 120] [--max-rss-mb 2000]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { unpackedSize } from "../test/xlsx-files.ts";
import { HOSTILE_SHAPES, type HostileShapeName } from "../test/xlsx-hostile.ts";
import { runMeasured, type MeasuredRun } from "../test/peak-rss.ts";

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    only: { type: "string" },
    "max-seconds": { type: "string", default: "120" },
    "max-rss-mb": { type: "string", default: "2000" },
  },
});
const MAX_SECONDS = Number(values["max-seconds"]);
const MAX_RSS_MB = Number(values["max-rss-mb"]);

/** `leaveapi import` of `file` into a fresh database, with `checkout`'s command line; its first line of output, or why it was stopped. */
async function importWith(checkout: string | undefined, dir: string, file: string): Promise<MeasuredRun & { outcome: string }> {
  const db = ["--db", join(dir, `import-${Math.random().toString(36).slice(2)}.sqlite`)];
  const created = await runMeasured([...db, "org", "create", "--name", "Bench Ltd", "--json"], { checkout });
  const org = (JSON.parse(created.stdout) as { id: string }).id;
  const run = await runMeasured([...db, "import", "--org", org, "--kind", "employees", file], { checkout, maxSeconds: MAX_SECONDS, maxRssMb: MAX_RSS_MB });
  const said = `${run.stderr}\n${run.stdout}`
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "");
  return { ...run, outcome: run.stopped ?? said ?? `exit ${run.code}` };
}

const shapes = (values.only?.split(",") ?? Object.keys(HOSTILE_SHAPES)) as HostileShapeName[];
const before = values.before;
const work = mkdtempSync(join(tmpdir(), "leaveapi-xlsx-hostile-"));
const rows: string[][] = [];
const cell = (r: MeasuredRun & { outcome: string }, file: string) => [
  `${r.seconds.toFixed(1)} s`,
  `${Math.round(r.peakMb)} MB`,
  r.outcome.replace(file, "FILE").replace(/\|/g, "/").slice(0, 110),
];
try {
  for (const name of shapes) {
    const shape = HOSTILE_SHAPES[name];
    const file = join(work, `${name}.xlsx`);
    await shape.write(file);
    const size = `${(statSync(file).size / 1e6).toFixed(2)} MB / ${(unpackedSize(file) / 1e6).toFixed(0)} MB`;
    const old = before === undefined ? null : await importWith(before, work, file);
    const now = await importWith(undefined, work, file);
    rows.push([name, shape.what, size, ...(old === null ? [] : cell(old, file)), ...cell(now, file)]);
    console.error(`${name}: done`);
    rmSync(file);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const head = ["shape", "workbook", "packed / unpacked", ...(before ? ["before: time", "peak RSS", "outcome"] : []), "after: time", "peak RSS", "outcome"];
console.log(`| ${head.join(" | ")} |\n|${head.map(() => " --- |").join("")}`);
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
