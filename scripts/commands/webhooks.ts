/** `leaveapi webhooks add|list|remove|test` (docs/cli.md, "webhooks"; docs/api.md, "Change notifications"). */
import { formatInstant } from "../../lib/dates.ts";
import { randomUuid } from "../../lib/ids.ts";
import { mintWebhookSecret, mintEventId, signedHeaders, testEventBody, webhookUrlProblem, type WebhookEndpoint } from "../../lib/webhooks.ts";
import { webhooksOf } from "../../adapters/sql/webhook-queries.ts";
import { nodeHmacSha256 } from "../../adapters/node-crypto.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { organisationNamed, withMigratedStore } from "../open-store.ts";
import { postEvent } from "../serve/webhook-delivery.ts";

const USAGES = {
  add: "leaveapi webhooks add --client CLIENT_ID --url URL",
  list: "leaveapi webhooks list [--org ORG_ID | --client CLIENT_ID]",
  remove: "leaveapi webhooks remove ID",
  test: "leaveapi webhooks test ID",
} as const;
const USAGE = Object.values(USAGES).join(" | ");

const at = (ms: number | null) => (ms === null ? null : formatInstant(ms));

export function endpointJson(e: WebhookEndpoint) {
  return {
    id: e.id,
    client_id: e.client_id,
    organisation_id: e.organisation_id,
    url: e.url,
    created_at: formatInstant(e.created_at),
    state: e.failing_since !== null ? "failing" : e.pending ? "retrying" : "ok",
    pending_attempts: e.pending?.attempts ?? 0,
    next_attempt_at: at(e.pending?.next_attempt_at ?? null),
    failing_since: at(e.failing_since),
    last_error: e.last_error,
    last_error_at: at(e.last_error_at),
    last_success_at: at(e.last_success_at),
  };
}

async function add(ctx: CommandContext, args: string[]) {
  const { values } = parseCommandArgs(args, { client: { type: "string" }, url: { type: "string" } }, USAGES.add);
  const clientId = requireValue(values.client, "--client", USAGES.add);
  const url = requireValue(values.url, "--url", USAGES.add);
  const problem = webhookUrlProblem(url);
  if (problem) throw new UsageError(`--url: ${problem}\nusage: ${USAGES.add}`);
  await withMigratedStore(ctx, async (store) => {
    const client = await store.findClient(clientId);
    if (!client) throw new CommandError(`no credentials with client id ${clientId}`);
    if (client.revoked_at !== null) throw new CommandError(`${clientId} is revoked; a revoked credential has no endpoints`);
    const secret = mintWebhookSecret();
    const endpoint = await webhooksOf(store).add({
      id: randomUuid(),
      client_id: client.client_id,
      organisation_id: client.organisation_id,
      url,
      secret,
      created_at: Date.now(),
    });
    report(ctx, { ...endpointJson(endpoint), secret }, () =>
      [
        `id:     ${endpoint.id}`,
        `url:    ${endpoint.url}`,
        `secret: ${secret}`,
        "The secret is shown only now: the receiver verifies each notification with it (Standard Webhooks). It cannot be read back.",
        "Notifications are sent by 'leaveapi serve'; 'leaveapi webhooks test ID' sends one now.",
      ].join("\n"),
    );
  });
}

async function list(ctx: CommandContext, args: string[]) {
  const { values } = parseCommandArgs(args, { org: { type: "string" }, client: { type: "string" } }, USAGES.list);
  if (values.org !== undefined && values.client !== undefined) throw new UsageError(`give --org or --client, not both\nusage: ${USAGES.list}`);
  await withMigratedStore(ctx, async (store) => {
    let clientIds: string[] | null = null;
    if (values.client !== undefined) {
      if (!(await store.findClient(values.client))) throw new CommandError(`no credentials with client id ${values.client}`);
      clientIds = [values.client];
    } else if (values.org !== undefined) {
      const org = await organisationNamed(store, requireValue(values.org, "--org", USAGES.list));
      clientIds = (await store.listClients(org.id)).map((c) => c.client_id);
    }
    const endpoints = (await webhooksOf(store).list(clientIds)).map(endpointJson);
    report(ctx, endpoints, () =>
      endpoints.length === 0
        ? "no webhook endpoints"
        : endpoints
            .map((e) => {
              const error = e.last_error ? `  last error ${e.last_error_at}: ${e.last_error}` : "";
              const since = e.failing_since ? ` since ${e.failing_since}` : "";
              return `${e.id}  ${e.client_id}  ${e.state}${since}  ${e.url}${error}`;
            })
            .join("\n"),
    );
  });
}

function endpointId(args: string[], usage: string): string {
  const { positionals } = parseCommandArgs(args, {}, usage, 1);
  return requireValue(positionals[0], "ID", usage);
}

async function remove(ctx: CommandContext, args: string[]) {
  const id = endpointId(args, USAGES.remove);
  await withMigratedStore(ctx, async (store) => {
    if (!(await webhooksOf(store).remove(id))) throw new CommandError(`no webhook endpoint with id ${id}`);
    report(ctx, { id, removed: true }, () => `removed webhook endpoint ${id}: it is sent nothing more`);
  });
}

/** Sends one signed test event now, from this command, and says what the receiver answered. */
async function test(ctx: CommandContext, args: string[]) {
  const id = endpointId(args, USAGES.test);
  await withMigratedStore(ctx, async (store) => {
    const endpoint = await webhooksOf(store).find(id);
    if (!endpoint) throw new CommandError(`no webhook endpoint with id ${id}`);
    const now = Date.now();
    const eventId = mintEventId();
    const body = testEventBody(endpoint.organisation_id, endpoint.id, now);
    const result = await postEvent(endpoint.url, signedHeaders(endpoint.secret, eventId, now, body, nodeHmacSha256), body);
    const outcome = { id, url: endpoint.url, webhook_id: eventId, delivered: result.ok, status: result.status, error: result.error, ms: result.ms };
    if (!result.ok && ctx.global.json) ctx.io.out(JSON.stringify(outcome));
    if (!result.ok) throw new CommandError(`test event to ${endpoint.url} not delivered: ${result.error}`);
    report(ctx, outcome, () => `delivered a test event to ${endpoint.url}: HTTP ${result.status} in ${result.ms} ms`);
  });
}

export const webhooksCommand: Command = {
  name: "webhooks",
  usage: USAGE,
  help: `usage:
  ${USAGES.add}
      notify this credential's receiver when what it can read changes; prints the signing secret once
  ${USAGES.list}
      list endpoints, with their state (ok, retrying, failing) and last error (never their secrets)
  ${USAGES.remove}
      stop notifying an endpoint
  ${USAGES.test}
      send one signed leaveapi.webhook.test event now and print the receiver's answer

'leaveapi serve' sends the notifications: at least once, retried with backoff for 24 h.`,
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case "add":
        return add(ctx, rest);
      case "list":
        return list(ctx, rest);
      case "remove":
        return remove(ctx, rest);
      case "test":
        return test(ctx, rest);
      default:
        throw new UsageError(`${sub === undefined ? "missing" : "unknown"} webhooks subcommand${sub ? ` '${sub}'` : ""}\nusage: ${USAGE}`);
    }
  },
};
