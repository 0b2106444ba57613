/** `leaveapi credentials create|list|revoke`. */
import { mintClient } from "../../lib/credentials.ts";
import { formatInstant } from "../../lib/dates.ts";
import { isUuid } from "../../lib/ids.ts";
import { ALL_SCOPES, parseScopeList } from "../../lib/scopes.ts";
import type { ApiClient } from "../../lib/store.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { openMigratedStore } from "../open-store.ts";

const USAGE =
  'leaveapi credentials create --org ORG_ID [--scopes "employees:read leave:read"] [--name LABEL] | credentials list --org ORG_ID | credentials revoke CLIENT_ID';

export function clientJson(c: ApiClient) {
  return {
    client_id: c.client_id,
    organisation_id: c.organisation_id,
    name: c.name,
    scopes: c.scopes,
    created_at: formatInstant(c.created_at),
    revoked_at: c.revoked_at === null ? null : formatInstant(c.revoked_at),
  };
}

async function create(ctx: CommandContext, args: string[]) {
  const usage = 'leaveapi credentials create --org ORG_ID [--scopes "employees:read leave:read"] [--name LABEL]';
  const { values } = parseCommandArgs(args, { org: { type: "string" }, scopes: { type: "string" }, name: { type: "string" } }, usage);
  const orgId = requireValue(values.org, "--org", usage).toLowerCase();
  let scopes = [...ALL_SCOPES] as (typeof ALL_SCOPES)[number][];
  if (values.scopes !== undefined) {
    const parsed = parseScopeList(values.scopes);
    if (parsed.unknown.length > 0 || parsed.scopes.length === 0) {
      throw new UsageError(`--scopes takes a space-separated list of ${ALL_SCOPES.join(", ")}; got '${values.scopes}'`);
    }
    scopes = parsed.scopes;
  }
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    const org = isUuid(orgId) ? await store.findOrganisation(orgId) : null;
    if (!org) throw new CommandError(`no organisation with id ${values.org}`);
    const { client, secret } = mintClient(org.id, scopes, values.name?.trim() || null, Date.now());
    await store.createClient(client);
    report(ctx, { ...clientJson(client), client_secret: secret }, () =>
      [
        `client_id:     ${client.client_id}`,
        `client_secret: ${secret}`,
        `scopes:        ${client.scopes.join(" ")}`,
        "The secret is shown only now: store it safely. It cannot be read back.",
        ...(org.api_enabled ? [] : [`API access for ${org.name} is off: leaveapi org enable-api ${org.id}`]),
      ].join("\n"),
    );
  } finally {
    await store.close();
  }
}

async function list(ctx: CommandContext, args: string[]) {
  const usage = "leaveapi credentials list --org ORG_ID";
  const { values } = parseCommandArgs(args, { org: { type: "string" } }, usage);
  const orgId = requireValue(values.org, "--org", usage).toLowerCase();
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    if (!isUuid(orgId) || !(await store.findOrganisation(orgId))) throw new CommandError(`no organisation with id ${values.org}`);
    const clients = await store.listClients(orgId);
    report(ctx, clients.map(clientJson), () =>
      clients.length === 0
        ? "no credentials yet"
        : clients
            .map((c) => `${c.client_id}  ${c.revoked_at === null ? "live   " : "revoked"}  ${c.scopes.join(" ")}${c.name ? `  ${c.name}` : ""}`)
            .join("\n"),
    );
  } finally {
    await store.close();
  }
}

async function revoke(ctx: CommandContext, args: string[]) {
  const usage = "leaveapi credentials revoke CLIENT_ID";
  const { positionals } = parseCommandArgs(args, {}, usage, 1);
  const clientId = requireValue(positionals[0], "CLIENT_ID", usage);
  const store = await openMigratedStore(ctx.global, ctx.io.env);
  try {
    const client = await store.revokeClient(clientId, Date.now());
    if (!client) throw new CommandError(`no credentials with client id ${clientId}`);
    report(ctx, clientJson(client), () => `revoked ${client.client_id}: it can no longer obtain tokens, and its tokens stop working`);
  } finally {
    await store.close();
  }
}

export const credentialsCommand: Command = {
  name: "credentials",
  usage: USAGE,
  help: `usage:
  leaveapi credentials create --org ORG_ID [--scopes "employees:read holidays:read leave:read"] [--name LABEL]
      mint a client id and secret (all scopes unless --scopes says fewer); the secret is shown once
  leaveapi credentials list --org ORG_ID
      list the organisation's credentials (never their secrets)
  leaveapi credentials revoke CLIENT_ID
      stop the credentials obtaining tokens, and stop their live tokens at once`,
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case "create":
        return create(ctx, rest);
      case "list":
        return list(ctx, rest);
      case "revoke":
        return revoke(ctx, rest);
      default:
        throw new UsageError(`${sub === undefined ? "missing" : "unknown"} credentials subcommand${sub ? ` '${sub}'` : ""}\nusage: ${USAGE}`);
    }
  },
};
