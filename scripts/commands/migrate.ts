/** `leaveapi migrate`: create or upgrade the schema (every other command does this too). */
import { parseCommandArgs, report, type Command } from "../cli-kit.ts";
import { locateStore, openMigratedStore } from "../open-store.ts";

export const migrateCommand: Command = {
  name: "migrate",
  usage: "leaveapi migrate",
  help: `usage: leaveapi migrate

Creates the schema in an empty database or upgrades an older one. Idempotent; every
other command does the same before it starts, so this is for deploy scripts.`,
  async run(ctx) {
    parseCommandArgs(ctx.args, {}, "leaveapi migrate");
    const location = locateStore(ctx.global, ctx.io.env);
    const store = await openMigratedStore(ctx.global, ctx.io.env);
    await store.close();
    report(ctx, { database: location.kind, location: location.label, migrated: true }, () => `schema of ${location.label} is up to date`);
  },
};
