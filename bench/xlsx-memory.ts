#!/usr/bin/env bun
/**
 * What reading a large .xlsx costs `leaveapi import`: a Personio-like export of employees
 * (German headers, an entry date in `dd.mm.yyyy`, a unique e-mail a row, the sheet before
 * the shared strings in the zip, as streaming writers put it) is written, then read whole
 * with readXlsx in a child process of its own, whose peak RSS (VmHWM) is reported with
 * the rows, the time, and the file's packed and unpacked size; then imported whole with
 * `leaveapi import --map` into a fresh SQLite database, with that command's time and peak
 * RSS.
 *
 *   bun bench/xlsx-memory.ts [--rows N] [--file PATH] [--checkout DIR] [--read-emails]
 *
 * The default row count makes the largest file under the 200 MB an .xlsx may unpack to:
 * the XML packs several to one, so the ~100 MB .xlsx once aimed at would unpack to far
 * more, which an import refuses (bench/RESULTS.md). `--file` keeps the file there (written once, reused
 * if present) instead of in a temporary folder; `--checkout` imports with another checkout's command line
 * (the reader before a change); `--read-emails` maps the e-mails to `job_title` rather than
 * skipping them, so that the import keeps a distinct shared string a row.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readXlsx } from "../scripts/import/read-xlsx.ts";
import { runCli } from "./harness/processes.ts";
import { unpackedSize, writeXlsx, type XlsxCell } from "../test/xlsx-files.ts";
import { runMeasured } from "../test/peak-rss.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "595000" },
    file: { type: "string" },
    read: { type: "string" },
    checkout: { type: "string" },
    "read-emails": { type: "boolean", default: false },
  },
});

if (values.read !== undefined) {
  // The child: read every record, then report.
  const started = performance.now();
  let rows = 0;
  for await (const _ of readXlsx(values.read)) rows++;
  const seconds = (performance.now() - started) / 1000;
  const peakKib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
  console.log(JSON.stringify({ rows, seconds, peakKib }));
  process.exit(0);
}

const ROWS = Number(values.rows);
/** How the import reads this workbook: its German columns, statuses and the e-mail it leaves out. */
const PERSONIO_MAP = {
  columns: {
    Personalnummer: "external_id",
    Vorname: "first_name",
    Nachname: "last_name",
    Eintrittsdatum: "start_date",
    Austrittsdatum: "leaving_date",
    Abteilung: "department",
    Status: "status",
    "E-Mail": null,
  },
  values: { status: { aktiv: "active", inaktiv: "terminated" } },
  dates: "DD.MM.YYYY",
};
const FIRST_NAMES = ["Anna", "Ben", "Clara", "David", "Emma", "Felix", "Greta", "Hannah", "Jonas", "Lea", "Lukas", "Marie", "Noah", "Paul", "Sophie", "Tim"];
const LAST_NAMES = [
  "Müller",
  "Schmidt",
  "Schneider",
  "Fischer",
  "Weber",
  "Meyer",
  "Wagner",
  "Becker",
  "Schulz",
  "Hoffmann",
  "Schäfer",
  "Koch",
  "Bauer",
  "Richter",
];
const DEPARTMENTS = ["Vertrieb", "Marketing", "Personal", "Finanzen", "Einkauf", "Logistik", "IT", "Kundenservice", "Produktion", "Recht"];
/** 2010-01-01 as an Excel serial. */
const FIRST_SERIAL = 40_179;

function* employees(): Iterable<XlsxCell[]> {
  yield ["Personalnummer", "Vorname", "Nachname", "Eintrittsdatum", "Austrittsdatum", "Abteilung", "Status", "E-Mail"];
  for (let i = 0; i < ROWS; i++) {
    const first = FIRST_NAMES[i % FIRST_NAMES.length]!;
    const last = LAST_NAMES[(i * 7) % LAST_NAMES.length]!;
    const entry = FIRST_SERIAL + ((i * 37) % 5000);
    const left = i % 9 === 0;
    yield [
      100_000 + i,
      first,
      last,
      { date: entry, format: "dd.mm.yyyy" },
      left ? { date: entry + 400, format: "dd.mm.yyyy" } : null,
      DEPARTMENTS[i % DEPARTMENTS.length]!,
      left ? "inaktiv" : "aktiv",
      `${first}.${last}.${i}@beispiel.de`.toLowerCase(),
    ];
  }
}

const work = values.file === undefined ? mkdtempSync(join(tmpdir(), "leaveapi-xlsx-memory-")) : undefined;
const file = values.file ?? join(work!, "mitarbeiter.xlsx");
try {
  if (!existsSync(file)) {
    const started = performance.now();
    await writeXlsx(file, [{ name: "Mitarbeiter", rows: employees() }]);
    console.log(`wrote ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const child = Bun.spawn([process.execPath, import.meta.path, "--read", file], { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`the reading process exited ${code}`);
  const { rows, seconds, peakKib } = JSON.parse(out) as { rows: number; seconds: number; peakKib: number };
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  console.log(
    `xlsx read: ${rows.toLocaleString("en")} records (header included) in ${seconds.toFixed(1)} s, ${Math.round(rows / seconds).toLocaleString("en")} rows/s; ` +
      `${mb(statSync(file).size)} MB zipped, ${mb(unpackedSize(file))} MB unpacked; peak RSS ${mb(peakKib * 1024)} MB`,
  );
  // The whole import, as an admin runs it: the command line, a map, a SQLite database.
  const dir = mkdtempSync(join(tmpdir(), "leaveapi-xlsx-import-"));
  try {
    const db = ["--db", join(dir, "import.sqlite")];
    const org = (JSON.parse((await runCli([...db, "org", "create", "--name", "Bench GmbH", "--json"])).stdout) as { id: string }).id;
    const map = join(dir, "map.json");
    const columns = { ...PERSONIO_MAP.columns, ...(values["read-emails"] ? { "E-Mail": "job_title" } : {}) };
    writeFileSync(map, JSON.stringify({ ...PERSONIO_MAP, columns }));
    // Its peak RSS as read inside it (test/peak-rss.ts): as this process sees it, it would include this process's own at the fork.
    const run = await runMeasured([...db, "import", "--org", org, "--kind", "employees", "--map", map, file], { checkout: values.checkout });
    if (run.code !== 0) throw new Error(`the import exited ${run.code}: ${run.stderr}`);
    console.log(
      `leaveapi import of it: ${run.stdout.trim().split("\n")[0]} in ${run.seconds.toFixed(1)} s, ` +
        `${Math.round((rows - 1) / run.seconds).toLocaleString("en")} rows/s; peak RSS ${run.peakMb.toFixed(1)} MB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}
