/**
 * Walking a list endpoint to its end, and splitting a long date range into the windows
 * the API accepts.
 */
import { formatDay, parseDate } from "../lib/dates.ts";
import type { Page } from "./types.ts";

/**
 * Yields every record of every page, passing each `next_cursor` back unchanged. Once
 * `signal` aborts, the next record the caller asks for is the signal's reason, thrown,
 * even between two pages.
 */
export async function* eachRecord<T>(getPage: (cursor: string | undefined) => Promise<Page<T>>, signal?: AbortSignal): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const page = await getPage(cursor);
    for (const record of page.data) {
      signal?.throwIfAborted();
      yield record;
    }
    if (!page.has_more || page.next_cursor === null) return;
    cursor = page.next_cursor;
  }
}

/** `to` may be at most this many days after `from` in one request (docs/api.md, "Limits"). */
export const MAX_RANGE_DAYS = 400;

export interface DateWindow {
  from: string;
  to: string;
}

/**
 * Consecutive windows of at most MAX_RANGE_DAYS that cover `[from, to]` exactly. A range
 * the API would refuse anyway (a malformed date, `from` after `to`) comes back whole, so
 * that the API's own error names the parameter.
 */
export function dateWindows(from: string, to: string): DateWindow[] {
  const first = parseDate(from);
  const last = parseDate(to);
  if (first === null || last === null || last - first <= MAX_RANGE_DAYS) return [{ from, to }];
  const windows: DateWindow[] = [];
  for (let start = first; start <= last; start += MAX_RANGE_DAYS + 1) {
    windows.push({ from: formatDay(start), to: formatDay(Math.min(last, start + MAX_RANGE_DAYS)) });
  }
  return windows;
}

/**
 * Every booking of `[from, to]` once, in (`start_date`, `id`) order, however many windows
 * the range needs. A booking that overlaps a window and starts before it also overlaps
 * the window before (it covers that window's last day), so a later window skips it: it
 * was yielded already.
 */
export async function* eachBookingInWindows<T extends { start_date: string }>(
  from: string,
  to: string,
  readWindow: (window: DateWindow) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const windows = dateWindows(from, to);
  for (const [i, window] of windows.entries()) {
    for await (const booking of readWindow(window)) {
      if (i > 0 && booking.start_date < window.from) continue;
      yield booking;
    }
  }
}
