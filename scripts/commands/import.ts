/** `leaveapi import --org ORG_ID --kind employees|leave|holidays [--format jsonl|json|csv] [--dry-run] FILE` (docs/cli.md, "The import format"). */
import { StoreUnavailableError } from "../../lib/errors.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { IMPORT_KINDS, importFile, type ImportFormat, type ImportKind, type ImportOutcome, type PublicHolidayReplacement } from "../import/import-file.ts";
import { IMPORT_FORMATS } from "../import/source.ts";
import { locateStore, organisationNamed, withMigratedStore } from "../open-store.ts";

const USAGE = "leaveapi import --org ORG_ID --kind employees|leave|holidays [--format jsonl|json|csv] [--dry-run] FILE";

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
  --format FORMAT     jsonl, json (one array) or csv; by default from the file's
                      extension. FILE '-' reads stdin, as JSONL unless --format says.
  --dry-run           check everything and print what would change, write nothing

Records use the API's field names. Employees and bookings are keyed by id (a UUID) or
by external_id (the source system's id: the id is derived from it, so re-importing
updates instead of duplicating). A booking names its employee by employee_id or
employee_external_id and its leave type as leave_type: {id?, name, category, is_paid}
(CSV: leave_type_id, leave_type_name, leave_type_category, leave_type_is_paid); a
booking without days gets them computed. Holidays rows have type "company" (closure
days) or "public" (with calendar: replaces that calendar's year for this organisation).
"deleted": true soft-deletes. updated_at is accepted and ignored; any other unknown
field is an error. CSV: a header row, an empty cell is null, booleans true/false, and a
text cell written as '=… (a leading ' before = + - @, a tab, a carriage return or NUL,
as 'leaveapi fetch' writes them against formula injection) loses that '.

Limits: the file is UTF-8 (CSV too); a JSONL or CSV line, a CSV record or a JSON array
element over 1 MiB, or a text field over 255 characters (code points), is an error.

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
    { org: { type: "string" }, kind: { type: "string" }, format: { type: "string" }, "dry-run": { type: "boolean" } },
    USAGE,
    1,
  );
  const given = requireValue(values.org, "--org", USAGE);
  const kind: ImportKind = oneOf(requireValue(values.kind, "--kind", USAGE), IMPORT_KINDS, "--kind");
  const format: ImportFormat | undefined = values.format === undefined ? undefined : oneOf(values.format, IMPORT_FORMATS, "--format");
  const file = requireValue(positionals[0], "FILE (a path, or - for stdin)", USAGE);
  const dryRun = values["dry-run"] === true;
  await withMigratedStore(ctx, async (store) => {
    const org = await organisationNamed(store, given);
    const outcome = await importFile(store, {
      organisationId: org.id,
      kind,
      file,
      format,
      dryRun,
      stdin: ctx.io.stdin,
      // Drawn with \r on the terminal only; never in logs or pipes.
      progress: ctx.io.errIsTty ? (text) => void process.stderr.write(text) : undefined,
    }).catch((error: unknown) => {
      // The database refused the writes (read-only file, full disk, lost connection): one
      // line that names it and why, never "unexpected failure" and a stack trace.
      const { kind, label } = locateStore(ctx.global, ctx.io.env);
      const reason = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
      const problem = `import failed on the ${kind} database ${label}: ${reason}; nothing was written`;
      if (ctx.global.json) ctx.io.out(JSON.stringify({ ok: false, problems: [problem] }, null, 2));
      throw new CommandError(problem);
    });
    if (!outcome.ok) return failed(ctx, outcome, { stdin: file === "-" && format === undefined });
    const { rows, counts } = outcome;
    const holidays = outcome.publicHolidays ?? [];
    const json = { ok: true, dry_run: dryRun, rows, ...counts, public_holidays: holidays };
    report(ctx, json, () =>
      [
        `${dryRun ? "would import" : "imported"} ${rows} ${rows === 1 ? "row" : "rows"} of ${kind} into ${org.name}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.deleted} deleted`,
        ...holidays.map(describeReplacement),
        ...(dryRun ? ["dry run: nothing was written"] : []),
      ].join("\n"),
    );
  });
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
function failed(ctx: CommandContext, outcome: Extract<ImportOutcome, { ok: false }>, source: { stdin: boolean }): never {
  const { errors, invalidRows } = outcome;
  // Past a thousand, the problems are counted, not listed: the last line listed says how many more.
  const count = outcome.problemCount ?? errors.length;
  for (const line of errors) ctx.io.err(line);
  // Piped CSV read as the default JSON Lines fails on every line: say what to pass.
  const hint =
    source.stdin && errors.some((e) => e.includes("is not valid JSON"))
      ? "; stdin is read as JSON Lines: pass --format csv or --format json for other formats"
      : "";
  if (ctx.global.json) ctx.io.out(JSON.stringify({ ok: false, problems: errors, problem_count: count, invalid_rows: invalidRows }, null, 2));
  const problems = count === 1 ? "1 problem" : `${count} problems`;
  const rows = invalidRows > 0 ? ` in ${invalidRows === 1 ? "1 row" : `${invalidRows} rows`}` : "";
  throw new CommandError(`import failed: ${problems}${rows}; nothing was written${hint}`);
}
