/** `leaveapi import --org ORG_ID --kind employees|leave|holidays [--format …] [--map FILE] [--prune] [--dry-run] FILE` (docs/cli.md, "The import format"). */
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import {
  IMPORT_KINDS,
  runPlannedImport,
  type ImportFormat,
  type ImportKind,
  type ImportOutcome,
  type PublicHolidayReplacement,
} from "../import/import-file.ts";
import { planImport } from "../import/import-plan.ts";
import { checkImportMap, MapProblem, readImportMap, type DateFormat, type ImportMap } from "../import/import-map.ts";
import { importColumns } from "../import/normalise-records.ts";
import { describeStoreFailure } from "../import/store-failure.ts";
import { DEFAULT_PRUNE_MAX_PERCENT, type PruneOptions } from "../import/prune.ts";
import type { MappingReport } from "../import/shape-records.ts";
import { formatOf, IMPORT_FORMATS } from "../import/source.ts";
import { toIsoDate } from "../import/source-dates.ts";
import { locateStore, organisationNamed, withMigratedStore } from "../open-store.ts";
import { announced, sayWaiting } from "../writer-wait.ts";
import type { RecordLabel } from "../../lib/admin-store.ts";

const USAGE =
  "leaveapi import --org ORG_ID --kind employees|leave|holidays [--format jsonl|json|csv|xlsx] [--map FILE] [--delimiter D] [--encoding E] [--sheet NAME] [--date-format F] [--prune [--range FROM,TO] [--prune-max PERCENT]] [--dry-run] FILE";

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")}, not '${value}'\nusage: ${USAGE}`);
  }
  return value as T;
}

export const importCommand: Command = {
  name: "import",
  usage: USAGE,
  help: `usage:
  ${USAGE}

Imports one file into one organisation, whole or not at all (one transaction).

  --org ORG_ID        the organisation (see 'leaveapi org list')
  --kind KIND         employees, leave or holidays
  --format FORMAT     jsonl, json (one array), csv or xlsx; by default from the file's
                      extension. FILE '-' reads stdin, as JSONL unless --format says.
  --map FILE          how another system's export is read: a JSON object of columns
                      (column -> field, or null to skip it), values (field -> {value ->
                      value}), dates, defaults (field -> value for an empty cell),
                      ignore_unmapped, delimiter, encoding, sheet (docs/cli.md)
  --delimiter D       CSV: , ; tab or |; by default detected from the header line
  --encoding E        utf-8 (the default; a BOM is allowed), windows-1252, iso-8859-1
                      or utf-16le (a UTF-16 BOM is recognised)
  --sheet NAME        xlsx: the sheet to read; by default the first
  --date-format F     the file's dates: YYYY-MM-DD (default), DD/MM/YYYY, MM/DD/YYYY,
                      DD.MM.YYYY, YYYY/MM/DD, D/M/YYYY or M/D/YYYY
  --prune             the file is the complete set: live employees (or, for leave,
                      bookings starting within --range FROM,TO, in the file's date
                      format) absent from it are deleted; refused for an empty file,
                      and past 25% of the live records (those absent and those marked
                      deleted) unless --prune-max PERCENT allows more
  --dry-run           check everything and print what would change, the mapping as
                      applied and the first three rows as stored; write nothing

Records use the API's field names. Employees and bookings are keyed by id (a UUID) or
by external_id (the source system's id: the id is derived from it, so re-importing
updates instead of duplicating). A booking names its employee by employee_id or
employee_external_id and its leave type as leave_type: {id?, name, category, is_paid}
(CSV: leave_type_id, leave_type_name, leave_type_category, leave_type_is_paid); a
booking without days gets them computed. Holidays rows have type "company" (closure
days) or "public" (with calendar: replaces that calendar's year for this organisation).
"deleted": true deletes (an employee with their bookings; nothing of them is kept but
the deletions feed's tombstone). updated_at is accepted and ignored; any other unknown
field is an error. CSV: a header row, an empty cell is null, booleans true/false, and a
text cell written as '=… (a leading ' before = + - @, a tab, a carriage return or NUL,
as 'leaveapi fetch' writes them against formula injection) loses that '.

The flags override the map file's delimiter, encoding, sheet and dates.

Limits: the file is UTF-8 unless --encoding says; a JSONL or CSV line, a CSV record or a JSON array
element over 1 MiB, a text field over 255 characters (code points), a date outside the
years 1900 to 2199, or a booking of more than 1,000 days, is an error.

Every problem is reported on stderr as FILE:LINE: field: what is wrong (a CSV header's
at line 1), and then nothing is written. Importing the same data again changes nothing.
The summary names each public-holiday calendar-year the file replaced. With --json, one
document on stdout: the counts, or {"ok": false, "problems": [...]}.`,
  async run(outer) {
    // With --json a failure prints one document too, whatever failed (an unknown --org, a
    // database that cannot be opened): the paths below that print their own are counted.
    let printed = false;
    const out = (text: string) => {
      printed = true;
      outer.io.out(text);
    };
    const ctx: CommandContext = { ...outer, io: { ...outer.io, out } };
    try {
      await importCommandBody(ctx);
    } catch (error) {
      if (ctx.global.json && !printed && error instanceof CommandError) ctx.io.out(JSON.stringify({ ok: false, problems: [error.message] }, null, 2));
      throw error;
    }
  },
};

