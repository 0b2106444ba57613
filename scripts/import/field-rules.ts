/**
 * Small helpers for validating import records field by field: valibot issues become
 * `{field, problem}` pairs, messages say what was expected and what was found, and an
 * unknown field name gets a "did you mean" when it is a likely typo; and the schemas of
 * the value types import records are made of.
 */
import * as v from "valibot";
import { isDate, parseInstantCeil, yearOf } from "../../lib/dates.ts";
import { isUuid } from "../../lib/ids.ts";
import { CALENDAR_KEY_PATTERN } from "../../lib/public-holidays.ts";

import type { ImportProblem, ProblemCode } from "./problem-codes.ts";

export type { ImportProblem } from "./problem-codes.ts";

/** How a value is shown in a message: short, and unambiguous about its JSON type. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

/** A valibot message: "is required" for a missing value, else what was expected and what came. */
export function expected(what: string) {
  return (issue: v.BaseIssue<unknown>) =>
    issue.input === undefined || issue.input === null ? "is required" : `must be ${what}, not ${describeValue(issue.input)}`;
}

/**
 * The years an import's dates lie in (docs/cli.md, "Limits"): every date field, whatever
 * the file's format. Outside them no one's employment or leave is real, and the work a
 * date costs is bounded: a booking's days are counted day by day, and each year it
 * touches loads that year's public holidays.
 */
export const IMPORT_YEARS = { first: 1900, last: 2199 } as const;

/** Whether `iso`, a real `YYYY-MM-DD`, lies in IMPORT_YEARS. */
export function isImportYear(iso: string): boolean {
  const year = yearOf(iso);
  return year >= IMPORT_YEARS.first && year <= IMPORT_YEARS.last;
}

/** What a real date outside IMPORT_YEARS is told; `shown` is the value as the file wrote it. */
export function outsideImportYears(shown: string): string {
  return `must be a date in the years ${IMPORT_YEARS.first} to ${IMPORT_YEARS.last}, not ${describeValue(shown)}`;
}

/** The longest text field an import takes, in characters: Unicode code points, as Postgres and JSON Schema count them (README "Importing data"). */
export const MAX_TEXT_CHARS = 255;

/** Whether `text` has at most MAX_TEXT_CHARS code points; cheap for long text, which fails early. */
export function withinTextLimit(text: string): boolean {
  if (text.length <= MAX_TEXT_CHARS) return true;
  // Every code point is one or two UTF-16 units.
  if (text.length > 2 * MAX_TEXT_CHARS) return false;
  return countCodePoints(text) <= MAX_TEXT_CHARS;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A low surrogate after a high one is the second half of the same code point.
    if (unit < 0xdc00 || unit > 0xdfff || i === 0 || text.charCodeAt(i - 1) < 0xd800 || text.charCodeAt(i - 1) > 0xdbff) count++;
  }
  return count;
}

const withinLimit = v.check(
  (s: string) => withinTextLimit(s),
  (i) => `must be at most ${MAX_TEXT_CHARS} characters, not ${countCodePoints(i.input as string).toLocaleString("en")}`,
);

// Value schemas: every message says what was expected and shows what came instead.
export const SNAKE_WORD = /^[a-z_]{1,30}$/;
export const text = v.pipe(v.string(expected("text")), v.nonEmpty("must not be empty"), withinLimit);
export const optionalText = v.nullish(v.pipe(v.string(expected("text or null")), withinLimit), null);
export const date = v.pipe(
  v.string(expected("a date YYYY-MM-DD")),
  v.check(isDate, (i) => `must be a real date YYYY-MM-DD, not ${describeValue(i.input)}`),
  v.check(isImportYear, (i) => outsideImportYears(i.input as string)),
);
export const optionalDate = v.nullish(date, null);
export const flag = v.nullish(v.boolean(expected("true or false")), false);
export const uuid = v.pipe(
  v.string(expected("a UUID")),
  v.check(isUuid, (i) => `must be a UUID, not ${describeValue(i.input)}`),
  v.transform((s) => s.toLowerCase()),
);
export const optionalUuid = v.nullish(uuid, null);
/** Source-system ids are often numeric: an integer is read as its decimal text. */
export const externalId = v.nullish(
  v.pipe(
    v.union([v.string(), v.pipe(v.number(), v.safeInteger("must be text or a whole number"))], expected("text")),
    v.transform(String),
    v.nonEmpty("must not be empty"),
    withinLimit,
  ),
  null,
);
/** A status or category: in words, what one is (`"Onboarding" is not a status; statuses are …`), never the pattern. */
export const snakeWord = (noun: string, plural: string, examples: string) =>
  v.pipe(
    v.string(expected(`a ${noun} such as ${examples}`)),
    v.regex(SNAKE_WORD, (i) => `${describeValue(i.input)} is not a ${noun}; ${plural} are lower-case letters and "_" (at most 30) such as ${examples}`),
  );
