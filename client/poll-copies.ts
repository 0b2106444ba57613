/**
 * The client's copies of the pages a sync repeats (docs/api.md, "Conditional reads"): the
 * first page of each `updated_since` list, kept with its ETag, so that the next poll asks
 * with `If-None-Match` and an unchanged organisation answers 304 without a page read.
 *
 * A sync asks from a later `updated_since` each time, so its URL never repeats by itself.
 * While a list's first page is empty (nothing changed), the next poll asks the same URL
 * again, with the earlier `updated_since`: its answer holds every record the later one
 * would (a list from an earlier instant is a superset), so the sync misses nothing, and
 * while nothing changes the server answers 304 and the empty copy stands. An earlier
 * instant is kept for at most HOLD_MS, after which the poll asks as it would have.
 */

/** How long a poll may go on asking from an earlier `updated_since` than its own. */
export const HOLD_MS = 86_400_000;

/** Lists kept at most; more, and the copies start again (a sync has four). */
const MAX_COPIES = 32;

interface Copy {
  /** The URL asked, whose answer this is. */
  url: string;
  /** Its `updated_since`, epoch milliseconds. */
  since: number;
  etag: string;
  /** The body as it came. */
  text: string;
  /** Whether the page was empty and the last: then an earlier `updated_since` may stand for a later one. */
  empty: boolean;
}

/** What to ask for a page: the URL, and the ETag of the copy it may answer 304 for. */
export interface PollRequest {
  url: string;
  etag?: string;
  /** Keep the answer, by this key (absent: not a page a poll repeats). */
  key?: string;
}

/** The list a URL reads, whatever `updated_since` it asks from: its path and its other parameters. */
function listKey(url: URL): string {
  const rest = [...url.searchParams].filter(([name]) => name !== "updated_since").sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${url.pathname}?${new URLSearchParams(rest)}`;
}

export interface PollCopies {
  /** What to ask for `url`: a first page of an `updated_since` list may be asked as a copy's URL, with its ETag. */
  plan(url: URL): PollRequest;
  /** Keeps a 200's body under the plan's key, when it carries an ETag. */
  keep(request: PollRequest, etag: string | null, text: string): void;
  /** The body a 304 stands for. */
  copy(request: PollRequest): string | undefined;
}

export function createPollCopies(now: () => number): PollCopies {
  const copies = new Map<string, Copy>();
  return {
    plan(url) {
      const since = url.searchParams.get("updated_since");
      const at = since === null ? Number.NaN : Date.parse(since);
      // Only the first page of a sync: a later page's cursor is made for its own first page.
      if (Number.isNaN(at) || url.searchParams.has("cursor")) return { url: url.href };
      const key = listKey(url);
      const copy = copies.get(key);
      if (copy && (copy.url === url.href || (copy.empty && copy.since <= at && copy.since >= now() - HOLD_MS))) {
        return { url: copy.url, etag: copy.etag, key };
      }
      return { url: url.href, key };
    },
    keep(request, etag, text) {
      if (request.key === undefined) return;
      if (etag === null) {
        copies.delete(request.key);
        return;
      }
      const since = Date.parse(new URL(request.url).searchParams.get("updated_since") ?? "");
      const page = JSON.parse(text) as { data?: unknown[]; has_more?: boolean };
      if (copies.size >= MAX_COPIES) copies.clear();
      copies.set(request.key, { url: request.url, since, etag, text, empty: page.data?.length === 0 && page.has_more === false });
    },
    copy(request) {
      return request.key === undefined ? undefined : copies.get(request.key)?.text;
    },
  };
}
