/** `leaveapi credentials create|list|revoke|rotate` (docs/cli.md, "credentials"). */
import { digestSecret, mintClient, mintClientSecret, TOKEN_LIFETIME_SECONDS } from "../../lib/credentials.ts";
import { formatInstant } from "../../lib/dates.ts";
import { ALL_SCOPES, parseScopeList } from "../../lib/scopes.ts";
import { TOKEN_GRANT_TTL_MS } from "../../lib/token-grant-cache.ts";
import type { ApiClient, Store } from "../../lib/store.ts";
import type { AdminStore } from "../../lib/admin-store.ts";
import { clearedRestriction, describeRestriction, parseRestriction, restrictionJson, type CredentialRestriction } from "../../lib/restriction.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { organisationNamed, withMigratedStore } from "../open-store.ts";
import { clientsLastUsed } from "../../adapters/sql/sql-admin-store.ts";

const USAGES = {
  create:
    'leaveapi credentials create --org ORG_ID [--scopes "employees:read leave:read"] [--name LABEL] [--departments D1,D2] [--calendars C1,C2] [--fields F1,F2]',
  list: "leaveapi credentials list [--org ORG_ID] [--unused-days N]",
  revoke: "leaveapi credentials revoke CLIENT_ID",
  rotate: "leaveapi credentials rotate CLIENT_ID [--grace SECONDS]",
  restrict: "leaveapi credentials restrict CLIENT_ID [--departments D1,D2] [--calendars C1,C2] [--fields F1,F2] | --clear",
} as const;
const USAGE = Object.values(USAGES).join(" | ");

/** The longest grace period `rotate` gives the old secret: 30 days, time enough for any deployment. */
const MAX_GRACE_SECONDS = 30 * 86_400;

export function clientJson(c: ApiClient) {
  return {
    client_id: c.client_id,
    organisation_id: c.organisation_id,
    name: c.name,
    scopes: c.scopes,
    created_at: formatInstant(c.created_at),
    revoked_at: c.revoked_at === null ? null : formatInstant(c.revoked_at),
    restriction: restrictionJson(c.restriction),
  };
}

/** The lines that show a secret once, and say so. */
const secretLines = (clientId: string, secret: string, scopes: readonly string[]) => [
  `client_id:     ${clientId}`,
  `client_secret: ${secret}`,
  `scopes:        ${scopes.join(" ")}`,
  "The secret is shown only now: store it safely. It cannot be read back.",
];

async function create(ctx: CommandContext, args: string[]) {
  const { values } = parseCommandArgs(
    args,
    { org: { type: "string" }, scopes: { type: "string" }, name: { type: "string" }, ...RESTRICTION_FLAGS },
    USAGES.create,
  );
  // In force from the start: no sync was ever made under anything else (set_at 0).
  const restriction = restrictionGiven(values, 0, USAGES.create);
  const given = requireValue(values.org, "--org", USAGES.create);
  let scopes = [...ALL_SCOPES] as (typeof ALL_SCOPES)[number][];
  if (values.scopes !== undefined) {
    const parsed = parseScopeList(values.scopes);
    if (parsed.unknown.length > 0 || parsed.scopes.length === 0) {
      throw new UsageError(`--scopes takes a space-separated list of ${ALL_SCOPES.join(", ")}; got '${values.scopes}'`);
    }
    scopes = parsed.scopes;
  }
  await withMigratedStore(ctx, async (store) => {
    const org = await organisationNamed(store, given);
    const { client: minted, secret } = mintClient(org.id, scopes, values.name?.trim() || null, Date.now());
    if (restriction) checkRestrictable(store);
    const client = restriction ? { ...minted, restriction } : minted;
    await store.createClient(client);
    report(ctx, { ...clientJson(client), client_secret: secret }, () =>
      [
        ...secretLines(client.client_id, secret, client.scopes),
        ...(restriction ? [describeRestriction(restriction)] : []),
        ...(org.api_enabled ? [] : [`API access for ${org.name} is off: leaveapi org enable-api ${org.id}`]),
      ].join("\n"),
    );
  });
}

