/** `leaveapi org create|list|enable-api|disable-api`. */
import { randomUuid } from "../../lib/ids.ts";
import { formatInstant } from "../../lib/dates.ts";
import type { Organisation } from "../../lib/store.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { openMigratedStore } from "../open-store.ts";
import { isUuid } from "../../lib/ids.ts";

const USAGE = "leaveapi org create --name NAME | org list | org enable-api ORG_ID | org disable-api ORG_ID";

export function organisationJson(org: Organisation) {
  return { id: org.id, name: org.name, api_enabled: org.api_enabled, created_at: formatInstant(org.created_at) };
}

async function create(ctx: CommandContext, args: string[]) {
  const usage = "leaveapi org create --name NAME";
  const { values } = parseCommandArgs(args, { name: { type: "string" } }, usage);
  const name = requireValue(values.name?.trim(), "--name", usage);
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    const org: Organisation = { id: randomUuid(), name, api_enabled: false, created_at: Date.now() };
    await store.createOrganisation(org);
    report(ctx, organisationJson(org), () => `created organisation ${org.id} (${org.name}); API access is off until 'leaveapi org enable-api ${org.id}'`);
  } finally {
    await store.close();
  }
}

async function list(ctx: CommandContext, args: string[]) {
  parseCommandArgs(args, {}, "leaveapi org list");
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    const orgs = await store.listOrganisations();
    report(ctx, orgs.map(organisationJson), () =>
      orgs.length === 0
        ? "no organisations yet: leaveapi org create --name NAME"
        : orgs.map((o) => `${o.id}  api ${o.api_enabled ? "on " : "off"}  ${o.name}`).join("\n"),
    );
  } finally {
    await store.close();
  }
}

async function setApi(ctx: CommandContext, args: string[], enabled: boolean) {
  const usage = `leaveapi org ${enabled ? "enable-api" : "disable-api"} ORG_ID`;
  const { positionals } = parseCommandArgs(args, {}, usage, 1);
  const id = requireValue(positionals[0], "ORG_ID", usage).toLowerCase();
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    if (!isUuid(id) || !(await store.setApiEnabled(id, enabled))) throw new CommandError(`no organisation with id ${positionals[0]}`);
    const org = (await store.findOrganisation(id))!;
    report(ctx, organisationJson(org), () => `API access for ${org.name} (${org.id}) is now ${enabled ? "on" : "off"}`);
  } finally {
    await store.close();
  }
}

export const orgCommand: Command = {
  name: "org",
  usage: USAGE,
  help: `usage:
  leaveapi org create --name NAME     create an organisation (API access starts off)
  leaveapi org list                   list organisations
  leaveapi org enable-api ORG_ID      let the organisation's credentials obtain tokens
  leaveapi org disable-api ORG_ID     refuse new tokens and revoke live ones for good`,
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case "create":
        return create(ctx, rest);
      case "list":
        return list(ctx, rest);
      case "enable-api":
        return setApi(ctx, rest, true);
      case "disable-api":
        return setApi(ctx, rest, false);
      default:
        throw new UsageError(`${sub === undefined ? "missing" : `unknown`} org subcommand${sub ? ` '${sub}'` : ""}\nusage: ${USAGE}`);
    }
  },
};
