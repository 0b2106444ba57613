/**
 * `leaveapi erase --org ORG_ID --employee ID|EXTERNAL_ID [--yes]`: one person's data gone
 * at once, as an erasure request (GDPR Art. 17) asks (docs/api.md, "Personal data"; docs/cli.md, "erase").
 * The employee and all their bookings are deleted in one import transaction, as a
 * `deleted: true` row deletes them: tombstones written so that syncing clients drop them,
 * nothing of them kept in the tables, and then what they left in the database's files
 * cleared (adapters/sql/erasure.ts).
 */
import { isUuid } from "../../lib/ids.ts";
import { CommandError, parseCommandArgs, report, requireValue, type Command } from "../cli-kit.ts";
import { importDerivedId } from "../import/derived-ids.ts";
import { locateStore, organisationNamed, withMigratedStore } from "../open-store.ts";
import { announced, sayWaiting } from "../writer-wait.ts";

const USAGE = "leaveapi erase --org ORG_ID --employee ID|EXTERNAL_ID [--yes]";

export const eraseCommand: Command = {
  name: "erase",
  usage: USAGE,
  help: `usage: ${USAGE}

Erases one employee and all their leave bookings, for good: for an erasure request or a
retention rule. The employee is named by their id, or by the external id the import
gave them (the HR system's id).

Without --yes, prints who would be erased and how many bookings they have, and exits 1,
erasing nothing. With --yes, deletes them in one transaction: clients that sync see them
in the deletions feed (GET /v1/deletions) and drop them; nothing of them is kept in the
database, and on SQLite the write-ahead log is checkpointed and truncated (on Postgres the
tables are vacuumed), so their names and dates are in no byte of the database files. A
server that is running keeps running. Backups made before hold them until they expire
(docs/install.md, "Backups and personal data").

With --json: {"erased": true|false, "employee": {"id", "external_id"}, "bookings": N,
"files_cleared": true|false}.`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.args, { org: { type: "string" }, employee: { type: "string" }, yes: { type: "boolean" } }, USAGE);
    const given = requireValue(values.org, "--org", USAGE);
    const key = requireValue(values.employee?.trim(), "--employee", USAGE);
    await withMigratedStore(ctx, async (store) => {
      const org = await organisationNamed(store, given);
      // An id as given; an external id as stored, or as the id an import derived from it.
      const ids = isUuid(key) ? [key.toLowerCase()] : [importDerivedId(org.id, "employee", key)];
      const target = await store.findEmployeeForErasure(org.id, { ids, externalId: isUuid(key) ? null : key });
      if (target === null) throw new CommandError(`no employee ${JSON.stringify(key)} in ${org.name} (by id or external id); nothing was erased`);
      const who = [target.first_name, target.last_name].filter(Boolean).join(" ") || "(no name)";
      const bookings = `${target.bookings.toLocaleString("en")} leave ${target.bookings === 1 ? "booking" : "bookings"}`;
      const employee = { id: target.id, external_id: target.external_id };
      if (!values.yes) {
        report(ctx, { erased: false, employee, bookings: target.bookings }, () => `would erase ${who} (${target.id}) of ${org.name} and their ${bookings}`);
        throw new CommandError(`nothing was erased; run 'leaveapi erase --org ${org.id} --employee ${target.id} --yes' to erase them for good`);
      }
      const onWait = await sayWaiting(store, ctx.io, `erasing ${target.id}`);
      await announced(store, `the erasure of an employee of ${org.name}`, () =>
        store.runImport((writer) => writer.deleteEmployees(org.id, [target.id], Date.now()), {
          onWait,
        }),
      );
      // The import cleared the files already (a second vacuum would double the cost on
      // Postgres); only a checkpoint it had to leave owed is tried once more.
      const { complete } = await store.scrubDeleted({ onlyIfOwed: true });
      const { kind } = locateStore(ctx.global, ctx.io.env);
      report(ctx, { erased: true, employee, bookings: target.bookings, files_cleared: complete }, () =>
        [
          `erased ${target.id} of ${org.name} and their ${bookings}; clients that sync drop them`,
          complete
            ? kind === "sqlite"
              ? "the database file and its write-ahead log no longer hold them"
              : "the tables were vacuumed"
            : "the write-ahead log could not be truncated yet (a reader holds it): 'leaveapi serve' does it when it can",
        ].join("\n"),
      );
    });
  },
};
