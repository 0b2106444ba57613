/** `leaveapi import --org ORG_ID --kind employees|leave|holidays [--format jsonl|json|csv] FILE` (docs/cli.md, "The import format"). */
import { isUuid } from "../../lib/ids.ts";
import { StoreUnavailableError } from "../../lib/errors.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command } from "../cli-kit.ts";
import { IMPORT_KINDS, importFile, type ImportFormat, type ImportKind } from "../import/import-file.ts";
import { IMPORT_FORMATS } from "../import/source.ts";
import { locateStore, openMigratedStore } from "../open-store.ts";

const USAGE = "leaveapi import --org ORG_ID --kind employees|leave|holidays [--format jsonl|json|csv] FILE";

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

Every invalid row is reported on stderr as FILE:LINE: field: what is wrong, and then
nothing is written. Importing the same data again changes nothing.`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(ctx.args, { org: { type: "string" }, kind: { type: "string" }, format: { type: "string" } }, USAGE, 1);
    const orgId = requireValue(values.org, "--org", USAGE).toLowerCase();
    const kind: ImportKind = oneOf(requireValue(values.kind, "--kind", USAGE), IMPORT_KINDS, "--kind");
    const format: ImportFormat | undefined = values.format === undefined ? undefined : oneOf(values.format, IMPORT_FORMATS, "--format");
    const file = requireValue(positionals[0], "FILE (a path, or - for stdin)", USAGE);
    const store = await openMigratedStore(ctx.global, ctx.io.env);
    try {
      const org = isUuid(orgId) ? await store.findOrganisation(orgId) : null;
      if (!org) throw new CommandError(`no organisation with id ${values.org}`);
      const outcome = await importFile(store, {
        organisationId: org.id,
        kind,
        file,
        format,
        stdin: ctx.io.stdin,
        // Drawn with \r on the terminal only; never in logs or pipes.
        progress: ctx.io.errIsTty ? (text) => void process.stderr.write(text) : undefined,
      }).catch((error: unknown) => {
        // The database refused the writes (read-only file, full disk, lost connection): one
        // line that names it and why, never "unexpected failure" and a stack trace.
        const { kind, label } = locateStore(ctx.global, ctx.io.env);
        const reason = error instanceof StoreUnavailableError && error.cause instanceof Error ? error.cause.message : (error as Error).message;
        throw new CommandError(`import failed on the ${kind} database ${label}: ${reason}; nothing was written`);
      });
      if (!outcome.ok) {
        // A lone file-level problem is the whole story; otherwise list every error, then sum up.
        if (outcome.errors.length === 1 && outcome.invalidRows === 0) throw new CommandError(`${outcome.errors[0]}; nothing was written`);
        for (const line of outcome.errors) ctx.io.err(line);
        const rows = outcome.invalidRows === 1 ? "1 invalid row" : `${outcome.invalidRows} invalid rows`;
        throw new CommandError(`import failed: ${rows}; nothing was written`);
      }
      const { rows, counts } = outcome;
      report(
        ctx,
        { rows, ...counts },
        () =>
          `imported ${rows} ${rows === 1 ? "row" : "rows"} of ${kind} into ${org.name}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.deleted} deleted`,
      );
    } finally {
      await store.close();
    }
  },
};
