/**
 * The kinds of problem an import reports, by code (docs/cli.md, "Reading import
 * problems"). Each stage says what it found as `{field, problem, code}`; the words that
 * say how to fix it (which key of the map) are added here, at the edge, from the code and
 * never from the problem's text, and so are the command's closing hints.
 */

export const PROBLEM_CODES = [
  /** Header: source columns that map to no field. */
  "unknown_columns",
  /** Header: a field every row needs, for which the file has no column and the map no default. */
  "missing_column",
  /** Header: two columns give one field. */
  "duplicate_column",
  /** A row has no value for a field it needs. */
  "required",
  /** A JSON record's key that is no field of the kind. */
  "unknown_field",
  /** A status or category that is not a lower-case word. */
  "not_a_word",
  /** A value that is none of its field's few allowed words (a booking's status, a half-day period). */
  "not_allowed",
  /** A date that is not in the map's date format (or YYYY-MM-DD). */
  "date_format",
  /** `days` with half a day, but no half-day flag. */
  "half_day",
  /** The file is not UTF-8 and no encoding was named: the encoding it looks like, and the map key that names it. */
  "encoding",
  /** A row that could not be read at all (bad JSON, bad UTF-8, a CSV row of the wrong width). */
  "unreadable",
  /** The row against what is stored: an unknown employee, a leave type that disagrees, a day twice. */
  "conflict",
  /** Any other value that is not what its field takes: the message says what is. */
  "invalid",
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** One thing wrong with one field of one record; `field` is `row` for the record as a whole. */
export interface ImportProblem {
  field: string;
  problem: string;
  /** What kind of problem, for the hint that goes with it; `invalid` when not given. */
  code?: ProblemCode;
  /** The value as the file gave it, where the hint shows it (`not_a_word`, `not_allowed`). */
  value?: unknown;
  /** `not_allowed`: the values the field takes. */
  allowed?: readonly string[];
}

/** How the import is read: the hints name the map's keys only where a map could help. */
export interface HintContext {
  /** Whether a `--map` was given. */
  mapped: boolean;
  /** The file's column the field came from, where it has another name. */
  column?: string;
  /** `date_format`: the formats the file's dates fit (all of them, where more than one was wrong). */
  dateFormats?: readonly string[];
}

/** Other systems' words for a booking's statuses (English and German exports), for the example of `"values"`. */
const WORDS: Record<string, string> = {
  requested: "pending",
  open: "pending",
  beantragt: "pending",
  offen: "pending",
  genehmigt: "approved",
  denied: "rejected",
  declined: "rejected",
  abgelehnt: "rejected",
  canceled: "cancelled",
  storniert: "cancelled",
  widerrufen: "cancelled",
};

/**
 * What to do about a problem, in words, appended to its message: which key of the map
 * fixes it. Empty when the message says it all.
 */
export function hintFor(problem: ImportProblem, context: HintContext): string {
  switch (problem.code) {
    case "not_a_word": {
      const from = typeof problem.value === "string" ? problem.value : "…";
      const field = problem.field;
      // The value made a word where it can be one ("On Leave" → "on_leave"); else the usual word.
      const word = from
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, "_");
      const to = /^[a-z_]{1,30}$/.test(word) ? word : field.endsWith("category") ? "annual" : "active";
      return `; map it under "values", e.g. "values": {${JSON.stringify(field)}: {${JSON.stringify(from)}: ${JSON.stringify(to)}}}${context.mapped ? "" : " in a --map file"}`;
    }
    case "not_allowed": {
      const from = typeof problem.value === "string" ? problem.value : "…";
      const allowed = problem.allowed ?? [];
      const word = from.trim().toLowerCase();
      // The allowed value the file's word starts like ("Approved" → approved, "Canceled" → cancelled), else the first.
      const to = allowed.find((a) => a === word || a === WORDS[word]) ?? allowed.find((a) => word.length >= 4 && a.startsWith(word.slice(0, 4))) ?? "…";
      return `; map the file's words under "values", e.g. "values": {${JSON.stringify(problem.field)}: {${JSON.stringify(from)}: ${JSON.stringify(to)}}}${context.mapped ? "" : " in a --map file"}`;
    }
    case "unknown_field":
      // A nested key (leave_type.…) is no column a map can name; a likely typo says what to write instead.
      if (problem.value !== undefined || problem.field.includes(".")) return "";
      return `; to leave it out, set "ignore_unmapped": true ${context.mapped ? "in the map" : "in a --map file"}, or name it under "columns": {${JSON.stringify(problem.field)}: null}`;
    case "date_format": {
      // The format the value fits, where it tells: "15.01.2020" is DD.MM.YYYY; "03/02/2026" could be either way round.
      const [first, second] = context.dateFormats ?? [];
      const example =
        first === undefined
          ? ""
          : `, e.g. "dates": ${JSON.stringify(first)}${second === undefined ? "" : ` (or ${JSON.stringify(second)}, if the ${second.startsWith("D") ? "day" : "month"} comes first)`}`;
      return `; set the map's "dates" (or --date-format) to the format the file writes its dates in${example}`;
    }
    case "required":
      // An empty cell of another system's column: the cell, or the map's value for its empty cells.
      return context.column === undefined
        ? ""
        : `; fill the cell, or give empty cells one value under "defaults", e.g. "defaults": {${JSON.stringify(problem.field)}: "…"}${context.mapped ? "" : " in a --map file"}`;
    case "encoding":
      return `; name the encoding with "encoding": "windows-1252" ${context.mapped ? "in the map" : "in a --map file"} (or --encoding windows-1252), or save the file as UTF-8`;
    case "half_day":
      // A column of another name means a map: its days can be left to be worked out by mapping the column to null.
      return context.column === undefined ? "" : `; to leave the column out, name it under "columns": {${JSON.stringify(context.column)}: null}`;
    default:
      return "";
  }
}
