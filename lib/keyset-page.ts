/**
 * Keyset paging shared by the list operations (docs/api.md, "Paging, ordering and
 * cursors"): a cursor carries the (sort key, id) of the last record of its page, signed
 * and bound to organisation, endpoint and filters (lib/cursor-codec.ts), so the next page
 * resumes strictly after it however the data changed meanwhile.
 */
import { invalidParam } from "./errors.ts";
import { decodeCursor, encodeCursor, type CursorBinding, type HmacSha256 } from "./cursor-codec.ts";
import { RawJson } from "./raw-json.ts";
import type { ListText, Store } from "./store.ts";

/** One page of a list endpoint as its v1 JSON body. */
export interface Page<T> {
  has_more: boolean;
  next_cursor: string | null;
  data: T[];
}

interface SortKeyTypes {
  string: string;
  number: number;
}

/** A record's place in the order of its list: (sort key, id). */
export type KeysetPosition<K extends keyof SortKeyTypes> = [SortKeyTypes[K], string];

export interface KeysetPageSpec<K extends keyof SortKeyTypes, T, J> {
  /** What a cursor is bound to: the organisation, the endpoint and every filter but `limit`. */
  binding: CursorBinding;
  /** The `next_cursor` of the previous page, unchanged; `undefined` for the first page. */
  cursor: string | undefined;
  limit: number;
  /** The type of the sort key, which a decoded cursor must have. */
  sortKey: K;
  /** Up to `limit` records in list order, strictly after `after` when given. */
  fetch: (after: KeysetPosition<K> | undefined, limit: number) => Promise<T[]>;
  position: (record: T) => KeysetPosition<K>;
  shape: (record: T) => J;
  /** How cursors are signed; pure JavaScript unless the host passed a faster one (createHandler's `hmacSha256`). */
  mac?: HmacSha256;
}

/**
 * The installation key and where a page starts: after the cursor's position, or at the
 * start. Throws a 400 naming `cursor` for one this installation did not make for exactly
 * this binding.
 */
async function startOfPage<K extends keyof SortKeyTypes>(
  store: Pick<Store, "installationKey">,
  spec: Pick<KeysetPageSpec<K, unknown, unknown>, "binding" | "cursor" | "sortKey" | "mac">,
): Promise<{ key: Uint8Array; after: KeysetPosition<K> | undefined }> {
  const key = await store.installationKey();
  if (spec.cursor === undefined) return { key, after: undefined };
  const position = decodeCursor(key, spec.binding, spec.cursor, spec.mac);
  if (!position || typeof position[0] !== spec.sortKey || typeof position[1] !== "string") {
    throw invalidParam("cursor", "The cursor is not valid for this endpoint and these filters; pass next_cursor unchanged, with the same filters.");
  }
  return { key, after: [position[0] as SortKeyTypes[K], position[1]] };
}

/**
 * The page of records after `start`'s position: one more fetched than asked so that
 * `has_more` is exact, and the position of the last one returned signed as the next cursor.
 */
async function pageOfRecords<K extends keyof SortKeyTypes, T, J>(
  spec: KeysetPageSpec<K, T, J>,
  { key, after }: { key: Uint8Array; after: KeysetPosition<K> | undefined },
): Promise<Page<J>> {
  const { binding, limit } = spec;
  const rows = await spec.fetch(after, limit + 1);
  const hasMore = rows.length > limit;
  const records = hasMore ? rows.slice(0, limit) : rows;
  const next = hasMore ? encodeCursor(key, binding, spec.position(records[records.length - 1]!), spec.mac) : null;
  return { has_more: hasMore, next_cursor: next, data: records.map(spec.shape) };
}

/**
 * One page of a list as the JSON body the API answers: from the store's text of the list
 * (`Store.listText`) when `fetchText` is given and answers, else from its records as `spec`
 * says. The same bytes either way; the cursor is read once whichever answers.
 */
export async function readListPage<K extends keyof SortKeyTypes, T, J>(
  store: Pick<Store, "installationKey">,
  spec: KeysetPageSpec<K, T, J>,
  fetchText: ((after: KeysetPosition<K> | undefined, limit: number) => Promise<ListText | null>) | undefined,
): Promise<RawJson<Page<J>>> {
  const start = await startOfPage(store, spec);
  const text = fetchText && (await fetchText(start.after, spec.limit));
  if (text) {
    const next = text.hasMore && text.last ? JSON.stringify(encodeCursor(start.key, spec.binding, text.last, spec.mac)) : "null";
    return new RawJson(`{"has_more":${text.hasMore},"next_cursor":${next},"data":${text.json}}`, text.count);
  }
  const page = await pageOfRecords(spec, start);
  return RawJson.of(page, page.data.length);
}
