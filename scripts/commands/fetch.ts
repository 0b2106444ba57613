/**
 * `leaveapi fetch`: for integrators. Reads one endpoint of a running leaveapi through the
 * official client (client/) and writes every record to JSON Lines or CSV, paging through;
 * with `--state FILE`, only what changed and what was deleted since the previous run (the
 * sync recipe of docs/api.md, "Incremental sync"; the output as docs/cli.md, "fetch", says).
 * Talks HTTP only: the global --db / --database-url do not apply.
 */
import { LeaveApiError, createClient, syncPoint, type Deletion, type LeaveApiClient } from "../../client/index.ts";
import { LEAVE_STATUSES } from "../../lib/records.ts";
import { CommandError, UsageError, parseCommandArgs, report, requireValue, type Command, type CommandContext } from "../cli-kit.ts";
import { createLineFormatter, fileSink, stdoutSink, type FetchFormat, type FetchResource } from "../fetch/record-writer.ts";
import { checkStateMatches, readState, writeState } from "../fetch/state-file.ts";
import { createProgressLine } from "../import/progress.ts";

const USAGE =
  "leaveapi fetch --url URL [--client-id ID] [--client-secret SECRET] employees|leave|holidays [--from DATE --to DATE] [--status S] [--format jsonl|csv] [--output FILE] [--state FILE]";

const FLAGS = {
  url: { type: "string" },
  "client-id": { type: "string" },
  "client-secret": { type: "string" },
  scope: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  status: { type: "string" },
  "employee-id": { type: "string" },
  calendar: { type: "string" },
  type: { type: "string" },
  "updated-since": { type: "string" },
  limit: { type: "string" },
  format: { type: "string" },
  output: { type: "string" },
  state: { type: "string" },
  skew: { type: "string" },
} as const;

type Flag = keyof typeof FLAGS;

/** The filters each resource takes; any other filter flag is bad usage. */
const FILTERS: Record<FetchResource, Flag[]> = {
  employees: ["status", "updated-since", "limit", "state", "skew"],
  leave: ["from", "to", "status", "employee-id", "updated-since", "limit", "state", "skew"],
  holidays: ["from", "to", "calendar", "type"],
};
const FILTER_FLAGS: Flag[] = ["from", "to", "status", "employee-id", "calendar", "type", "updated-since", "limit", "state", "skew"];

const usage = (message: string) => new UsageError(`${message}\nusage: ${USAGE}`);

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw usage(`${what} must be one of ${allowed.join(", ")}, not '${value}'`);
  return value as T;
}

type Values = Partial<Record<Flag, string>>;

/** Whole seconds of clock skew, 0–3600, as milliseconds. */
function parseSkew(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > 3600) throw usage(`--skew must be whole seconds from 0 to 3600, not '${text}'`);
  return Number(text) * 1000;
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 500) throw usage(`--limit must be a whole number from 1 to 500, not '${text}'`);
  return Number(text);
}

/**
 * The deletions feed of an incremental fetch: what its list stopped returning since
 * `updatedSince`, all of the organisation's (a deleted booking outside --from/--to too).
 */
function deletionsOf(api: LeaveApiClient, resource: FetchResource, v: Values, updatedSince: string): AsyncIterable<Deletion> {
  return api.deletions({ resource: resource === "employees" ? "employees" : "leave-requests", updatedSince, limit: parseLimit(v.limit) });
}

/** Every record of the resource as the options ask (bad usage throws before any request). */
function recordsOf(api: LeaveApiClient, resource: FetchResource, v: Values, updatedSince: string | undefined): AsyncIterable<object> {
  const limit = parseLimit(v.limit);
  if (resource === "employees") return api.employees({ status: v.status, updatedSince, limit });
  if (resource === "leave") {
    const from = requireValue(v.from, "--from", USAGE);
    const to = requireValue(v.to, "--to", USAGE);
    const status = v.status === undefined ? undefined : oneOf(v.status, LEAVE_STATUSES, "--status");
    return api.leaveRequests({ from, to, status, employeeId: v["employee-id"], updatedSince, limit });
  }
  const from = requireValue(v.from, "--from", USAGE);
  const to = requireValue(v.to, "--to", USAGE);
  const type = v.type === undefined ? undefined : oneOf(v.type, ["public", "company"] as const, "--type");
  return (async function* () {
    yield* await api.holidays({ from, to, calendar: v.calendar, type });
  })();
}

