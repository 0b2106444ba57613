/**
 * The demo organisation's records, as import records in the API's own field names
 * (docs/cli.md, "The import format"): employees, two years of leave around a reference
 * date, and company closures. Generated from a seeded PRNG, so the same seed and `today`
 * always give the same records; bookings carry no `days`, so the importer computes them.
 * The names, departments and job titles people are drawn from: demo-people.ts.
 */
import { formatDay, formatInstant, parseDate, weekdayOfDay } from "../../lib/dates.ts";
import { shippedPublicHolidays } from "../../lib/shipped-holidays.ts";
import type { LeaveStatus } from "../../lib/records.ts";
import { CALENDARS, DEPARTMENTS, NICKNAMES } from "./demo-people.ts";

export const DEFAULT_DEMO_SEED = 20240601;
export const DEMO_EMPLOYEE_COUNT = 240;

/** mulberry32: a tiny, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
function weighted<T>(rng: Rng, table: readonly (readonly [T, number])[]): T {
  let r = rng() * table.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of table) {
    r -= w;
    if (r < 0) return value;
  }
  return table[table.length - 1]![0];
}

/** The department whose offsite day is the demo's department-only closure. */
export const OFFSITE_DEPARTMENT = "Engineering";

export interface DemoEmployee {
  external_id: string;
  first_name: string;
  last_name: string;
  preferred_name: string | null;
  job_title: string;
  department: string;
  status: "active" | "terminated";
  start_date: string;
  leaving_date: string | null;
  holiday_calendar: string;
}

const dayOf = (today: Date) => Math.floor(today.getTime() / 86_400_000);

/**
 * About 240 people over five calendars: most active, about one in eight terminated (left in
 * the past), a few starting in the future and a few working their notice.
 */
export function demoEmployees(today: Date, seed = DEFAULT_DEMO_SEED): DemoEmployee[] {
  const rng = mulberry32(seed);
  const t = dayOf(today);
  const out: DemoEmployee[] = [];
  for (let i = 1; i <= DEMO_EMPLOYEE_COUNT; i++) {
    const calendar = weighted(
      rng,
      CALENDARS.map((c) => [c, c.weight] as const),
    );
    const [department, , titles] = weighted(
      rng,
      DEPARTMENTS.map((d) => [d, d[1]] as const),
    );
    const first = pick(rng, calendar.first);
    const kind = weighted(rng, [
      ["active", 82],
      ["terminated", 12],
      ["future", 4],
      ["notice", 2],
    ] as const);
    let start = t - int(rng, 30, 12 * 365);
    let leaving: number | null = null;
    if (kind === "future") start = t + int(rng, 7, 75);
    if (kind === "notice") leaving = t + int(rng, 10, 60);
    if (kind === "terminated") {
      start = t - int(rng, 500, 9 * 365);
      leaving = Math.max(start + 120, t - int(rng, 1, 650));
    }
    out.push({
      external_id: `HR-${String(i).padStart(4, "0")}`,
      first_name: first,
      last_name: pick(rng, calendar.last),
      preferred_name: NICKNAMES[first] !== undefined && rng() < 0.5 ? NICKNAMES[first] : null,
      job_title: pick(rng, titles),
      department,
      status: kind === "terminated" ? "terminated" : "active",
      start_date: formatDay(start),
      leaving_date: leaving === null ? null : formatDay(leaving),
      holiday_calendar: calendar.key,
    });
  }
  return out;
}

export interface DemoClosure {
  date: string;
  name: string;
  type: "company";
  applies_to: "all" | "department";
  department: string | null;
  location: null;
  deducts_from_leave: boolean;
}

/** The two years the demo covers: the year before `today`'s and `today`'s own (UTC). */
export function demoYears(today: Date): [number, number] {
  const year = today.getUTCFullYear();
  return [year - 1, year];
}