export const calendarKey = v.pipe(
  v.string(expected("a calendar key like GB or GB-ENG")),
  v.regex(
    CALENDAR_KEY_PATTERN,
    (i) =>
      `must be a calendar key like GB or GB-ENG (a country in two capital letters, and for a region a dash and two or three more), not ${describeValue(i.input)}`,
  ),
);
export const instant = v.nullish(
  v.pipe(
    v.string(expected("an RFC 3339 date-time")),
    v.check(
      (s) => parseInstantCeil(s) !== null,
      (i) => `must be an RFC 3339 date-time with an offset, like 2026-03-01T09:30:00Z, not ${describeValue(i.input)}`,
    ),
    v.transform((s) => parseInstantCeil(s)!),
  ),
  null,
);
export const halfPeriod = v.nullish(v.picklist(["am", "pm"], expected("am or pm")), null);
export const days = v.nullish(
  v.pipe(
    v.number(expected("a number")),
    v.check((n) => Number.isFinite(n) && n >= 0 && Number.isInteger(n * 2), "must be a multiple of 0.5, at least 0"),
  ),
  null,
);
/** A missing key of an object schema is reported through the object's message: "is required". */
export const RECORD = expected("an object of fields");

/**
 * Parses `input` with `schema`, adding every issue to `problems` under `field` (joined with
 * the issue's path inside the value). Returns the output, or `null` when there were issues.
 */
export function parseField<S extends v.GenericSchema>(schema: S, input: unknown, field: string, problems: ImportProblem[]): v.InferOutput<S> | null {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  for (const issue of result.issues) {
    const path = v.getDotPath(issue);
    const code = codeOf(issue);
    problems.push({
      field: [field, path].filter(Boolean).join(".") || "row",
      problem: issue.message,
      code,
      value: issue.input,
      ...(code === "not_allowed" ? { allowed: picklistOptions(issue.expected) } : {}),
    });
  }
  return null;
}

/** What kind of problem a valibot issue is, from its structure (never its message). */
function codeOf(issue: v.BaseIssue<unknown>): ProblemCode {
  if (issue.input === undefined || (issue.input === null && issue.kind === "schema")) return "required";
  if (issue.type === "regex" && (issue as v.RegexIssue<string>).requirement === SNAKE_WORD) return "not_a_word";
  if (issue.type === "picklist") return "not_allowed";
  // Written another way (03/02/2026), not a date that does not exist (2026-02-30).
  if (issue.type === "check" && (issue as v.CheckIssue<string>).requirement === isDate && !/^\d{4}-\d{2}-\d{2}$/.test(String(issue.input)))
    return "date_format";
  return "invalid";
}

/** A picklist's options, from what valibot says it expects (`"am" | "pm"`). */
function picklistOptions(expected: string | null): string[] {
  if (expected === null) return [];
  // Five or more options come wrapped in brackets: ("a" | "b" | …).
  return expected
    .replace(/^\((.*)\)$/, "$1")
    .split(" | ")
    .flatMap((o) => {
      try {
        const value: unknown = JSON.parse(o);
        return typeof value === "string" ? [value] : [];
      } catch {
        return [];
      }
    });
}

/** The allowed field closest to `name` when it is plausibly a typo of it (edit distance ≤ 2). */
export function suggestField(name: string, allowed: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const d = editDistance(name.toLowerCase(), candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
