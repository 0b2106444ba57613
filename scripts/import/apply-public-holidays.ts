/**
 * Public-holiday rows of a holidays import (docs/cli.md, "Holidays files"). Rows are grouped per
 * (calendar, year); each group replaces the organisation's imported set for that
 * calendar and year, which in turn replaces the shipped set, for this organisation only.
 * Rows marked `deleted: true` are left out of the set; a group whose rows are all
 * deleted clears the override, so the shipped holidays apply again. The same calendar
 * and date twice in one file is an error on the later row. Groups are held until the
 * file ends: a set is only complete then (they are small: a few dozen rows a year).
 */
import { yearOf } from "../../lib/dates.ts";
import { computePublicHolidays } from "../../lib/shipped-holidays.ts";
import type { ImportRow } from "./normalise-records.ts";
import type { ImportContext } from "./import-context.ts";

type PublicRow = Extract<ImportRow, { type: "public_holiday" }>;

interface Group {
  calendar: string;
  year: number;
  rows: Map<string, { name: string | null; deleted: boolean; line: number }>;
}

export function createPublicHolidayApplier(ctx: ImportContext) {
  const groups = new Map<string, Group>();
  return {
    add(line: number, row: PublicRow): void {
      const year = yearOf(row.date);
      const key = `${row.calendar}|${year}`;
      let group = groups.get(key);
      if (!group) {
        group = { calendar: row.calendar, year, rows: new Map() };
        groups.set(key, group);
      }
      const earlier = group.rows.get(row.date);
      if (earlier) {
        ctx.fail(line, "date", `${row.calendar} ${row.date} is already on line ${earlier.line}`);
        return;
      }
      group.rows.set(row.date, { name: row.name, deleted: row.deleted, line });
    },

    async finish(): Promise<void> {
      if (ctx.failed()) return;
      for (const group of groups.values()) await replaceGroup(ctx, group);
    },
  };
}

async function replaceGroup(ctx: ImportContext, { calendar, year, rows }: Group): Promise<void> {
  const { writer, organisationId: org, counts } = ctx;
  const stored = new Map((await writer.listImportedPublicHolidays(org, [calendar], year, year)).map((h) => [h.date, h.name]));
  const live = [...rows.entries()]
    .filter(([, r]) => !r.deleted)
    .map(([date, r]) => ({ date, name: r.name! }))
    .sort((a, b) => (a.date < b.date ? -1 : 1));
  for (const h of live) {
    const before = stored.get(h.date);
    if (before === undefined) counts.created++;
    else if (before === h.name) counts.unchanged++;
    else counts.updated++;
  }
  for (const [date, r] of rows) if (r.deleted && !stored.has(date)) counts.unchanged++;
  const liveDates = new Set(live.map((h) => h.date));
  const removed = [...stored.keys()].filter((date) => !liveDates.has(date)).length;
  counts.deleted += removed;
  const same = removed === 0 && live.length === stored.size && live.every((h) => stored.get(h.date) === h.name);
  if (!same) await writer.replacePublicHolidays(org, calendar, year, live);
  // A whole calendar-year is replaced by however few rows the file has: say so, and how
  // many shipped holidays that hides, so one stray row cannot silently drop a year's set.
  const shipped = computePublicHolidays(calendar, year);
  const hidden = live.length === 0 ? 0 : shipped.filter((h) => !liveDates.has(h.date)).length;
  ctx.publicHolidays.push({ calendar, year, holidays: live.length, shipped: shipped.length, shipped_hidden: hidden });
}