async function list(ctx: CommandContext, args: string[]) {
  const { values } = parseCommandArgs(args, { org: { type: "string" }, "unused-days": { type: "string" } }, USAGES.list);
  const unusedDays = values["unused-days"];
  if (unusedDays !== undefined && !/^\d{1,5}$/.test(unusedDays)) throw new UsageError(`--unused-days takes a whole number of days; got '${unusedDays}'`);
  await withMigratedStore(ctx, async (store) => {
    const org = values.org === undefined ? null : await organisationNamed(store, requireValue(values.org, "--org", USAGES.list));
    const lastUsed = await clientsLastUsed(store);
    const lastUseOf = (c: ApiClient) => lastUsed.get(c.client_id) ?? null;
    // With --unused-days: those that obtained no token in that many days (created before then, never used, included).
    const since = unusedDays === undefined ? null : Date.now() - Number(unusedDays) * 86_400_000;
    const clients = (org ? await store.listClients(org.id) : await store.listAllClients()).filter(
      (c) => since === null || (lastUseOf(c) ?? c.created_at) < since,
    );
    // Across organisations, each line names its organisation.
    const names = new Map((org ? [org] : await store.listOrganisations()).map((o) => [o.id, o.name]));
    const day = (at: number | null) => (at === null ? "never" : formatInstant(at).slice(0, 10));
    report(
      ctx,
      clients.map((c) => ({ ...clientJson(c), last_used_at: lastUseOf(c) === null ? null : formatInstant(lastUseOf(c)!) })),
      () =>
        clients.length === 0
          ? since === null
            ? "no credentials yet"
            : `no credentials unused for ${unusedDays} days`
          : clients
              .map((c) => {
                const owner = org ? "" : `  ${names.get(c.organisation_id) ?? c.organisation_id}`;
                const use = `created ${day(c.created_at)}, last used ${day(lastUseOf(c))}`;
                const limits = c.restriction ? `  ${describeRestriction(c.restriction)}` : "";
                return `${c.client_id}  ${c.revoked_at === null ? "live   " : "revoked"}${owner}  ${c.scopes.join(" ")}  ${use}${c.name ? `  ${c.name}` : ""}${limits}`;
              })
              .join("\n"),
    );
  });
}

async function revoke(ctx: CommandContext, args: string[]) {
  const { positionals } = parseCommandArgs(args, {}, USAGES.revoke, 1);
  const clientId = requireValue(positionals[0], "CLIENT_ID", USAGES.revoke);
  await withMigratedStore(ctx, async (store) => {
    const before = await store.findClient(clientId);
    const client = before && (await store.revokeClient(clientId, Date.now()));
    if (!client) throw new CommandError(`no credentials with client id ${clientId}`);
    report(ctx, clientJson(client), () =>
      before.revoked_at !== null
        ? `${client.client_id} is already revoked (since ${formatInstant(before.revoked_at)})`
        : `revoked ${client.client_id}: it can no longer obtain tokens, and its tokens stop working`,
    );
  });
}

function graceSeconds(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d{1,9}$/.test(text) || Number(text) > MAX_GRACE_SECONDS) {
    throw new UsageError(`--grace takes whole seconds from 0 to ${MAX_GRACE_SECONDS} (30 days); got '${text}'\nusage: ${USAGES.rotate}`);
  }
  return Number(text);
}

async function rotate(ctx: CommandContext, args: string[]) {
  const { values, positionals } = parseCommandArgs(args, { grace: { type: "string" } }, USAGES.rotate, 1);
  const clientId = requireValue(positionals[0], "CLIENT_ID", USAGES.rotate);
  const grace = graceSeconds(values.grace);
  await withMigratedStore(ctx, async (store) => {
    const current = await store.findClient(clientId);
    if (!current) throw new CommandError(`no credentials with client id ${clientId}`);
    if (current.revoked_at !== null) throw new CommandError(`${clientId} is revoked; revoked credentials are not rotated: create new ones`);
    const secret = mintClientSecret();
    const now = Date.now();
    const until = grace > 0 ? now + grace * 1000 : null;
    const client = await store.rotateClientSecret(clientId, digestSecret(secret), until);
    if (!client) throw new CommandError(`no credentials with client id ${clientId}`);
    const previous = until === null ? null : formatInstant(until);
    report(ctx, { ...clientJson(client), client_secret: secret, previous_secret_expires_at: previous }, () =>
      [
        ...secretLines(client.client_id, secret, client.scopes),
        previous === null ? "The old secret stopped working now." : `The old secret keeps working until ${previous} (${grace} s).`,
        `Tokens already issued keep working until they expire (at most ${TOKEN_LIFETIME_SECONDS / 3600} hour); revoke the credentials to end them within ${TOKEN_GRANT_TTL_MS / 1000} s.`,
      ].join("\n"),
    );
  });
}

const RESTRICTION_FLAGS = { departments: { type: "string" }, calendars: { type: "string" }, fields: { type: "string" } } as const;

