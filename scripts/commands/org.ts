/** `leaveapi org create|list|rename|delete|enable-api|disable-api` (docs/cli.md, "org"). */
import { TOKEN_GRANT_TTL_MS } from "../../lib/token-grant-cache.ts";
import type { OrganisationContents } from "../../lib/admin-store.ts";
import { formatInstant } from "../../lib/dates.ts";
import { randomUuid } from "../../lib/ids.ts";
import type { Organisation } from "../../lib/store.ts";
import type { SqlAdminStore } from "../../adapters/sql/sql-admin-store.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { organisationNamed, withMigratedStore } from "../open-store.ts";

const USAGES = {
  create: "leaveapi org create --name NAME [--allow-duplicate]",
  list: "leaveapi org list",
  rename: "leaveapi org rename ORG_ID --name NAME [--allow-duplicate]",
  delete: "leaveapi org delete ORG_ID [--yes]",
  "enable-api": "leaveapi org enable-api ORG_ID",
  "disable-api": "leaveapi org disable-api ORG_ID",
} as const;
const USAGE = Object.values(USAGES).join(" | ");

export function organisationJson(org: Organisation) {
  return { id: org.id, name: org.name, api_enabled: org.api_enabled, created_at: formatInstant(org.created_at) };
}

/** Names are compared trimmed and in any letter case: "Acme Ltd" and "acme ltd " are the same organisation to a person. */
const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Refuses a name another organisation has, unless --allow-duplicate (docs/cli.md, "org"). */
async function refuseDuplicate(store: SqlAdminStore, name: string, except: string | null, allowed: boolean | undefined): Promise<void> {
  if (allowed) return;
  const other = (await store.listOrganisations()).find((o) => o.id !== except && sameName(o.name, name));
  if (other) throw new CommandError(`an organisation named "${other.name}" exists already (${other.id}); pass --allow-duplicate to have two`);
}

const NAME_OPTIONS = { name: { type: "string" }, "allow-duplicate": { type: "boolean" } } as const;

async function create(ctx: CommandContext, args: string[]) {
  const { values } = parseCommandArgs(args, NAME_OPTIONS, USAGES.create);
  const name = requireValue(values.name?.trim(), "--name", USAGES.create);
  await withMigratedStore(ctx, async (store) => {
    await refuseDuplicate(store, name, null, values["allow-duplicate"]);
    const org: Organisation = { id: randomUuid(), name, api_enabled: false, created_at: Date.now() };
    await store.createOrganisation(org);
    report(ctx, organisationJson(org), () => `created organisation ${org.id} (${org.name}); API access is off until 'leaveapi org enable-api ${org.id}'`);
  });
}

async function list(ctx: CommandContext, args: string[]) {
  parseCommandArgs(args, {}, USAGES.list);
  await withMigratedStore(ctx, async (store) => {
    const orgs = await store.listOrganisations();
    report(ctx, orgs.map(organisationJson), () =>
      orgs.length === 0
        ? "no organisations yet: leaveapi org create --name NAME"
        : orgs.map((o) => `${o.id}  api ${o.api_enabled ? "on " : "off"}  ${o.name}`).join("\n"),
    );
  });
}

async function rename(ctx: CommandContext, args: string[]) {
  const { values, positionals } = parseCommandArgs(args, NAME_OPTIONS, USAGES.rename, 1);
  const given = requireValue(positionals[0], "ORG_ID", USAGES.rename);
  const name = requireValue(values.name?.trim(), "--name", USAGES.rename);
  await withMigratedStore(ctx, async (store) => {
    const org = await organisationNamed(store, given);
    if (org.name === name) {
      report(ctx, organisationJson(org), () => `${org.id} is already named ${org.name}`);
      return;
    }
    await refuseDuplicate(store, name, org.id, values["allow-duplicate"]);
    const renamed = (await store.renameOrganisation(org.id, name)) ?? org;
    report(ctx, organisationJson(renamed), () => `renamed ${org.id} from ${org.name} to ${renamed.name}`);
  });
}

const CONTENT_NOUNS: [keyof OrganisationContents, string, string][] = [
  ["employees", "employee", "employees"],
  ["leave_bookings", "leave booking", "leave bookings"],
  ["leave_types", "leave type", "leave types"],
  ["closure_days", "closure day", "closure days"],
  ["public_holidays", "imported public holiday", "imported public holidays"],
  ["clients", "set of credentials", "sets of credentials"],
  ["tokens", "access token", "access tokens"],
];

/** "3 employees, 1 leave booking, …": every count, zeros included, so nothing reads as left out. */
export function describeContents(contents: OrganisationContents): string {
  return CONTENT_NOUNS.map(([key, one, many]) => `${contents[key].toLocaleString("en")} ${contents[key] === 1 ? one : many}`).join(", ");
}

