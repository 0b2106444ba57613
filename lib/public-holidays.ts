/**
 * Shipped public holidays, from the maintained `date-holidays` dataset (DECISIONS §8):
 * a calendar key `CC` or `CC-RRR` is a country and optionally one of its states or
 * regions; only type `public` is kept, one entry per date (the first the dataset
 * lists), substitute days included.
 */
import Holidays from "date-holidays";

export const CALENDAR_KEY_PATTERN = /^[A-Z]{2}(-[A-Z]{2,3})?$/;

export interface PublicHoliday {
  date: string;
  name: string;
}

const known = new Holidays();
const countries = known.getCountries() as Record<string, string>;
const statesByCountry = new Map<string, Record<string, string>>();

/** Whether the dataset has holidays for this calendar key. */
export function isShippedCalendar(key: string): boolean {
  if (!CALENDAR_KEY_PATTERN.test(key)) return false;
  const [country, region] = key.split("-") as [string, string | undefined];
  if (!(country in countries)) return false;
  if (region === undefined) return true;
  let states = statesByCountry.get(country);
  if (!states) {
    states = (known.getStates(country) ?? {}) as Record<string, string>;
    statesByCountry.set(country, states);
  }
  return region in states;
}

const cache = new Map<string, PublicHoliday[]>();

/** The shipped public holidays of one calendar in one year, in date order; empty for an unknown key. */
export function shippedPublicHolidays(key: string, year: number): PublicHoliday[] {
  const cacheKey = `${key}/${year}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  let result: PublicHoliday[] = [];
  if (isShippedCalendar(key)) {
    const [country, region] = key.split("-") as [string, string | undefined];
    const hd = region === undefined ? new Holidays(country) : new Holidays(country, region);
    const seen = new Set<string>();
    for (const h of hd.getHolidays(year)) {
      if (h.type !== "public") continue;
      const date = h.date.slice(0, 10);
      if (seen.has(date)) continue;
      seen.add(date);
      result.push({ date, name: h.name });
    }
    result.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }
  // Bounded: a few calendars over a few years is all any organisation asks for.
  if (cache.size > 2000) cache.clear();
  cache.set(cacheKey, result);
  return result;
}