function credentials(ctx: CommandContext, v: Values): { clientId: string; clientSecret: string } {
  const clientId = v["client-id"] ?? ctx.io.env.LEAVEAPI_CLIENT_ID;
  const clientSecret = v["client-secret"] ?? ctx.io.env.LEAVEAPI_CLIENT_SECRET;
  if (!clientId) throw usage("a client id is required: --client-id or env LEAVEAPI_CLIENT_ID");
  if (!clientSecret) throw usage("a client secret is required: env LEAVEAPI_CLIENT_SECRET (or --client-secret)");
  if (v["client-secret"] !== undefined) {
    ctx.io.err("leaveapi: warning: a secret given as --client-secret shows in `ps` and shell history; set LEAVEAPI_CLIENT_SECRET instead");
  }
  return { clientId, clientSecret };
}

/** One line for a failure the API (or the network) reported. */
function describeFailure(error: LeaveApiError, statePath: string | undefined): string {
  // A delta cannot say what was deleted in a gap the server no longer remembers, and a
  // full read written in its place would be applied as a delta, keeping those records for
  // ever: so stop, and say how to start again (docs/cli.md, "fetch").
  if (error.error === "sync_expired" && statePath !== undefined) {
    return `fetch failed: state file ${statePath} is older than the deletions the server keeps (${error.status} sync_expired), so the changes since then cannot be complete; nothing was written and the state is unchanged. Move the state file aside and run again to fetch everything, and replace your copy with that output rather than applying it`;
  }
  return `fetch failed: ${error.message}`.replace(/\s*\n\s*/g, " ");
}

