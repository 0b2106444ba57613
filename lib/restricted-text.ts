/**
 * A restricted client's employees page as text (docs/api.md, "Restricted credentials"):
 * the store's text of the page with every field the client may not read set to null, in
 * one pass over the text, rather than the page read as records and shaped again.
 */
import { RESTRICTABLE_FIELDS, type EmployeeFieldName } from "./restriction.ts";
import type { ListText } from "./store.ts";

/** A run of hidden fields, next to each other in the API's order, and the kept field after it. */
interface HiddenRun {
  /** `,"first":`: where the run's members start in a record. */
  from: string;
  /** `,"next":`: where they end. */
  to: string;
  /** What the run's members become: each field with null. */
  nulls: string;
}

/** The runs of fields not in `fields`; null when `id` is hidden (then the text is not shaped this way). */
function hiddenRuns(fields: readonly EmployeeFieldName[]): HiddenRun[] | null {
  const runs: HiddenRun[] = [];
  let run: EmployeeFieldName[] = [];
  for (const field of RESTRICTABLE_FIELDS) {
    if (!fields.includes(field)) {
      run.push(field);
      continue;
    }
    if (run.length > 0) runs.push({ from: `,"${run[0]}":`, to: `,"${field}":`, nulls: run.map((f) => `,"${f}":null`).join("") });
    run = [];
  }
  // The last field, updated_at, is always read, so no run is left open; nor may id be hidden.
  return run.length > 0 || !fields.includes("id") ? null : runs;
}

const runsOf = new Map<string, HiddenRun[] | null>();

/**
 * `page` (employees' JSON as `Store.listText` writes it: exactly `JSON.stringify`, so flat
 * records of scalars in the API's field order) with the fields not in `fields` as null, as
 * `restrictedEmployeeJson` would write them; null when the text is not as expected (then
 * the records are read instead).
 *
 * Each run of hidden fields is replaced whole, from its first member to the next kept
 * one, found with two searches a record. A member `,"name":` with unescaped quotes is
 * never inside a JSON string (a quote within a string is always escaped), and an
 * employee's members hold no objects, so each match is a member of the record at hand.
 */
export function hideEmployeeFields(page: ListText, fields: readonly EmployeeFieldName[]): ListText | null {
  const key = fields.join(",");
  let runs = runsOf.get(key);
  if (runs === undefined) {
    runs = hiddenRuns(fields);
    runsOf.set(key, runs);
  }
  if (runs === null) return null;
  if (runs.length === 0) return page;
  const text = page.json;
  let out = "";
  let copied = 0;
  let records = 0;
  const first = runs[0]!.from;
  for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, copied)) {
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      const from = i === 0 ? at : text.indexOf(run.from, copied);
      const to = from < 0 ? -1 : text.indexOf(run.to, from + run.from.length);
      if (to < 0) return null;
      out += text.slice(copied, from) + run.nulls;
      copied = to;
    }
    records++;
  }
  if (records !== page.count) return null;
  return { ...page, json: out + text.slice(copied) };
}