/**
 * Company closures in both years: the Christmas closure for everyone (weekdays of
 * 24–31 December but Christmas Day itself, using up allowance) and an Engineering
 * offsite day (the third Friday of June, not using allowance).
 */
export function demoHolidays(today: Date): DemoClosure[] {
  const out: DemoClosure[] = [];
  for (const year of demoYears(today)) {
    let friday = parseDate(`${year}-06-01`)!;
    while (weekdayOfDay(friday) !== 5) friday++;
    out.push({
      date: formatDay(friday + 14),
      name: "Engineering offsite",
      type: "company",
      applies_to: "department",
      department: OFFSITE_DEPARTMENT,
      location: null,
      deducts_from_leave: false,
    });
    for (let day = 24; day <= 31; day++) {
      const date = `${year}-12-${day}`;
      const weekday = weekdayOfDay(parseDate(date)!);
      if (day === 25 || weekday === 0 || weekday === 6) continue;
      out.push({ date, name: "Christmas closure", type: "company", applies_to: "all", department: null, location: null, deducts_from_leave: true });
    }
  }
  return out;
}

const LEAVE_TYPES = {
  annual: { name: "Annual leave", category: "annual", is_paid: true },
  sick: { name: "Sick leave", category: "sick", is_paid: true },
  parental: { name: "Parental leave", category: "parental", is_paid: true },
  unpaid: { name: "Unpaid leave", category: "unpaid", is_paid: false },
} as const;
type Category = keyof typeof LEAVE_TYPES;

