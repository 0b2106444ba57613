/**
 * Shipped public holidays, from the maintained `date-holidays` dataset (docs/api.md,
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
 */
import Holidays from "date-holidays";

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

let dataset: Holidays | undefined;
let countries: Record<string, string> | undefined;
const statesByCountry = new Map<string, Record<string, string>>();

/** The dataset is loaded on first use: a process that never asks for a holiday never parses it. */
function knownDataset(): Holidays {
  dataset ??= new Holidays();
  return dataset;
}

/** The dataset's countries, listed once: each listing builds a new object. */
function knownCountries(): Record<string, string> {
  countries ??= knownDataset().getCountries() as Record<string, string>;
  return countries;
}

/** Whether the dataset has holidays for this calendar key. */
export function isShippedCalendar(key: string): boolean {
  if (!CALENDAR_KEY_PATTERN.test(key)) return false;
  const [country, region] = key.split("-") as [string, string | undefined];
  if (!(country in knownCountries())) return false;
  if (region === undefined) return true;
  let states = statesByCountry.get(country);
  if (!states) {
    states = (knownDataset().getStates(country) ?? {}) as Record<string, string>;
    statesByCountry.set(country, states);
  }
  return region in states;
}

/** Every calendar key the dataset knows, in `CC` / `CC-RRR` form. */
export function shippedCalendars(): string[] {
  const keys: string[] = [];
  for (const country of Object.keys(knownCountries())) {
    if (isShippedCalendar(country)) keys.push(country);
    for (const region of Object.keys((knownDataset().getStates(country) ?? {}) as Record<string, string>)) {
      if (isShippedCalendar(`${country}-${region}`)) keys.push(`${country}-${region}`);
    }
  }
  return keys;
}

/** Parsed rules per calendar: building them costs up to a few ms, so once per calendar. */
const rulesByCalendar = new Map<string, Holidays>();

function rulesOf(key: string): Holidays {
  let rules = rulesByCalendar.get(key);
  if (!rules) {
    const [country, region] = key.split("-") as [string, string | undefined];
    rules = region === undefined ? new Holidays(country) : new Holidays(country, region);
    // Only each holiday's `date` (the calendar's own local date) and name are read, never
    // its `start` and `end` instants; without a timezone the dataset skips converting both
    // through moment-timezone, a large share of its time, and gives the same dates (every
    // calendar, 2000-2040: bench/holiday-sweep.ts --compare-timezone).
    rules.setTimezone(undefined as unknown as string);
    rulesByCalendar.set(key, rules);
  }
  return rules;
}

/**
 * Computes, uncached and synchronously, the shipped public holidays of one calendar in one
 * year; empty for an unknown key or a year outside SHIPPED_YEARS. A lunar calendar-year
 * is slow to compute: a server calls it through a cache, off its event loop.
 */
export function computePublicHolidays(key: string, year: number): PublicHoliday[] {
  if (!isShippedYear(year) || !isShippedCalendar(key)) return [];
  const result: PublicHoliday[] = [];
  const seen = new Set<string>();
  for (const h of rulesOf(key).getHolidays(year)) {
    if (h.type !== "public") continue;
    const date = h.date.slice(0, 10);
    if (seen.has(date)) continue;
    seen.add(date);
    result.push({ date, name: h.name });
  }
  return result.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
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

/**
 * The shipped public holidays of one calendar in one year, computed in this thread and
 * remembered: for the command line (imports count days off) and hosts that pass no
 * source of their own.
 */
export const shippedPublicHolidays = createPublicHolidayCache(computePublicHolidays);
