/**
 * Query parameters of the data endpoints (docs/api.md, "Query parameters"), validated with
 * valibot. Unknown and repeated parameters are refused, so a typo such as `update_since`
 * cannot silently widen an answer; every failure is a 400 that names the parameter.
 *
 * The same schemas document the parameters: server/openapi.ts turns them into the OpenAPI
 * document's parameters. A `check` has no JSON Schema form, so every pipe with one also
 * carries `v.metadata` stating the constraint as JSON Schema keywords (the generator
 * refuses a check without it); metadata and descriptions never change what is accepted.
 */
import * as v from "valibot";
import { invalidParam } from "./errors.ts";
import { parseDate } from "./dates.ts";
import { isUuid } from "./ids.ts";
import { employeeFilterEntries, fromParam, leaveFilterEntries, MAX_RANGE_DAYS, toParam, updatedSinceParam } from "./list-filters.ts";
import { CALENDAR_KEY_PATTERN } from "./public-holidays.ts";
import { DELETED_RESOURCES } from "./deleted-resources.ts";

export { MAX_RANGE_DAYS };
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

/** The query as a plain record; refuses names outside `allowed` and names given twice. */
export function readQuery(url: URL, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name)) {
      const accepted = allowed.length === 0 ? "takes no query parameters" : `accepts ${allowed.join(", ")}`;
      throw invalidParam(name, `Unknown query parameter '${name}'; this endpoint ${accepted}.`);
    }
    if (Object.hasOwn(out, name)) throw invalidParam(name, `Query parameter '${name}' is given more than once.`);
    out[name] = value;
  }
  return out;
}

const limitParam = v.pipe(
  v.string(),
  v.check((s) => /^\d+$/.test(s) && Number(s) >= 1 && Number(s) <= MAX_LIMIT, `'limit' must be a whole number from 1 to ${MAX_LIMIT}.`),
  v.metadata({ type: "integer", minimum: 1, maximum: MAX_LIMIT }),
  v.description("Records per page."),
  v.transform(Number),
);

const cursorParam = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,1024}$/, "'cursor' must be the next_cursor of a previous page, unchanged."),
  v.description("The `next_cursor` of the previous page, unchanged; the other filters must stay the same."),
);

/** The parameters every list pages by, after its filters. */
const pagingEntries = {
  limit: v.optional(limitParam, String(DEFAULT_LIMIT)),
  cursor: v.optional(cursorParam),
};

/** GET /v1/employees: its filters (list-filters.ts), then paging. */
export const employeesQuerySchema = v.object({ ...employeeFilterEntries, ...pagingEntries });

/** GET /v1/leave-requests: its filters (list-filters.ts), then paging. */
export const leaveQuerySchema = v.object({ ...leaveFilterEntries, ...pagingEntries });

/** GET /v1/holidays. */
export const holidaysQuerySchema = v.object({
  from: fromParam,
  to: toParam,
  calendar: v.optional(
    v.pipe(
      v.string(),
      v.regex(CALENDAR_KEY_PATTERN, "'calendar' must be a calendar key such as GB or GB-ENG (^[A-Z]{2}(-[A-Z]{2,3})?$)."),
      v.description("One calendar key (country, or country-region): its public holidays only, whether or not anyone observes it."),
      v.examples(["GB-ENG"]),
    ),
  ),
  type: v.optional(
    v.pipe(v.picklist(["public", "company"] as const, "'type' must be public or company."), v.description("Public holidays or company closure days only.")),
  ),
});

/** GET /v1/deletions: `resource` and `updated_since` are required. */
export const deletionsQuerySchema = v.object({
  resource: v.pipe(
    v.picklist(DELETED_RESOURCES, `'resource' must be one of ${DELETED_RESOURCES.join(", ")}.`),
    v.description("Whose deletions: the list endpoint's name."),
  ),
  updated_since: updatedSinceParam,
  limit: v.optional(limitParam, String(DEFAULT_LIMIT)),
  cursor: v.optional(cursorParam),
});

function parseWith<S extends v.GenericSchema>(schema: S, query: Record<string, string>): v.InferOutput<S> {
  const result = v.safeParse(schema, query);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const param = String(issue.path?.[0]?.key ?? "query");
  // valibot reports a missing key with its own generic message; say which parameter is required.
  const missing = issue.path?.[0]?.origin === "key" && issue.input === undefined;
  throw invalidParam(param, missing ? `'${param}' is required.` : issue.message);
}

function checkRange(from: string, to: string): void {
  const span = parseDate(to)! - parseDate(from)!;
  if (span < 0) throw invalidParam("to", "'to' must not be before 'from'.");
  if (span > MAX_RANGE_DAYS) throw invalidParam("to", `'to' must be at most ${MAX_RANGE_DAYS} days after 'from'.`);
}

export type EmployeesParams = v.InferOutput<typeof employeesQuerySchema>;

export function parseEmployeesQuery(url: URL): EmployeesParams {
  return parseWith(employeesQuerySchema, readQuery(url, Object.keys(employeesQuerySchema.entries)));
}

export type LeaveParams = v.InferOutput<typeof leaveQuerySchema>;

export function parseLeaveQuery(url: URL): LeaveParams {
  const params = parseWith(leaveQuerySchema, readQuery(url, Object.keys(leaveQuerySchema.entries)));
  checkRange(params.from, params.to);
  return params;
}

export type HolidaysParams = v.InferOutput<typeof holidaysQuerySchema>;

export function parseHolidaysQuery(url: URL): HolidaysParams {
  const params = parseWith(holidaysQuerySchema, readQuery(url, Object.keys(holidaysQuerySchema.entries)));
  checkRange(params.from, params.to);
  return params;
}

export type DeletionsParams = v.InferOutput<typeof deletionsQuerySchema>;

export function parseDeletionsQuery(url: URL): DeletionsParams {
  return parseWith(deletionsQuerySchema, readQuery(url, Object.keys(deletionsQuerySchema.entries)));
}

/** The `{id}` of GET /v1/employees/{id}, decoded. */
export const employeeIdPathSchema = v.pipe(
  v.string(),
  v.check(isUuid, "The employee id in the path must be a UUID."),
  v.metadata({ format: "uuid" }),
  v.description("The employee's id; any letter case is accepted."),
);

/** A path `{id}`: any case accepted, answered in lower case. */
export function parseEmployeeId(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    id = raw;
  }
  if (!v.is(employeeIdPathSchema, id)) throw invalidParam("id", "The employee id in the path must be a UUID.");
  return id.toLowerCase();
}
