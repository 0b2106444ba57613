/** `leaveapi migrate`: create or upgrade the schema (every other command does this too), and say which it did. */
import { migrationStatusOf } from "../../adapters/sql/sql-admin-store.ts";
import { parseCommandArgs, report, type Command } from "../cli-kit.ts";
import { locateStore, openMigratedStore } from "../open-store.ts";

const USAGE = "leaveapi migrate";

export const migrateCommand: Command = {
  name: "migrate",
  usage: USAGE,
  help: `usage: ${USAGE}

Creates the schema in an empty database or upgrades an older one, and says which it did.
Idempotent; every other command does the same before it starts, so this is for deploy
scripts.`,
  async run(ctx) {
    parseCommandArgs(ctx.args, {}, USAGE);
    const location = locateStore(ctx.global, ctx.io.env);
    let before = { applied: [] as string[], pending: [] as string[], bodiesStale: false };
    const store = await openMigratedStore(ctx, async (opened) => {
      before = await migrationStatusOf(opened);
    });
    await store.close();
    const created = before.applied.length === 0;
    const applied = before.pending;
    const bodiesRewritten = before.bodiesStale;
    const bodies = bodiesRewritten ? "; wrote every record's kept JSON again (what a record's JSON holds has changed)" : "";
    report(ctx, { database: location.kind, location: location.label, migrated: true, created, applied, bodies_rewritten: bodiesRewritten }, () =>
      created
        ? `created the schema in ${location.label} (${applied.length} migrations, up to ${applied.at(-1)})`
        : applied.length > 0
          ? `upgraded the schema of ${location.label}: ran ${applied.join(", ")}${bodies}`
          : bodiesRewritten
            ? `the schema of ${location.label} is up to date (${before.applied.at(-1)})${bodies}`
            : `the schema of ${location.label} is up to date (${before.applied.at(-1)}); nothing to do`,
    );
  },
};