/** The restriction the flags state, or undefined when none is given; bad lists are usage errors naming the flag. */
function restrictionGiven(
  values: { departments?: string; calendars?: string; fields?: string },
  now: number,
  usage: string,
): CredentialRestriction | undefined {
  if (values.departments === undefined && values.calendars === undefined && values.fields === undefined) return undefined;
  try {
    return parseRestriction(values, now);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${usage}`);
  }
}

/** A store that cannot follow a restriction (a host's, without `Store.restricted`) never gets one set. */
function checkRestrictable(
  store: Partial<Pick<Store, "restricted">> & Partial<Pick<AdminStore, "restrictClient">>,
): asserts store is { restrictClient: NonNullable<AdminStore["restrictClient"]> } {
  if (!store.restricted || !store.restrictClient) {
    throw new CommandError("this store cannot follow a credential restriction (it has no restricted reads, Store.restricted); credentials were not changed");
  }
}

async function restrict(ctx: CommandContext, args: string[]) {
  const { values, positionals } = parseCommandArgs(args, { ...RESTRICTION_FLAGS, clear: { type: "boolean" } }, USAGES.restrict, 1);
  const clientId = requireValue(positionals[0], "CLIENT_ID", USAGES.restrict);
  const now = Date.now();
  const given = restrictionGiven(values, now, USAGES.restrict);
  if (values.clear && given) throw new UsageError(`--clear takes no --departments, --calendars or --fields\nusage: ${USAGES.restrict}`);
  if (!values.clear && !given) throw new UsageError(`give --departments, --calendars or --fields, or --clear\nusage: ${USAGES.restrict}`);
  // Cleared, the row stays with no list: its instant still makes older syncs start afresh.
  const restriction = given ?? clearedRestriction(now);
  await withMigratedStore(ctx, async (store) => {
    checkRestrictable(store);
    const client = await store.restrictClient(clientId, restriction);
    if (!client) throw new CommandError(`no credentials with client id ${clientId}`);
    report(ctx, clientJson(client), () =>
      [
        `${client.client_id}: ${values.clear ? "restriction cleared: it reads the whole organisation" : describeRestriction(restriction)}`,
        `Its tokens follow within ${TOKEN_GRANT_TTL_MS / 1000} s; its syncs from before now answer 410 sync_expired, and it reads afresh.`,
      ].join("\n"),
    );
  });
}

const SUBCOMMAND_HELP: Record<keyof typeof USAGES, string> = {
  create: `usage: ${USAGES.create}

Mints a client id and secret for the organisation, with every scope unless --scopes names
fewer (employees:read, holidays:read, leave:read). --name is a label for your records.
The secret is shown once: only its SHA-256 digest is stored. --departments and
--calendars (comma-separated) limit the credentials to the employees whose department
and holiday calendar are in the lists (both, where both are given), and their leave and
holidays; --fields limits the employee fields they read (id and updated_at always; the
rest is null). docs/api.md, "Restricted credentials".`,
  list: `usage: ${USAGES.list}

Lists credentials, live and revoked, never their secrets: the organisation's with --org,
else every organisation's, each with when it was created and when it last obtained a token
(noted at most once a minute). --unused-days N lists only those that obtained no token in
the last N days (never used and created before then included): integrations that stopped
calling, to revoke. --json adds last_used_at (null: never).`,
  revoke: `usage: ${USAGES.revoke}

Stops the credentials obtaining tokens at once, and their live tokens within
${TOKEN_GRANT_TTL_MS / 1000} s on a running server (docs/api.md, "Using a token").
Already revoked: says so, exit 0.`,
  restrict: `usage: ${USAGES.restrict}

Sets the credentials' restriction (as create's --departments, --calendars, --fields: the
flags given replace the whole restriction), or --clear removes it. Live tokens follow
within ${TOKEN_GRANT_TTL_MS / 1000} s; the client's syncs and cursors from before answer 410 sync_expired
and 400, so it reads afresh under the new restriction.`,
  rotate: `usage: ${USAGES.rotate}

Gives the credentials a new secret, shown once; the client id and scopes stay. The old
secret keeps obtaining tokens for --grace seconds (default 0: it stops at once; at most
${MAX_GRACE_SECONDS}), time to deploy the new one. Tokens already issued keep working until
they expire.`,
};

export const credentialsCommand: Command = {
  name: "credentials",
  usage: USAGE,
  help: `usage:
  ${USAGES.create}
      mint a client id and secret (all scopes unless --scopes says fewer); the secret is shown once
  ${USAGES.list}
      list credentials, the organisation's or every organisation's (never their secrets)
  ${USAGES.revoke}
      stop the credentials obtaining tokens at once, and their live tokens within ${TOKEN_GRANT_TTL_MS / 1000} s
  ${USAGES.rotate}
      a new secret for the same client id; the old one works for the grace period (default 0)
  ${USAGES.restrict}
      limit the credentials to some departments, calendars and employee fields, or --clear

'leaveapi credentials SUBCOMMAND --help' for one subcommand's help.`,
  subcommandHelp: SUBCOMMAND_HELP,
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case "create":
        return create(ctx, rest);
      case "list":
        return list(ctx, rest);
      case "revoke":
        return revoke(ctx, rest);
      case "rotate":
        return rotate(ctx, rest);
      case "restrict":
        return restrict(ctx, rest);
      default:
        throw new UsageError(`${sub === undefined ? "missing" : "unknown"} credentials subcommand${sub ? ` '${sub}'` : ""}\nusage: ${USAGE}`);
    }
  },
};