export const fetchCommand: Command = {
  name: "fetch",
  usage: USAGE,
  help: `usage:
  ${USAGE}

Reads one endpoint of a running leaveapi over HTTP with the official client (a token
reused, 401 renewed once, 429/503 waited out, every page) and writes every record.

  --url URL             the API's base URL (env LEAVEAPI_URL), such as https://leave.example.com
  --client-id ID        env LEAVEAPI_CLIENT_ID
  --client-secret S     prefer env LEAVEAPI_CLIENT_SECRET: a flag shows in \`ps\`
  --scope SCOPES        scopes to ask for (default: all of the credentials')
  employees             [--status S] [--updated-since TIME] [--limit N]
  leave                 --from DATE --to DATE [--status S] [--employee-id ID]
                        [--updated-since TIME] [--limit N]; ranges over 400 days are
                        read in windows
  holidays              --from DATE --to DATE [--calendar KEY] [--type public|company]
  --format jsonl|csv    JSON Lines (default), or CSV with leave_type flattened into
                        leave_type_id, leave_type_name, leave_type_category,
                        leave_type_is_paid (the columns 'leaveapi import' reads).
                        CSV against formula injection: a text cell that starts with
                        = + - @, a tab, a carriage return or NUL gets a leading ' so
                        that a spreadsheet shows it rather than runs it ('leaveapi
                        import' takes the ' off again); numbers, dates and ids are
                        written as they are
  --output FILE         write there (renamed into place once complete); default stdout
  --state FILE          incremental (employees, leave): the first run fetches
                        everything; each later run only what changed since the one
                        before (updated_since = its start minus 5 s), first the
                        records deleted since then, as import rows: JSONL
                        {"id","deleted":true,"updated_at"}, CSV a last column
                        'deleted'. The state is saved only when the run succeeds.
                        A state older than the server keeps deletions (410
                        sync_expired) exits 1 writing nothing: move it aside to
                        fetch everything, and replace your copy with that.
  --skew SECONDS        with --state: how far before the previous run's start to ask
                        from, for a clock that differs from the server's (default 5)

A record that changes during a run may appear twice; the later line is the newer:
apply the lines in order.
Exit 0 on success, 1 when the API or the network refuses, 2 on bad usage.`,
  async run(ctx) {
    const { values, positionals } = parseCommandArgs(ctx.args, FLAGS, USAGE, 1);
    const v = values as Values;
    const resource = oneOf(
      requireValue(positionals[0], "what to fetch (employees, leave or holidays)", USAGE),
      ["employees", "leave", "holidays"] as const,
      "what to fetch",
    );
    for (const flag of FILTER_FLAGS) {
      if (v[flag] !== undefined && !FILTERS[resource].includes(flag)) throw usage(`--${flag} does not apply to ${resource}`);
    }
    if (v.state !== undefined && v["updated-since"] !== undefined) throw usage("give --state or --updated-since, not both");
    if (v.skew !== undefined && v.state === undefined) throw usage("--skew works with --state");
    const skewMs = parseSkew(v.skew);
    const format: FetchFormat = v.format === undefined ? "jsonl" : oneOf(v.format, ["jsonl", "csv"] as const, "--format");
    const baseUrl = v.url ?? ctx.io.env.LEAVEAPI_URL;
    if (!baseUrl) throw usage("--url is required (or env LEAVEAPI_URL)");
    if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw usage(`--url must be an http(s) URL, not '${baseUrl}'`);
    const api = createClient({ baseUrl, ...credentials(ctx, v), scope: v.scope });

    const filters = { from: v.from ?? null, to: v.to ?? null, status: v.status ?? null, employee_id: v["employee-id"] ?? null };
    const previous = v.state === undefined ? null : await readState(v.state);
    if (previous && v.state) checkStateMatches(v.state, previous, resource, filters);
    const point = v.state === undefined ? null : syncPoint(Date.now(), previous?.since, skewMs);
    const records = recordsOf(api, resource, v, point ? point.updatedSince : v["updated-since"]);
    // Read before the records: a 410 then writes nothing, and an id in both was listed
    // again after its deletion was read, so its record, the later line, is the newer.
    const deletions = point?.updatedSince === undefined ? null : deletionsOf(api, resource, v, point.updatedSince);

    const formatter = createLineFormatter(resource, format, point !== null);
    const sink = v.output === undefined ? stdoutSink(ctx.io.out) : await fileSink(v.output);
    // Drawn with \r on the terminal only; never in logs or pipes.
    const progress = ctx.io.errIsTty ? createProgressLine((text) => void process.stderr.write(text), undefined, { noun: "records", verb: "fetched" }) : null;
    let count = 0;
    let deleted = 0;
    // The CSV header goes out with the first line, so that a run refused at its first
    // request leaves stdout empty.
    let headed = formatter.header === null;
    const put = async (line: string) => {
      if (!headed) await sink.write(formatter.header!);
      headed = true;
      await sink.write(line);
    };
    try {
      for await (const deletion of deletions ?? []) {
        await put(formatter.deletion(deletion));
        deleted++;
      }
      for await (const record of records) {
        await put(formatter.line(record));
        count++;
        progress?.update(count);
      }
      if (!headed) await sink.write(formatter.header!);
      await sink.commit();
    } catch (error) {
      await sink.discard();
      if (error instanceof LeaveApiError) throw new CommandError(describeFailure(error, v.state));
      throw error;
    } finally {
      progress?.done();
    }
    if (point && v.state) await writeState(v.state, { resource, filters, since: point.since });

    const summary = { resource, records: count, deleted, output: v.output ?? null, incremental: previous !== null, since: point?.since ?? null };
    const deletedText = previous ? ` and ${deleted} ${deleted === 1 ? "deletion" : "deletions"}` : "";
    const line = `fetched ${count} ${count === 1 ? "record" : "records"}${deletedText} of ${resource}${previous ? ` changed since ${previous.since}` : ""}`;
    if (v.output !== undefined) report(ctx, summary, () => `${line} into ${v.output}`);
    else if (ctx.io.errIsTty) ctx.io.err(line);
  },
};
