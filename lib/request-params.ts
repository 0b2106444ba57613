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
import { isDate, parseDate, parseInstantCeil } from "./dates.ts";
import { isUuid } from "./ids.ts";
import { LEAVE_STATUSES, type LeaveStatus } from "./records.ts";
import { CALENDAR_KEY_PATTERN } from "./public-holidays.ts";
import { DELETED_RESOURCES, type DeletedResource } from "./store.ts";

export const MAX_RANGE_DAYS = 400;
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

const dateParam = (name: string) =>
  v.pipe(
    v.string(`'${name}' is required: a date as YYYY-MM-DD.`),
    v.check(isDate, `'${name}' must be a real calendar date as YYYY-MM-DD.`),
    v.metadata({ format: "date", examples: ["2026-03-01"] }),
  );

/** A space where the offset's `+` stood: an unencoded `+` in a query string arrives as a space. */
const restorePlus = (text: string) => text.replace(/ (\d{2}:\d{2})$/, "+$1");

const updatedSinceParam = v.pipe(
  v.string(),
  // Before the first transform: the document describes what the client sends.
  v.metadata({ format: "date-time", examples: ["2026-03-01T09:30:00Z"] }),
  v.description(
    "Only records changed at or after this instant: an RFC 3339 date-time with `Z` or a ±hh:mm offset. " +
      "For incremental sync, pass the moment your previous sync started, less a few seconds.",
  ),
  v.transform(restorePlus),
  v.check((s) => parseInstantCeil(s) !== null, "'updated_since' must be an RFC 3339 date-time with an offset, e.g. 2026-03-01T09:30:00Z."),
  v.transform((s) => parseInstantCeil(s)!),
);

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

const uuidParam = (name: string) =>
  v.pipe(
    v.string(),
    v.check(isUuid, `'${name}' must be a UUID.`),
    v.metadata({ format: "uuid" }),
    v.description("Any letter case is accepted."),
    v.transform((s) => s.toLowerCase()),
  );

const employeeStatusParam = v.pipe(
  v.string(),
  v.regex(/^[a-z_]{1,30}$/, "'status' must match ^[a-z_]{1,30}$."),
  v.description("Exact employment status."),
  v.examples(["active"]),
);

const leaveStatusParam = v.pipe(
  v.picklist(LEAVE_STATUSES, `'status' must be one of ${LEAVE_STATUSES.join(", ")}.`),
  v.description("Only bookings with this status."),
);

/** GET /v1/employees. */
export const employeesQuerySchema = v.object({
  status: v.optional(employeeStatusParam),
  updated_since: v.optional(updatedSinceParam),
  limit: v.optional(limitParam, String(DEFAULT_LIMIT)),
  cursor: v.optional(cursorParam),
});

const fromParam = v.pipe(dateParam("from"), v.description("Start of the date range, inclusive, as YYYY-MM-DD."));
const toParam = v.pipe(dateParam("to"), v.description(`End of the date range, inclusive: not before \`from\` and at most ${MAX_RANGE_DAYS} days after it.`));

/** GET /v1/leave-requests. */
export const leaveQuerySchema = v.object({
  from: fromParam,
  to: toParam,
  status: v.optional(leaveStatusParam),
  employee_id: v.optional(uuidParam("employee_id")),
  updated_since: v.optional(updatedSinceParam),
  limit: v.optional(limitParam, String(DEFAULT_LIMIT)),
  cursor: v.optional(cursorParam),
});

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

export interface EmployeesParams {
  status?: string;
  updated_since?: number;
  limit: number;
  cursor?: string;
}

export function parseEmployeesQuery(url: URL): EmployeesParams {
  return parseWith(employeesQuerySchema, readQuery(url, Object.keys(employeesQuerySchema.entries)));
}

export interface LeaveParams {
  from: string;
  to: string;
  status?: LeaveStatus;
  employee_id?: string;
  updated_since?: number;
  limit: number;
  cursor?: string;
}

export function parseLeaveQuery(url: URL): LeaveParams {
  const params = parseWith(leaveQuerySchema, readQuery(url, Object.keys(leaveQuerySchema.entries)));
  checkRange(params.from, params.to);
  return params;
}

export interface HolidaysParams {
  from: string;
  to: string;
  calendar?: string;
  type?: "public" | "company";
}

export function parseHolidaysQuery(url: URL): HolidaysParams {
  const params = parseWith(holidaysQuerySchema, readQuery(url, Object.keys(holidaysQuerySchema.entries)));
  checkRange(params.from, params.to);
  return params;
}

export interface DeletionsParams {
  resource: DeletedResource;
  updated_since: number;
  limit: number;
  cursor?: string;
}

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