async function importCommandBody(ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      org: { type: "string" },
      kind: { type: "string" },
      format: { type: "string" },
      "dry-run": { type: "boolean" },
      map: { type: "string" },
      delimiter: { type: "string" },
      encoding: { type: "string" },
      sheet: { type: "string" },
      "date-format": { type: "string" },
      prune: { type: "boolean" },
      range: { type: "string" },
      "prune-max": { type: "string" },
    },
    USAGE,
    1,
  );
  const given = requireValue(values.org, "--org", USAGE);
  const kind: ImportKind = oneOf(requireValue(values.kind, "--kind", USAGE), IMPORT_KINDS, "--kind");
  const format: ImportFormat | undefined = values.format === undefined ? undefined : oneOf(values.format, IMPORT_FORMATS, "--format");
  const file = requireValue(positionals[0], "FILE (a path, or - for stdin)", USAGE);
  const dryRun = values["dry-run"] === true;
  const pruneFlags = pruneOptions(kind, values);
  // The plan of the import, resolved once here: its format, its map (with the flags over it), its prune.
  const chosen = formatOf(file, format);
  const tabular = chosen === "csv" || chosen === "xlsx";
  const map = await importMap(ctx, chosen, kind, values);
  const prune = pruneFlags && withRange(pruneFlags, map.dates);
  await withMigratedStore(ctx, async (store) => {
    const org = await organisationNamed(store, given);
    const planned = planImport({ organisationId: org.id, kind, file, format, map, dryRun, prune, describe: true });
    if (!planned.ok) return failed(ctx, { ok: false, errors: [planned.problem], invalidRows: 0 }, { stdin: false, mapHint: false });
    const onWait = await sayWaiting(store, ctx.io, "importing");
    const run = () =>
      runPlannedImport(store, planned.plan, {
        // Another import (or erasure) holds what this one must write under: one line naming it, then it waits.
        onWait,
        stdin: ctx.io.stdin,
        // Drawn with \r on the terminal only; never in logs or pipes.
        progress: ctx.io.errIsTty ? (text) => void process.stderr.write(text) : undefined,
      });
    // A dry run takes no write lock, so only a real import is announced as one to wait for.
    const outcome = await (dryRun ? run() : announced(store, `the import of ${kind} into ${org.name}`, run)).catch((error: unknown) => {
      // The database refused the writes (read-only file, full disk, lost connection): one
      // line that names it and why, never "unexpected failure" and a stack trace.
      const store = locateStore(ctx.global, ctx.io.env);
      const problem = `import failed on the ${store.kind} database ${store.label}: ${describeStoreFailure(error, store, ctx.io.env)}; nothing was written`;
      if (ctx.global.json) ctx.io.out(JSON.stringify({ ok: false, problems: [problem] }, null, 2));
      throw new CommandError(problem);
    });
    if (!outcome.ok) return failed(ctx, outcome, { stdin: file === "-" && format === undefined, mapHint: values.map === undefined && tabular });
    const { rows, counts } = outcome;
    const holidays = outcome.publicHolidays ?? [];
    const mapping = outcome.mapping ?? null;
    const json = {
      ok: true,
      dry_run: dryRun,
      rows,
      ...counts,
      ...(prune ? { pruned: outcome.pruned ?? 0 } : {}),
      ...(prune && dryRun ? { would_prune: outcome.prunedList ?? [] } : {}),
      ...(outcome.kept ? { kept_fields: outcome.kept } : {}),
      public_holidays: holidays,
      // The map as applied on a dry run; the columns a map skipped, on every import with one.
      ...(dryRun && mapping !== null ? { columns: mapping.read } : {}),
      ...((dryRun || values.map !== undefined) && mapping !== null ? { skipped_columns: mapping.skipped } : {}),
      ...(dryRun ? { first_rows: outcome.sample ?? [] } : {}),
    };
    const pruned = prune ? `, ${outcome.pruned ?? 0} pruned (absent from the file)` : "";
    report(ctx, json, () =>
      [
        `${dryRun ? "would import" : "imported"} ${rows} ${rows === 1 ? "row" : "rows"} of ${kind} into ${org.name}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.deleted} deleted${pruned}`,
        ...(dryRun && prune ? describePruned(outcome.pruned ?? 0, outcome.prunedList ?? []) : []),
        ...(dryRun && outcome.kept ? [describeKept(outcome.kept)] : []),
        ...holidays.map(describeReplacement),
        ...(dryRun && mapping !== null ? describeMapping(mapping) : []),
        ...(!dryRun && mapping !== null && mapping.skipped.length > 0 ? [`skipped columns: ${mapping.skipped.map((c) => JSON.stringify(c)).join(", ")}`] : []),
        ...(dryRun && (outcome.sample ?? []).length > 0
          ? ["first rows as they would be stored:", ...(outcome.sample ?? []).map((r) => `  ${JSON.stringify(r)}`)]
          : []),
        ...(dryRun ? ["dry run: nothing was written"] : []),
      ].join("\n"),
    );
  });
}

