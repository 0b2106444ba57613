/**
 * What a `--map` costs (issue 25's target: an import of another system's CSV through a
 * map at ≥ 0.8 of the same bookings in our own format). The same generated bookings are
 * written twice as CSV: in our own format (`,`, our column names and values, ISO dates),
 * and as an HR system would export them (`;`, its own column names, statuses as words,
 * dates as `DD.MM.YYYY`, two columns the map skips), with the map that reads it. Each is
 * imported with `leaveapi import` into a fresh SQLite database already holding the
 * employees, in alternating runs so that a noisy minute moves both alike; the report is
 * the median rate of each and their ratio.
 *
 *   bun bench/import-mapped.ts [--bookings 1000000] [--employees 10000] [--runs 3] [--dir DIR]
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { generate } from "./generate.ts";
import { runCli } from "./harness/processes.ts";

const { values } = parseArgs({
  options: {
    bookings: { type: "string", default: "1000000" },
    employees: { type: "string", default: "10000" },
    runs: { type: "string", default: "3" },
    dir: { type: "string" },
  },
});
const bookings = Number(values.bookings);
const runs = Number(values.runs);
const dir = values.dir ?? mkdtempSync(join(tmpdir(), "leaveapi-bench-mapped-"));

const OWN_COLUMNS = [
  "external_id",
  "employee_external_id",
  "leave_type_name",
  "leave_type_category",
  "leave_type_is_paid",
  "start_date",
  "end_date",
  "start_half_day",
  "start_half_period",
  "status",
  "requested_at",
  "reviewed_at",
  "cancelled_at",
];
/** The HR system's name for each of our columns, and two columns of its own that the map skips. */
const THEIR_COLUMNS = [
  "Absence ID",
  "Personnel No",
  "Absence Type",
  "Category",
  "Paid",
  "From",
  "To",
  "Half Day Start",
  "Half Day Period",
  "State",
  "Requested",
  "Reviewed",
  "Cancelled",
];
const STATE_WORDS: Record<string, string> = {
  approved: "Approved",
  pending: "Pending",
  rejected: "Rejected",
  cancelled: "Cancelled",
  cancellation_requested: "Cancellation requested",
};
const MAP = {
  columns: Object.fromEntries([...THEIR_COLUMNS.map((c, i) => [c, OWN_COLUMNS[i]]), ["Cost Centre", null], ["Comment", null]]),
  values: { status: Object.fromEntries(Object.entries(STATE_WORDS).map(([ours, theirs]) => [theirs, ours])), start_half_day: { Yes: true, No: false } },
  dates: "DD.MM.YYYY",
};

const german = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
const cell = (value: unknown) => (value === null || value === undefined ? "" : String(value));

/** Writes both CSV files from the generated JSONL, streaming. */
async function writeCsvFiles(leaveJsonl: string): Promise<{ own: string; theirs: string; map: string }> {
  const files = { own: join(dir, "own.csv"), theirs: join(dir, "theirs.csv"), map: join(dir, "map.json") };
  const own = Bun.file(files.own).writer();
  const theirs = Bun.file(files.theirs).writer();
  own.write(`${OWN_COLUMNS.join(",")}\n`);
  theirs.write(`${[...THEIR_COLUMNS, "Cost Centre", "Comment"].join(";")}\n`);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(leaveJsonl) })) {
    if (line === "") continue;
    const b = JSON.parse(line);
    const row = [
      b.external_id,
      b.employee_external_id,
      b.leave_type.name,
      b.leave_type.category,
      b.leave_type.is_paid,
      b.start_date,
      b.end_date,
      b.start_half_day,
      b.start_half_period,
      b.status,
      b.requested_at,
      b.reviewed_at,
      b.cancelled_at,
    ];
    own.write(`${row.map(cell).join(",")}\n`);
    const their = [...row];
    their[5] = german(b.start_date);
    their[6] = german(b.end_date);
    their[7] = b.start_half_day ? "Yes" : "No";
    their[9] = STATE_WORDS[b.status];
    theirs.write(`${[...their.map(cell), `CC-${n % 40}`, n % 7 === 0 ? "family" : ""].join(";")}\n`);
    if (++n % 10_000 === 0) {
      await own.flush();
      await theirs.flush();
    }
  }
  await own.end();
  await theirs.end();
  writeFileSync(files.map, JSON.stringify(MAP, null, 2));
  return files;
}

async function importOnce(employees: string, file: string, extra: string[]): Promise<{ seconds: number; maxRssKib: number }> {
  const db = join(dir, `run-${Date.now()}.sqlite`);
  try {
    const org = (JSON.parse((await runCli(["--db", db, "org", "create", "--name", "Bench", "--json"])).stdout) as { id: string }).id;
    await runCli(["--db", db, "import", "--org", org, "--kind", "employees", employees]);
    const run = await runCli(["--db", db, "import", "--org", org, "--kind", "leave", ...extra, file]);
    if (!run.stdout.includes(`imported ${bookings} rows`)) throw new Error(`unexpected import output: ${run.stdout}`);
    return run;
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-tokens", "-tokens-wal", "-tokens-shm"]) rmSync(`${db}${suffix}`, { force: true });
  }
}

const generated = await generate({ out: dir, employees: Number(values.employees), bookings });
const files = await writeCsvFiles(generated.leave);
const own: { seconds: number; maxRssKib: number }[] = [];
const mapped: { seconds: number; maxRssKib: number }[] = [];
for (let i = 0; i < runs; i++) {
  own.push(await importOnce(generated.employees, files.own, []));
  mapped.push(await importOnce(generated.employees, files.theirs, ["--map", files.map]));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (rs: { seconds: number }[]) => bookings / median(rs.map((r) => r.seconds));
const result = {
  bookings,
  runs,
  own_rows_per_second: Math.round(rate(own)),
  mapped_rows_per_second: Math.round(rate(mapped)),
  ratio: Number((rate(mapped) / rate(own)).toFixed(3)),
  own_seconds: own.map((r) => Number(r.seconds.toFixed(1))),
  mapped_seconds: mapped.map((r) => Number(r.seconds.toFixed(1))),
  own_peak_rss_mb: Math.round(Math.max(...own.map((r) => r.maxRssKib)) / 1024),
  mapped_peak_rss_mb: Math.round(Math.max(...mapped.map((r) => r.maxRssKib)) / 1024),
};
console.log(JSON.stringify(result, null, 2));
if (values.dir === undefined) rmSync(dir, { recursive: true, force: true });
