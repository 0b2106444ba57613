#!/usr/bin/env bun
/**
 * Every calendar the shipped dataset knows, every year of 1900-2199: computes each
 * calendar-year once, in this thread, and prints how many there were, the slowest ten and
 * the distribution, so that a new `date-holidays` release that spins (as year 1 of the
 * Chinese calendar did) or slows down is found before it ships. About 10 minutes on one
 * core of the reference machine; test/holidays-bounds.e2e.test.ts checks the edge years in CI.
 *
 * `--compare-timezone` also computes each calendar-year the way the dataset does by default,
 * converting every holiday to its calendar's timezone, and counts any result that differs
 * from computePublicHolidays's, which skips that conversion (lib/shipped-holidays.ts).
 *
 *   bun bench/holiday-sweep.ts [--from 1900] [--to 2199] [--only CN,TW] [--compare-timezone]
 */
import { parseArgs } from "node:util";
import Holidays from "date-holidays";
import { SHIPPED_YEARS } from "../lib/public-holidays.ts";
import { computePublicHolidays, shippedCalendars } from "../lib/shipped-holidays.ts";

const { values } = parseArgs({
  options: { from: { type: "string" }, to: { type: "string" }, only: { type: "string" }, "compare-timezone": { type: "boolean", default: false } },
});
const from = Number(values.from ?? SHIPPED_YEARS.first);
const to = Number(values.to ?? SHIPPED_YEARS.last);
const calendars = values.only ? values.only.split(",") : shippedCalendars();

/** The public holidays as the dataset gives them with its default timezone conversion. */
function withTimezone(calendar: string, year: number): { date: string; name: string }[] {
  const [country, region] = calendar.split("-") as [string, string | undefined];
  const seen = new Set<string>();
  const out: { date: string; name: string }[] = [];
  for (const h of (region === undefined ? new Holidays(country) : new Holidays(country, region)).getHolidays(year)) {
    if (h.type !== "public" || seen.has(h.date.slice(0, 10))) continue;
    seen.add(h.date.slice(0, 10));
    out.push({ date: h.date.slice(0, 10), name: h.name });
  }
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

const differing: string[] = [];
const times: { key: string; ms: number }[] = [];
const started = performance.now();
let entries = 0;
for (const calendar of calendars) {
  for (let year = from; year <= to; year++) {
    const t = performance.now();
    const holidays = computePublicHolidays(calendar, year);
    entries += holidays.length;
    times.push({ key: `${calendar} ${year}`, ms: performance.now() - t });
    if (values["compare-timezone"] && JSON.stringify(withTimezone(calendar, year)) !== JSON.stringify(holidays)) differing.push(`${calendar} ${year}`);
  }
}
const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
console.log(
  `${calendars.length} calendars x ${to - from + 1} years = ${times.length} calendar-years, ${entries} holidays, ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log(`ms per calendar-year: p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}  max ${at(1)}`);
console.log(`over 50 ms: ${times.filter((t) => t.ms > 50).length}; over 1 s: ${times.filter((t) => t.ms > 1000).length}`);
console.log(
  "slowest:",
  times
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10)
    .map((t) => `${t.key} ${t.ms.toFixed(0)} ms`)
    .join(", "),
);
if (values["compare-timezone"]) {
  console.log(
    `differing from the dataset's timezone-converted results: ${differing.length}${differing.length ? ` (${differing.slice(0, 20).join(", ")})` : ""}`,
  );
  if (differing.length > 0) process.exitCode = 1;
}