/** Who a dry run of --prune would delete: the first hundred, by external id and name, and how many more. */
function describePruned(pruned: number, listed: RecordLabel[]): string[] {
  if (pruned === 0) return [];
  const more = pruned - listed.length;
  return [
    `would prune (absent from the file):`,
    ...listed.map((r) => `  ${r.external_id === null ? r.id : JSON.stringify(r.external_id)}  ${r.name}`),
    ...(more > 0 ? [`  … and ${more.toLocaleString("en")} more`] : []),
  ];
}

/** The stored fields the file does not carry: kept as they are on every record it updates (docs/cli.md, "Absent is not empty"). */
function describeKept(fields: string[]): string {
  return `not in the file, so they would keep their stored values: ${fields.join(", ")} (an empty cell or null clears a field)`;
}

/** The map as applied, for --dry-run: each column and its field, then what was skipped or not found. */
function describeMapping(mapping: MappingReport): string[] {
  const width = Math.max(0, ...mapping.read.map((r) => JSON.stringify(r.column).length));
  return [
    "columns:",
    ...mapping.read.map((r) => `  ${JSON.stringify(r.column).padEnd(width)} -> ${r.field}`),
    ...(mapping.skipped.length > 0 ? [`skipped columns: ${mapping.skipped.map((c) => JSON.stringify(c)).join(", ")}`] : []),
    ...(mapping.missing.length > 0 ? [`mapped but not in the file: ${mapping.missing.map((c) => JSON.stringify(c)).join(", ")}`] : []),
  ];
}

/** --prune's options with --range still as given: its dates are read in the map's format, once the map is read. */
type PruneFlags = Omit<PruneOptions, "range"> & { range?: string };

/** --prune, --range and --prune-max, checked together (docs/cli.md, "Full exports: --prune"). */
function pruneOptions(kind: ImportKind, values: { prune?: boolean; range?: string; "prune-max"?: string }): PruneFlags | undefined {
  if (!values.prune) {
    if (values.range !== undefined || values["prune-max"] !== undefined) throw new UsageError(`--range and --prune-max go with --prune\nusage: ${USAGE}`);
    return undefined;
  }
  if (kind === "holidays")
    throw new UsageError(`--prune takes --kind employees or leave; holidays files replace public holidays per calendar-year already\nusage: ${USAGE}`);
  const maxText = values["prune-max"];
  const maxPercent = maxText === undefined ? DEFAULT_PRUNE_MAX_PERCENT : Number(maxText);
  if (maxText !== undefined && (!/^\d+(\.\d+)?$/.test(maxText) || maxPercent > 100)) {
    throw new UsageError(`--prune-max must be a percentage from 0 to 100, not '${maxText}'\nusage: ${USAGE}`);
  }
  if (kind === "employees") {
    if (values.range !== undefined) throw new UsageError(`--range goes with --kind leave: employees are pruned whole\nusage: ${USAGE}`);
    return { maxPercent };
  }
  const range = values.range;
  if (range === undefined)
    throw new UsageError(`--prune of leave needs --range FROM,TO: the bookings starting within it are what the file is the complete set of\nusage: ${USAGE}`);
  return { maxPercent, range };
}

/** The --range of `flags` read as two dates in the map's format (`--date-format` or the map's `dates`), as the file's are. */
function withRange(flags: PruneFlags, dates: DateFormat): PruneOptions {
  if (flags.range === undefined) return { maxPercent: flags.maxPercent };
  const [fromText, toText, more] = flags.range.split(",").map((d) => d.trim());
  const [from, to] = [fromText, toText].map((d) => (d ? toIsoDate(d, dates) : null));
  if (more !== undefined || !from || !to) {
    const format = dates === "YYYY-MM-DD" ? "YYYY-MM-DD" : `${dates} (the map's date format) or YYYY-MM-DD`;
    throw new UsageError(`--range must be FROM,TO as two dates ${format}, not '${flags.range}'\nusage: ${USAGE}`);
  }
  if (to < from) throw new UsageError(`--range ends (${to}) before it starts (${from})\nusage: ${USAGE}`);
  return { maxPercent: flags.maxPercent, range: { from, to } };
}

