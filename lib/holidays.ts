/**
 * Holiday rules (docs/api.md, "Holidays"): which calendars an organisation observes, which
 * public holidays apply (an imported set replaces the shipped one for its calendar and
 * year, for that organisation only), and how public and company entries are merged and
 * ordered.
 */
import { closureHolidayEntry, publicHolidayEntry, type ClosureDayRecord, type HolidayEntry } from "./records.ts";
import { createPublicHolidayCache, type PublicHoliday, type PublicHolidaySource } from "./public-holidays.ts";
import type { ImportedPublicHoliday, Store } from "./store.ts";
import { yearOf } from "./dates.ts";
import { restrictedHolidayScope } from "./restricted-reads.ts";
import type { CredentialRestriction } from "./restriction.ts";

/**
 * The shipped public holidays computed in this thread, the dataset loaded on the first
 * request for them: for hosts that pass no source of their own (createHandler's default).
 */
export const shippedPublicHolidaysOnFirstUse: PublicHolidaySource = createPublicHolidayCache(async (calendar, year) =>
  (await import("./shipped-holidays.ts")).computePublicHolidays(calendar, year),
);

/**
 * Public holidays of one calendar for the years fromYear..toYear: for each year, the
 * organisation's imported set when it has one, else the shipped set from `shipped`.
 */
export async function effectivePublicHolidays(
  calendar: string,
  fromYear: number,
  toYear: number,
  imported: readonly ImportedPublicHoliday[],
  shipped: PublicHolidaySource = shippedPublicHolidaysOnFirstUse,
): Promise<PublicHoliday[]> {
  const importedByYear = new Map<number, PublicHoliday[]>();
  for (const h of imported) {
    if (h.calendar !== calendar) continue;
    const year = yearOf(h.date);
    const list = importedByYear.get(year) ?? [];
    list.push({ date: h.date, name: h.name });
    importedByYear.set(year, list);
  }
  const out: PublicHoliday[] = [];
  for (let year = fromYear; year <= toYear; year++) {
    out.push(...(importedByYear.get(year) ?? (await shipped(calendar, year))));
  }
  return out;
}

const TYPE_RANK = { public: 0, company: 1 } as const;

/** Date, then public before company, then calendar, then name (docs/api.md, "Holidays"). */
export function compareHolidays(a: HolidayEntry, b: HolidayEntry): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if (a.type !== b.type) return TYPE_RANK[a.type] - TYPE_RANK[b.type];
  const ca = a.calendar ?? "";
  const cb = b.calendar ?? "";
  if (ca !== cb) return ca < cb ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  const da = `${a.applies_to}/${a.department ?? ""}/${a.location ?? ""}`;
  const db = `${b.applies_to}/${b.department ?? ""}/${b.location ?? ""}`;
  return da < db ? -1 : da > db ? 1 : 0;
}

export interface HolidayQuery {
  from: string;
  to: string;
  calendar?: string;
  type?: "public" | "company";
}

type HolidayReads = Pick<Store, "observedCalendars" | "listClosureDays" | "listImportedPublicHolidays" | "restricted">;

/**
 * The holiday entries an organisation's client sees for a query, in order. `shipped`
 * gives the dataset's public holidays; a server passes one that computes off its event loop.
 * With a `restriction`, the calendars its employees observe and the closure days that
 * apply to them (lib/restricted-reads.ts); `calendar` then answers a calendar they observe only.
 */
export async function listHolidays(
  store: HolidayReads,
  organisationId: string,
  q: HolidayQuery,
  shipped: PublicHolidaySource = shippedPublicHolidaysOnFirstUse,
  restriction?: CredentialRestriction,
): Promise<HolidayEntry[]> {
  const scope = restriction ? await restrictedHolidayScope(store, organisationId, restriction, q.from, q.to) : null;
  const entries: HolidayEntry[] = [];
  const wantPublic = q.type !== "company";
  // `calendar` asks for public holidays only, whether or not anyone observes it.
  const wantCompany = q.type !== "public" && q.calendar === undefined;
  if (wantPublic) {
    const asked = q.calendar;
    const calendars = scope
      ? scope.calendars.filter((c) => asked === undefined || c === asked)
      : asked !== undefined
        ? [asked]
        : await store.observedCalendars(organisationId, q.from, q.to);
    const [fromYear, toYear] = [yearOf(q.from), yearOf(q.to)];
    const imported = await store.listImportedPublicHolidays(organisationId, calendars, fromYear, toYear);
    // Every calendar asked at once: a source that computes elsewhere (a worker thread) then
    // gets them all in one go, rather than one message round trip after another.
    const perCalendar = await Promise.all(calendars.map((calendar) => effectivePublicHolidays(calendar, fromYear, toYear, imported, shipped)));
    for (const [i, calendar] of calendars.entries()) {
      for (const h of perCalendar[i]!) {
        if (h.date >= q.from && h.date <= q.to) entries.push(publicHolidayEntry(calendar, h.date, h.name));
      }
    }
  }
  if (wantCompany) {
    for (const c of await store.listClosureDays(organisationId, q.from, q.to)) if (!scope || scope.closure(c)) entries.push(closureHolidayEntry(c));
  }
  return entries.sort(compareHolidays);
}

/** Whether a closure day applies to an employee of this department (v1 employees carry no location). */
export function closureAppliesTo(closure: ClosureDayRecord, department: string | null): boolean {
  if (closure.applies_to === "all") return true;
  return closure.applies_to === "department" && department !== null && closure.department === department;
}