async function remove(ctx: CommandContext, args: string[]) {
  const { values, positionals } = parseCommandArgs(args, { yes: { type: "boolean" } }, USAGES.delete, 1);
  const given = requireValue(positionals[0], "ORG_ID", USAGES.delete);
  await withMigratedStore(ctx, async (store) => {
    const org = await organisationNamed(store, given);
    if (!values.yes) {
      const contents = await store.countOrganisationContents(org.id);
      if (!contents) throw new CommandError(`no organisation with id ${given}`);
      report(ctx, { organisation: organisationJson(org), deleted: false, contents }, () => `${org.name} (${org.id}) holds ${describeContents(contents)}`);
      throw new CommandError(`nothing was deleted; run 'leaveapi org delete ${org.id} --yes' to delete all of it for good`);
    }
    const deleted = await store.deleteOrganisation(org.id);
    if (!deleted) throw new CommandError(`no organisation with id ${given}`);
    report(
      ctx,
      { organisation: organisationJson(org), deleted: true, contents: deleted },
      () => `deleted ${org.name} (${org.id}) for good: ${describeContents(deleted)}; its credentials and tokens stopped working`,
    );
  });
}

async function setApi(ctx: CommandContext, args: string[], enabled: boolean) {
  const usage = USAGES[enabled ? "enable-api" : "disable-api"];
  const { positionals } = parseCommandArgs(args, {}, usage, 1);
  const given = requireValue(positionals[0], "ORG_ID", usage);
  await withMigratedStore(ctx, async (store) => {
    const before = await organisationNamed(store, given);
    // Switching off what is off still runs: it is what revokes any token for good.
    await store.setApiEnabled(before.id, enabled);
    const org = (await store.findOrganisation(before.id)) ?? before;
    const state = enabled ? "on" : "off";
    report(ctx, organisationJson(org), () =>
      before.api_enabled === enabled ? `API access for ${org.name} (${org.id}) is already ${state}` : `API access for ${org.name} (${org.id}) is now ${state}`,
    );
  });
}

const SUBCOMMAND_HELP: Record<keyof typeof USAGES, string> = {
  create: `usage: ${USAGES.create}

Creates an organisation with a new id; its API access starts off. A name another
organisation has already (in any letter case) is refused unless --allow-duplicate.`,
  list: `usage: ${USAGES.list}

Lists every organisation: id, whether its API access is on, name.`,
  rename: `usage: ${USAGES.rename}

Renames the organisation; its id, data and credentials stay. A name another organisation
has already is refused unless --allow-duplicate.`,
  delete: `usage: ${USAGES.delete}

Without --yes, prints what the organisation holds and exits 1, deleting nothing. With
--yes, deletes the organisation with all its employees, leave, leave types, closure days,
imported public holidays, credentials and tokens, in one transaction, for good: new tokens
are refused at once, tokens already held stop working within ${TOKEN_GRANT_TTL_MS / 1000} s.`,
  "enable-api": `usage: ${USAGES["enable-api"]}

Lets the organisation's credentials obtain tokens. Already on: says so, exit 0.`,
  "disable-api": `usage: ${USAGES["disable-api"]}

Refuses new tokens at once and revokes the organisation's live tokens for good: a running
server stops honouring them within ${TOKEN_GRANT_TTL_MS / 1000} s, and enabling again brings
none back. Already off: says so, exit 0.`,
};

export const orgCommand: Command = {
  name: "org",
  usage: USAGE,
  help: `usage:
  ${USAGES.create.padEnd(58)} create an organisation (API access starts off)
  ${USAGES.list.padEnd(58)} list organisations
  ${USAGES.rename.padEnd(58)} rename an organisation
  ${USAGES.delete.padEnd(58)} delete it and all its data (--yes)
  ${USAGES["enable-api"].padEnd(58)} let its credentials obtain tokens
  ${USAGES["disable-api"].padEnd(58)} refuse new tokens, revoke live ones

'leaveapi org SUBCOMMAND --help' for one subcommand's help.`,
  subcommandHelp: SUBCOMMAND_HELP,
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case "create":
        return create(ctx, rest);
      case "list":
        return list(ctx, rest);
      case "rename":
        return rename(ctx, rest);
      case "delete":
        return remove(ctx, rest);
      case "enable-api":
        return setApi(ctx, rest, true);
      case "disable-api":
        return setApi(ctx, rest, false);
      default:
        throw new UsageError(`${sub === undefined ? "missing" : "unknown"} org subcommand${sub ? ` '${sub}'` : ""}\nusage: ${USAGE}`);
    }
  },
};