/** The --map file with the flags laid over it; every mistake in it is named, and nothing is read. */
async function importMap(
  ctx: CommandContext,
  chosen: ImportFormat | null,
  kind: ImportKind,
  values: { map?: string; delimiter?: string; encoding?: string; sheet?: string; "date-format"?: string },
): Promise<ImportMap> {
  const onlyFor = (flag: string, formats: ImportFormat[], what: string) => {
    if (chosen !== null && !formats.includes(chosen)) throw new UsageError(`${flag} applies to ${what}, and this file is read as ${chosen}\nusage: ${USAGE}`);
  };
  if (values.delimiter !== undefined) onlyFor("--delimiter", ["csv"], "CSV files");
  if (values.encoding !== undefined) onlyFor("--encoding", ["csv", "json", "jsonl"], "text files (an .xlsx says its own)");
  if (values.sheet !== undefined) onlyFor("--sheet", ["xlsx"], ".xlsx workbooks");
  const fields = importColumns(kind, chosen === "csv" || chosen === "xlsx");
  const overrides = { delimiter: values.delimiter, encoding: values.encoding, sheet: values.sheet, dateFormat: values["date-format"] };
  try {
    return values.map === undefined ? checkImportMap({}, fields, overrides, "flags", kind) : await readImportMap(values.map, fields, overrides, kind);
  } catch (error) {
    if (!(error instanceof MapProblem)) throw error;
    // Listed like a file's problems: the first thousand, one line each, then how many more.
    for (const line of error.problems) ctx.io.err(line);
    const count = error.count === 1 ? "1 problem" : `${error.count.toLocaleString("en")} problems`;
    if (ctx.global.json) ctx.io.out(JSON.stringify({ ok: false, problems: error.problems, problem_count: error.count }, null, 2));
    throw new CommandError(`the map cannot be used (${count}); nothing was read`);
  }
}

/** One line per public-holiday calendar-year set: what replaced the shipped set, and what that hides. */
function describeReplacement(r: PublicHolidayReplacement): string {
  const shipped = `${r.shipped} shipped ${r.shipped === 1 ? "holiday" : "holidays"}`;
  if (r.holidays === 0) return `public holidays ${r.calendar} ${r.year}: back to the ${shipped}`;
  const hidden = r.shipped_hidden === 0 ? "none of them hidden" : `${r.shipped_hidden} of them no longer holidays for this organisation`;
  return `public holidays ${r.calendar} ${r.year}: replaced by the file's ${r.holidays} (in place of the ${shipped}; ${hidden})`;
}

/**
 * The problems on stderr, one line each (the first thousand, then one line saying how
 * many more), then one closing line that counts every problem; with --json, the same
 * lines in one document on stdout with the count. Exit 1.
 */
function failed(ctx: CommandContext, outcome: Extract<ImportOutcome, { ok: false }>, source: { stdin: boolean; mapHint: boolean }): never {
  const { errors, invalidRows } = outcome;
  // Past a thousand, the problems are counted, not listed: the last line listed says how many more.
  const count = outcome.problemCount ?? errors.length;
  for (const line of errors) ctx.io.err(line);
  // Chosen by the kinds of problem found (scripts/import/problem-codes.ts), never by their words.
  const codes = new Set(outcome.codes ?? []);
  const hint =
    source.stdin && codes.has("unreadable")
      ? "; stdin is read as JSON Lines: pass --format csv or --format json for other formats"
      : source.mapHint && (codes.has("unknown_columns") || codes.has("missing_column"))
        ? "; another system's columns can be mapped to these fields with --map FILE (docs/cli.md, \"Other systems' exports\")"
        : "";
  const headerProblems = outcome.headerProblems ?? 0;
  if (ctx.global.json)
    ctx.io.out(
      JSON.stringify(
        { ok: false, problems: errors, problem_count: count, header_problems: headerProblems, invalid_rows: invalidRows, codes: [...codes] },
        null,
        2,
      ),
    );
  throw new CommandError(`import failed: ${describeCount(count, headerProblems, invalidRows)}; nothing was written${hint}`);
}

/** `2 header problems and 3 problems in 3 rows`: the header's (columns) apart from the rows'. */
export function describeCount(count: number, headerProblems: number, invalidRows: number): string {
  const plural = (n: number, one: string, many: string) => (n === 1 ? `1 ${one}` : `${n} ${many}`);
  const header = headerProblems > 0 ? plural(headerProblems, "header problem", "header problems") : "";
  const rest = count - headerProblems;
  const rows = invalidRows > 0 ? ` in ${plural(invalidRows, "row", "rows")}` : "";
  const other = rest > 0 || header === "" ? `${plural(rest, "problem", "problems")}${rows}` : "";
  return [header, other].filter(Boolean).join(" and ");
}
