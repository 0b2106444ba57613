/**
 * Shipped public holidays (docs/api.md,
 * "Holidays"): a calendar key `CC` or `CC-RRR` is a country and optionally one of its
 * states or regions; only type `public` is kept, one entry per date (the first the
 * dataset lists), substitute days included.
 *
 * Only the years SHIPPED_YEARS names are ever computed. Outside them the dataset's
 * astronomical calendars (Chinese, Korean, Vietnamese lunar dates) are unproven, and for
 * year 1 one of them never returns: a request must not be able to pin a core. Inside
 * them, most countries' calendar-years are cheap, but a lunar one (Taiwan, whose dates
 * need planetary positions) costs far more than a request may hold the event loop
 * (bench/RESULTS.md, "Figures behind design choices"), so a server computes them off its
 * event loop (createHolidayWorker in adapters/) and remembers each one
 * (createPublicHolidayCache).
 *
 * The dataset itself, `date-holidays`, is in shipped-holidays.ts, loaded only where
 * holidays are computed: a server whose holidays come from its worker thread never holds
 * it in the thread that answers requests (bench/RESULTS.md, target 7).
 */

export const CALENDAR_KEY_PATTERN = /^[A-Z]{2}(-[A-Z]{2,3})?$/;

/** The years the shipped dataset covers; test/holidays-bounds.e2e.test.ts computes every calendar at both ends. */
export const SHIPPED_YEARS = { first: 1900, last: 2199 } as const;

export interface PublicHoliday {
  date: string;
  name: string;
}

/**
 * The shipped public holidays of one calendar in one year, in date order. May answer
 * later (a worker thread computes them) or at once.
 */
export type PublicHolidaySource = (calendar: string, year: number) => readonly PublicHoliday[] | Promise<readonly PublicHoliday[]>;

export function isShippedYear(year: number): boolean {
  return Number.isInteger(year) && year >= SHIPPED_YEARS.first && year <= SHIPPED_YEARS.last;
}

/** How many calendar-years a cache keeps: far more than any organisation's calendars × years. */
export const PUBLIC_HOLIDAY_CACHE_LIMIT = 20_000;

/**
 * Remembers each calendar-year a source computes, so that it is computed at most once
 * per process (while the cache holds fewer than `limit` calendar-years; past that the
 * least recently used go). Concurrent requests for one calendar-year share one
 * computation; a failed one is forgotten, so the next request tries again. A year
 * outside SHIPPED_YEARS is answered at once, without asking the source.
 */
export function createPublicHolidayCache(
  compute: (calendar: string, year: number) => readonly PublicHoliday[],
  limit?: number,
): (calendar: string, year: number) => readonly PublicHoliday[];
export function createPublicHolidayCache(compute: PublicHolidaySource, limit?: number): PublicHolidaySource;
export function createPublicHolidayCache(compute: PublicHolidaySource, limit = PUBLIC_HOLIDAY_CACHE_LIMIT): PublicHolidaySource {
  const entries = new Map<string, readonly PublicHoliday[] | Promise<readonly PublicHoliday[]>>();
  const remember = (key: string, value: readonly PublicHoliday[] | Promise<readonly PublicHoliday[]>) => {
    entries.delete(key);
    entries.set(key, value);
    if (entries.size > limit) entries.delete(entries.keys().next().value!);
  };
  return (calendar, year) => {
    if (!isShippedYear(year) || !CALENDAR_KEY_PATTERN.test(calendar)) return [];
    const key = `${calendar}/${year}`;
    const known = entries.get(key);
    if (known !== undefined) {
      remember(key, known);
      return known;
    }
    const computed = compute(calendar, year);
    if (!(computed instanceof Promise)) {
      remember(key, computed);
      return computed;
    }
    const pending = computed.then(
      (holidays) => {
        if (entries.get(key) === pending) remember(key, holidays);
        return holidays;
      },
      (error: unknown) => {
        if (entries.get(key) === pending) entries.delete(key);
        throw error;
      },
    );
    remember(key, pending);
    return pending;
  };
}