export interface DemoBooking {
  external_id: string;
  employee_external_id: string;
  leave_type: { name: string; category: string; is_paid: boolean };
  start_date: string;
  end_date: string;
  start_half_day: boolean;
  start_half_period: "am" | "pm" | null;
  end_half_day: boolean;
  end_half_period: "am" | "pm" | null;
  status: LeaveStatus;
  requested_at: string;
  reviewed_at: string | null;
  cancelled_at: string | null;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Days off for one employee: weekends aside, their calendar's public holidays and the closures that apply to them. */
function daysOffFor(employee: DemoEmployee, closures: DemoClosure[], years: readonly number[]): Set<string> {
  const off = new Set<string>();
  for (const year of years) for (const h of shippedPublicHolidays(employee.holiday_calendar, year)) off.add(h.date);
  for (const c of closures) if (c.applies_to === "all" || c.department === employee.department) off.add(c.date);
  return off;
}

/** Whether the booking's dates are in the past, under way, or to come decides which statuses are plausible. */
function chooseStatus(rng: Rng, start: number, end: number, t: number): LeaveStatus {
  if (end < t)
    return weighted(rng, [
      ["approved", 80],
      ["rejected", 7],
      ["cancelled", 13],
    ] as const);
  if (start <= t)
    return weighted(rng, [
      ["approved", 90],
      ["cancellation_requested", 10],
    ] as const);
  return weighted(rng, [
    ["pending", 33],
    ["approved", 40],
    ["rejected", 6],
    ["cancelled", 10],
    ["cancellation_requested", 11],
  ] as const);
}

/**
 * Request, review and cancellation instants in that order, all before `now`. Leave is
 * requested ahead of its start and settled before it; sick leave is reported on the
 * morning it starts and signed off afterwards.
 */
function timeline(rng: Rng, category: Category, status: LeaveStatus, start: number, t: number, nowMs: number) {
  const startMs = start * DAY;
  const ceiling = category === "sick" ? nowMs : Math.min(startMs, nowMs);
  const between = (lo: number, hi: number) => Math.floor((lo + rng() * (Math.min(hi, ceiling) - lo)) / 1000) * 1000;
  const requested =
    category === "sick"
      ? startMs + int(rng, 7 * 60, 9 * 60) * 60_000
      : Math.min(start - int(rng, 3, 60), t - int(rng, 1, 20)) * DAY + int(rng, 8 * 60, 18 * 60) * 60_000 + int(rng, 0, 59) * 1000;
  // A booking cancelled while still pending was never reviewed.
  const unreviewed = status === "pending" || (status === "cancelled" && rng() < 0.4);
  // Two hours' headroom below the ceiling leaves room for a cancellation after the review.
  const reviewed = unreviewed ? null : between(requested + HOUR, Math.min(requested + 4 * DAY, ceiling - 2 * HOUR));
  const base = reviewed ?? requested;
  const cancelled = status === "cancelled" ? between(base + HOUR, base + 20 * DAY) : null;
  return { requested, reviewed, cancelled };
}

/**
 * Bookings for every employee over the two demo years (and at least 90 days past
 * `today`), each within their employment: mostly annual leave of 1–10 working days (a
 * few longer, some with half days) in every status, plus sick, parental and unpaid leave
 * the API never returns. Start and end are always working days for the employee, so
 * every computed `days` is positive.
 */
export function demoLeave(today: Date, seed = DEFAULT_DEMO_SEED): DemoBooking[] {
  const rng = mulberry32(seed ^ 0x5bd1e995);
  const t = dayOf(today);
  const nowMs = today.getTime();
  const years = demoYears(today);
  const closures = demoHolidays(today);
  // Late in December the year has no future left: reach three months ahead so there is
  // always leave still pending or awaiting its cancellation.
  const horizon = Math.max(parseDate(`${years[1]}-12-31`)!, t + 90);
  const out: DemoBooking[] = [];
  for (const employee of demoEmployees(today, seed)) {
    const off = daysOffFor(employee, closures, [...years, years[1] + 1]);
    const working = (day: number) => weekdayOfDay(day) !== 0 && weekdayOfDay(day) !== 6 && !off.has(formatDay(day));
    const first = Math.max(parseDate(`${years[0]}-01-01`)!, parseDate(employee.start_date)!);
    const last = Math.min(horizon, employee.leaving_date ? parseDate(employee.leaving_date)! : Infinity);
    let cursor = first + int(rng, 10, 45);
    while (true) {
      let category = weighted(rng, [
        ["annual", 84],
        ["sick", 12],
        ["unpaid", 3],
        ["parental", 1],
      ] as const);
      const [shortest, longest] =
        category === "parental"
          ? [40, 90]
          : category === "sick"
            ? [1, 3]
            : weighted(rng, [
                [[1, 5], 72],
                [[6, 10], 23],
                [[11, 15], 5],
              ] as const);
      const length = int(rng, shortest, longest);
      let start = cursor;
      while (!working(start)) start++;
      let end = start;
      for (let n = 1; n < length; ) if (working(++end)) n++;
      if (end > last) break;
      // Nobody is signed off sick in advance.
      if (category === "sick" && end >= t) category = "annual";
      const half = category === "annual" && rng() < 0.14;
      const single = start === end;
      const startHalf = half && (single || rng() < 0.5);
      const endHalf = half && !startHalf;
      const status = category === "annual" ? chooseStatus(rng, start, end, t) : "approved";
      const times = timeline(rng, category, status, start, t, nowMs);
      out.push({
        external_id: `LV-${String(out.length + 1).padStart(6, "0")}`,
        employee_external_id: employee.external_id,
        leave_type: { ...LEAVE_TYPES[category] },
        start_date: formatDay(start),
        end_date: formatDay(end),
        start_half_day: startHalf,
        start_half_period: startHalf ? (single ? pick(rng, ["am", "pm"] as const) : "pm") : null,
        end_half_day: endHalf,
        end_half_period: endHalf ? "am" : null,
        status,
        requested_at: formatInstant(times.requested),
        reviewed_at: times.reviewed === null ? null : formatInstant(times.reviewed),
        cancelled_at: times.cancelled === null ? null : formatInstant(times.cancelled),
      });
      cursor = end + int(rng, 14, 75);
    }
  }
  return out;
}
