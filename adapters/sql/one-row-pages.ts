/**
 * A page of records as text in one row, so that a page and what it was planned on can be
 * read by one statement (`caps.leavePageInOneRow`: the leave page on Postgres, where each
 * statement is a round trip). The server joins the page's rows into one text
 * (`string_agg`), split here again with two native string splits. What each record's
 * text is made of does not change: the same fields, written out by record-bodies.ts as
 * on SQLite, so a page is the same to the byte either way.
 *
 * Not for a page that is one statement anyway: the employees page joined this way cost
 * the pg driver as much CPU as its 101 rows (it is the bytes, not the rows, that cost)
 * and the server more (docs/embedding.md, "Pages as JSON text").
 */
import { sql, type RawBuilder } from "kysely";

/**
 * Between a row's fields, and between rows: control characters, which no JSON text holds
 * unescaped (JSON.stringify writes them as \u001f), nor do the ids, dates and numbers
 * beside a record's body. Written in SQL as chr(31) and chr(30), folded when planned.
 */
const FIELD = "\x1f";
const ROW = "\x1e";

/**
 * The aggregate that joins a page's rows into one text: each row's `fields` (columns of
 * the subquery, any type, written as text), in `orderBy` order, which the aggregate
 * states itself: SQL does not promise that an aggregate sees a subquery's rows in the
 * subquery's order. A row with a null field is left out (`||` makes it null, and
 * `string_agg` skips nulls): `splitRows` then finds fewer rows than counted.
 */
export function joinedRows(fields: readonly string[], orderBy: readonly string[]): RawBuilder<string | null> {
  // Each field cast to text itself: `||` with a value of another type looks up its
  // output function on every call.
  const row = sql.join(
    fields.map((f) => sql`${sql.ref(f)}::text`),
    sql` || chr(31) || `,
  );
  return sql<string | null>`string_agg(${row}, chr(30) order by ${sql.join(orderBy.map((f) => sql.ref(f)))})`;
}

/**
 * The rows `joinedRows` joined, each as its `fieldCount` fields, in order; null when not
 * all `rows` (the page's `count(*)`) are there, because one had a null field.
 */
export function splitRows(text: string | null, rows: number, fieldCount: number): string[][] | null {
  if (rows === 0) return [];
  if (text === null) return null;
  const lines = text.split(ROW);
  if (lines.length !== rows) return null;
  return lines.map((line) => {
    const fields = line.split(FIELD);
    if (fields.length !== fieldCount) throw new Error(`A page row has ${fields.length} fields, not ${fieldCount}: a separator inside a value.`);
    return fields;
  });
}
