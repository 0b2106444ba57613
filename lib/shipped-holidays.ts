/**
 * The shipped public holidays themselves, from the maintained `date-holidays` dataset
 * (public-holidays.ts says which, and for which years): computed synchronously, for the
 * holiday worker thread, the command line (imports count days off, the demo) and tests.
 * Importing this module loads the dataset.
 */
import Holidays from "date-holidays";
import { CALENDAR_KEY_PATTERN, createPublicHolidayCache, isShippedYear, type PublicHoliday } from "./public-holidays.ts";

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

/**
 * The shipped public holidays of one calendar in one year, computed in this thread and
 * remembered: for the command line (imports count days off) and hosts that pass no
 * source of their own.
 */
export const shippedPublicHolidays = createPublicHolidayCache(computePublicHolidays);
